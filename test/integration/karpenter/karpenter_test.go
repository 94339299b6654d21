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

package karpenter_test

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/invariants/history"
)

// The ranges: the workload's nodes start in old, which is retired; their
// replacements get blocks of new.
const (
	oldRange, oldCIDR = "old", "10.100.0.0/16"
	newRange, newCIDR = "new", "10.101.0.0/16"
	// recycleDelay is the PodNetwork's recycleDelaySeconds, which the
	// history checks hold NodeIPAM to. Not 0, so an early reuse would be
	// a violation; in this story no freed block may be issued at all (the
	// old range's are Draining, and no node of the new range goes).
	recycleDelay = 30
	// maxUnavailable is drain assist's: two of the three nodes at once,
	// while the workload's PodDisruptionBudget lets one pod go at a time,
	// so the budget refuses the second node's eviction until the first
	// pod's replacement runs on a node Karpenter provisioned (seconds:
	// drain assist evicts the pods of both nodes within one poll).
	maxUnavailable = 2
)

var _ = Describe("Retiring a range with Karpenter", func() {
	It("drains and deletes the old range's nodes at most two at a time behind a PodDisruptionBudget, Karpenter replaces them with nodes of the new range, and the old range is released and purged", func() {
		hist := recordHistory()
		startOperator()

		By("the workload runs on nodes Karpenter provisioned, with blocks of the old range")
		Expect(k8sClient.Create(ctx, framework.PodNetwork().RecycleDelaySeconds(recycleDelay).Range(oldRange, oldCIDR).Obj())).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments(oldRange).Should(Equal(v1alpha1.RangePhaseActive))
		createNodePool()
		ns := namespace()
		createWorkload(ns)
		Eventually(workloadNodes).WithArguments(ns).Should(HaveLen(replicas), describeWorkload(ns))
		Expect(podCIDRsOf(workloadNodes(ns))).To(HaveEach(BeInRange(oldCIDR)))
		Eventually(disruptionsAllowed).WithArguments(ns).Should(Equal(int32(1)))
		oldNodes := workloadNodes(ns)
		for _, n := range oldNodes {
			Expect(n.Labels).To(HaveKey("karpenter.sh/nodepool"), "Karpenter provisioned %s", n.Name)
		}

		By("a second range is added, and the first removed with drain assist on")
		editSpec(func(s *v1alpha1.PodNetworkSpec) {
			s.Ranges = append(s.Ranges, framework.Range(newRange, newCIDR).Obj())
		})
		Eventually(k8sClient.Phase).WithArguments(newRange).Should(Equal(v1alpha1.RangePhaseActive))
		editSpec(func(s *v1alpha1.PodNetworkSpec) {
			s.Ranges = []v1alpha1.PodCIDRRange{framework.Range(newRange, newCIDR).Obj()}
			s.DrainAssist = v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverDelete,
				MaxUnavailable: ptr.To(intstr.FromInt32(maxUnavailable))}
		})

		By("the old nodes are drained and deleted, Karpenter replaces them, and the old range is released and purged")
		for _, n := range oldNodes {
			Eventually(nodeExists, 3*time.Minute).WithArguments(n.Name).Should(BeFalse(), describeWorkload(ns))
		}
		Eventually(k8sClient.Phase).WithArguments(oldRange).Should(BeEmpty(), "the old range is purged")
		Eventually(workloadNodes).WithArguments(ns).Should(HaveLen(replicas), describeWorkload(ns))
		Expect(podCIDRsOf(workloadNodes(ns))).To(HaveEach(BeInRange(newCIDR)))
		Eventually(func() *metav1.Condition { return k8sClient.Condition(v1alpha1.DrainAssistCompletePodNetworkCondition) }).
			Should(HaveField("Reason", v1alpha1.NoNodesToReplaceReason))
		Eventually(func() *metav1.Condition { return k8sClient.Condition(v1alpha1.ReadyCondition) }).
			Should(HaveField("Status", metav1.ConditionTrue))
		Eventually(disruptionsAllowed).WithArguments(ns).Should(Equal(int32(1)))
		hist.Stop()
		Expect(hist.Err()).NotTo(HaveOccurred())

		By("the recorded history and the audit log hold every promise")
		events := hist.Events()
		evictions, err := readEvictions(auditLog)
		Expect(err).NotTo(HaveOccurred())
		byOperator := evictionsBy(evictions, operatorUser)
		GinkgoWriter.Printf("evictions: %d by the operator (%d refused), %d by others\n",
			len(byOperator), len(byOperator)-len(accepted(byOperator)), len(evictions)-len(byOperator))
		Expect(accepted(byOperator)).To(HaveLen(replicas), "the operator evicted each old node's pod once: %v", byOperator)
		Expect(len(byOperator)).To(BeNumerically(">", replicas), "the budget refused an eviction at least once (429), so it was put to the test: %v", byOperator)
		Expect(len(evictions)).To(Equal(len(byOperator)), "Karpenter evicts nothing: drain assist left only what it never evicts: %v", evictions)
		Expect(evictionsWithoutBudget(events, accepted(evictions))).To(BeEmpty(), "evictions accepted while their PodDisruptionBudget allowed none")
		Expect(evictionsOutside(events, byOperator, oldCIDR)).To(BeEmpty(), "evictions by the operator of pods on nodes outside the Draining range")
		most, when := framework.MostNodesAtOnce(events, framework.StartedByDrainAssist)
		Expect(most).To(Equal(maxUnavailable), "nodes cordoned or marked by drain assist at once: %v", when)
		for _, n := range oldNodes {
			Expect(terminatedByKarpenter(events, n.Name)).To(BeTrue(), "%s was deleted through Karpenter's termination finalizer", n.Name)
		}
		report := history.Check(observations(events), nil, history.Options{})
		Expect(report.Violations).To(BeEmpty(), "the history's invariants (no overlapping podCIDRs, no block reused early, ...)")
		Expect(report.Counts).To(And(
			HaveKeyWithValue(history.CountNodesDeleted, replicas),
			HaveKeyWithValue(history.CountAssigned, 2*replicas),
			HaveKeyWithValue(history.CountTransition+"Draining->Released", 1),
			HaveKeyWithValue(history.CountTransition+"Released->(purged)", 1),
		))
		GinkgoWriter.Printf("history: %v\n", report.Counts)
	})
})

