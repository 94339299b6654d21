/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package drain_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

var (
	karpenter    = map[string]string{v1alpha1.KarpenterNodePoolLabel: "default"}
	doNotDisrupt = map[string]string{v1alpha1.KarpenterDoNotDisruptAnnotation: "true"}
)

var _ = Describe("Drain assist", func() {
	BeforeEach(func() {
		DeferCleanup(func() { k8sClient.ResetCluster() })
	})

	It("replaces the holders of a Draining range one at a time with Karpenter, waits for a PodDisruptionBudget, skips a do-not-disrupt node, and the range is released", func() {
		startOperator()
		ns := namespace()
		activeNetwork(framework.Range("old", "10.80.0.0/16").Obj())
		createNodes("10.80.0.0/16", karpenter, nil, "n-0", "n-1", "n-2")
		createNodes("10.80.0.0/16", karpenter, doNotDisrupt, "n-3")
		for _, n := range []string{"n-0", "n-1", "n-2", "n-3"} {
			createPod(ns, "web-"+n, n, map[string]string{"app": "web"}, false)
			createPod(ns, "agent-"+n, n, map[string]string{"app": "agent"}, true)
		}
		createPod(ns, "db-0", "n-0", map[string]string{"app": "db"}, false)
		budget(ns, "db", 0)
		history := recordNodesAndPods()

		editSpec(func(s *v1alpha1.PodNetworkSpec) {
			s.Ranges = append(s.Ranges, framework.Range("new", "10.81.0.0/16").Obj())
		})
		Eventually(k8sClient.Phase).WithArguments("new").Should(Equal(v1alpha1.RangePhaseActive))
		retire(framework.Range("new", "10.81.0.0/16").Obj(), v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverDelete})
		Eventually(k8sClient.Phase).WithArguments("old").Should(Equal(v1alpha1.RangePhaseDraining))

		By("the first node is cordoned and drained; the budget holds its last pod back, and is named")
		Eventually(nodeReport).WithArguments("n-0").Should(And(
			HaveField("State", v1alpha1.DrainNodeDraining),
			HaveField("Reason", v1alpha1.DrainReasonEvictionBlocked),
			HaveField("Message", ContainSubstring("PodDisruptionBudget "+ns+"/db allows no disruption of pod "+ns+"/db-0")),
			HaveField("Ranges", ConsistOf("old")),
		))
		Eventually(eventNotes).WithArguments("Node", v1alpha1.EvictionBlockedEvent).Should(ContainElement(ContainSubstring("n-0: PodDisruptionBudget " + ns + "/db")))
		Expect(gone(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-n-0"}})()).To(BeTrue(), "the pods no budget guards are evicted")
		Eventually(nodeEvents).WithArguments("n-0").Should(ContainElement(v1alpha1.DrainStartedEvent))
		Consistently(marked, 2*time.Second).Should(ConsistOf("n-0"), "no other node starts while the first waits")
		Expect(drainStatus()).To(And(
			HaveField("Total", ptr.To(int32(4))), HaveField("Draining", ptr.To(int32(1))),
			HaveField("Skipped", ptr.To(int32(1))), HaveField("Waiting", ptr.To(int32(2))),
			HaveField("MaxUnavailable", int32(1)),
		))

		By("the do-not-disrupt node is skipped and reported")
		Expect(nodeReport("n-3")).To(And(HaveField("State", v1alpha1.DrainNodeSkipped), HaveField("Reason", v1alpha1.DrainReasonNodeDoNotDisrupt)))
		Eventually(nodeEvents).WithArguments("n-3").Should(ContainElement(v1alpha1.DrainSkippedEvent))
		Eventually(complete).Should(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", v1alpha1.NodesBlockedReason),
			HaveField("Message", ContainSubstring("n-3 (NodeDoNotDisrupt"))))

		By("the budget allows a disruption: the nodes are drained and deleted, one after the other")
		allow(ns, "db", 1)
		for _, n := range []string{"n-0", "n-1", "n-2"} {
			Eventually(gone(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})).Should(BeTrue(), n)
			Eventually(nodeEvents).WithArguments(n).Should(ContainElements(v1alpha1.DrainStartedEvent, v1alpha1.NodeHandedOverEvent), n)
		}
		Expect(k8sClient.Phase("old")).To(Equal(v1alpha1.RangePhaseDraining), "n-3 still holds a block")
		Consistently(exists(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n-3"}}), time.Second).Should(BeTrue())
		Expect(marked()).To(BeEmpty())

		By("once the node may be disrupted, it goes too, and the range is released")
		n3 := &corev1.Node{}
		Expect(k8sClient.Get(suiteCtx, client.ObjectKey{Name: "n-3"}, n3)).To(Succeed())
		patch := client.MergeFrom(n3.DeepCopy())
		delete(n3.Annotations, v1alpha1.KarpenterDoNotDisruptAnnotation)
		Expect(k8sClient.Patch(suiteCtx, n3, patch)).To(Succeed())
		Eventually(gone(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n-3"}})).Should(BeTrue())
		Eventually(func() v1alpha1.RangePhase {
			if p := k8sClient.Phase("old"); p != "" {
				return p
			}
			return v1alpha1.RangePhaseReleased // released and purged already
		}).Should(Equal(v1alpha1.RangePhaseReleased))
		Eventually(complete).Should(And(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", v1alpha1.NoNodesToReplaceReason)))
		Eventually(eventNotes).WithArguments("PodNetwork", v1alpha1.DrainAssistCompleteEvent).ShouldNot(BeEmpty())

		By("DaemonSet pods were never evicted, and never more than one node was cordoned at once")
		for _, n := range []string{"n-0", "n-1", "n-2", "n-3"} {
			Expect(exists(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agent-" + n}})()).To(BeTrue(), "agent-"+n)
		}
		for _, ev := range history.Events() {
			if p, ok := ev.Object.(*corev1.Pod); ok && p.Labels["app"] == "agent" {
				Expect(ev.Deleted || !p.DeletionTimestamp.IsZero()).To(BeFalse(), "DaemonSet pod %s was evicted", p.Name)
			}
		}
		Expect(eventNotes("PodNetwork", "StatusEdited")).To(BeEmpty(), "drain assist's status writes are the operator's own")
		most, when := framework.MostNodesAtOnce(history.Events(), framework.StartedByDrainAssist)
		Expect(most).To(Equal(1), "nodes cordoned at once: %v", when)
		cordoned, _ := framework.MostNodesAtOnce(history.Events(), func(n *corev1.Node) bool { return n.Spec.Unschedulable })
		Expect(cordoned).To(Equal(1))
	})

	It("with Cluster API, sets PodCIDRReplacementNeeded on at most maxUnavailable nodes, and the range is released", func() {
		startOperator()
		ns := namespace()
		activeNetwork(framework.Range("old-c", "10.82.0.0/16").Obj(), framework.Range("new-c", "10.83.0.0/16").NodeSelector(&corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"new"}}}}},
		}).Obj())
		names := []string{"c-0", "c-1", "c-2", "c-3"}
		createNodes("10.82.0.0/16", nil, nil, names...)
		for _, n := range names {
			createPod(ns, "web-"+n, n, map[string]string{"app": "web"}, false)
		}
		history := recordNodesAndPods()
		replaced := clusterAPI(time.Second)

		retire(framework.Range("new-c", "10.83.0.0/16").NodeSelector(nil).Obj(), v1alpha1.DrainAssist{
			Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverCondition, MaxUnavailable: ptr.To(intstr.FromString("50%")),
		})
		Eventually(nodeCondition).WithArguments("c-0").Should(And(
			HaveField("Status", corev1.ConditionTrue),
			HaveField("Reason", v1alpha1.PodCIDRRangeDrainingReason),
			HaveField("Message", ContainSubstring("Draining range old-c (10.82.0.0/16)")),
		))
		Eventually(replaced).Should(ConsistOf(names))
		Eventually(func() v1alpha1.RangePhase {
			if p := k8sClient.Phase("old-c"); p != "" {
				return p
			}
			return v1alpha1.RangePhaseReleased
		}).Should(Equal(v1alpha1.RangePhaseReleased))
		Eventually(complete).Should(HaveField("Reason", v1alpha1.NoNodesToReplaceReason))

		most, when := framework.MostNodesAtOnce(history.Events(), replacementNeeded)
		Expect(most).To(Equal(2), "50%% of 4 nodes: at most 2 at once, and 2 at first (%v)", when)
		cordoned, _ := framework.MostNodesAtOnce(history.Events(), framework.StartedByDrainAssist)
		Expect(cordoned).To(BeNumerically("<=", 2))
		for _, n := range names {
			Eventually(nodeEvents).WithArguments(n).Should(ContainElements(v1alpha1.DrainStartedEvent, v1alpha1.NodeHandedOverEvent), n)
		}
	})

	It("in Recommend mode reports the next nodes and changes nothing; Off removes the report", func() {
		startOperator()
		ns := namespace()
		activeNetwork(framework.Range("old-r", "10.84.0.0/16").Obj(), framework.Range("new-r", "10.85.0.0/16").NodeSelector(&corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"new"}}}}},
		}).Obj())
		createNodes("10.84.0.0/16", karpenter, nil, "r-0", "r-1")
		createPod(ns, "web", "r-0", nil, false)
		retire(framework.Range("new-r", "10.85.0.0/16").NodeSelector(nil).Obj(), v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistRecommend, Handover: v1alpha1.HandoverDelete})

		Eventually(nodeReport).WithArguments("r-0").Should(And(HaveField("State", v1alpha1.DrainNodeRecommended), HaveField("PodsLeft", ptr.To(int32(1)))))
		Eventually(complete).Should(HaveField("Reason", v1alpha1.RecommendingReason))
		Eventually(eventNotes).WithArguments("PodNetwork", v1alpha1.DrainRecommendedEvent).Should(ConsistOf(ContainSubstring("would cordon and drain r-0 next")))
		Consistently(func() []string {
			var out []string
			for _, n := range k8sClient.Nodes() {
				if n.Spec.Unschedulable || len(n.Labels) != 1 {
					out = append(out, n.Name)
				}
			}
			return out
		}, 2*time.Second).Should(BeEmpty())
		Expect(exists(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})()).To(BeTrue())

		editSpec(func(s *v1alpha1.PodNetworkSpec) { s.DrainAssist.Mode = v1alpha1.DrainAssistOff })
		Eventually(func() *v1alpha1.DrainAssistStatus { return k8sClient.GetPodNetwork().Status.DrainAssist }).Should(BeNil())
		Eventually(k8sClient.Condition).WithArguments(v1alpha1.DrainAssistCompletePodNetworkCondition).Should(BeNil())
	})
})