// BeInRange succeeds for a prefix (a string) inside cidr.
func BeInRange(cidr string) OmegaMatcher {
	return WithTransform(func(prefix string) bool { return within(prefix, cidr) }, BeTrue())
}

// workloadNodes returns the nodes that run a Ready pod of the workload,
// each once; a node being deleted does not count.
func workloadNodes(ns string) []corev1.Node {
	pods := &corev1.PodList{}
	if err := k8sClient.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"app": workload}); err != nil {
		return nil
	}
	var out []corev1.Node
	seen := map[string]bool{}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" || seen[p.Spec.NodeName] || !p.DeletionTimestamp.IsZero() || !podReady(&p) {
			continue
		}
		n := &corev1.Node{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: p.Spec.NodeName}, n); err != nil || !n.DeletionTimestamp.IsZero() {
			continue
		}
		seen[n.Name] = true
		out = append(out, *n)
	}
	return out
}

// podCIDRsOf returns every podCIDR of the nodes; a node without one counts
// as "none", which no range holds.
func podCIDRsOf(nodes []corev1.Node) []string {
	var out []string
	for _, n := range nodes {
		if len(n.Spec.PodCIDRs) == 0 {
			out = append(out, "none ("+n.Name+")")
		}
		out = append(out, n.Spec.PodCIDRs...)
	}
	return out
}

// disruptionsAllowed is what the disruption controller says the
// workload's PodDisruptionBudget allows now.
func disruptionsAllowed(ns string) int32 {
	pdb := &policyv1.PodDisruptionBudget{}
	if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: workload}, pdb); err != nil {
		return -1
	}
	return pdb.Status.DisruptionsAllowed
}

// nodeExists reports whether the node exists, being deleted or not.
func nodeExists(name string) bool {
	return k8sClient.Get(ctx, client.ObjectKey{Name: name}, &corev1.Node{}) == nil
}

// describeWorkload says, when a wait fails, where the workload's pods and
// the nodes stand.
func describeWorkload(ns string) func() string {
	return func() string {
		var b strings.Builder
		pods := &corev1.PodList{}
		_ = k8sClient.List(ctx, pods, client.InNamespace(ns))
		for _, p := range pods.Items {
			fmt.Fprintf(&b, "pod %s: node %q phase %s ready %t deleting %t\n", p.Name, p.Spec.NodeName, p.Status.Phase, podReady(&p), !p.DeletionTimestamp.IsZero())
		}
		for _, n := range k8sClient.Nodes() {
			fmt.Fprintf(&b, "node %s: podCIDRs %v unschedulable %t taints %v deleting %t labels %v\n", n.Name, n.Spec.PodCIDRs, n.Spec.Unschedulable, n.Spec.Taints, !n.DeletionTimestamp.IsZero(), n.Labels)
		}
		return b.String()
	}
}
