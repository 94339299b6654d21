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

package badinput_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

// The PodNetwork status is the operator's record of what consumers applied
// and nodes use; these specs edit it by hand, as kubectl edit
// --subresource=status would, and check that the operator never allocates
// or forgets on the strength of the edit, says so, and takes the fields back.
var _ = Describe("A PodNetwork status edited by hand", func() {
	api := k8sClient
	pods := framework.Range("pods", "10.244.0.0/16").NodeMaskSize(24).Obj()
	const nodeIPAM = "node-ipam"

	BeforeEach(func() {
		DeferCleanup(resetCluster, api)
		startOperator(suite.ControlPlane.Config)
	})

	It("repairs a Pending range edited to Active, and nothing is allocated from it nor acknowledged until every consumer accepted it", func() {
		history := record(api)
		Expect(api.Create(suiteCtx, framework.Consumer("blocker").Obj())).To(Succeed())
		createPodNetwork(api, pods)
		Eventually(podsAck(api, nodeIPAM)).Should(Equal("Pending/Accepted"))
		podsAwaitOnly(api, "blocker")
		createNode(api, "waiting")

		editPods(api, func(rs *v1alpha1.RangeStatus) { rs.Phase = v1alpha1.RangePhaseActive },
			func(rs v1alpha1.RangeStatus) bool { return rs.Phase == v1alpha1.RangePhaseActive },
			`"kubectl-edit" set phase: it is Pending`)
		Eventually(notes(api, "PodNetwork", "StatusEdited")).Should(ContainElement(
			ContainSubstring(`Only the operator writes the PodNetwork status, but "kubectl-edit" (Update) set status.ranges{pods}.phase`)))
		Eventually(statusManagers(api)).Should(operatorOnly, "the edit is taken back")
		Expect(api.Phase("pods")).To(Equal(v1alpha1.RangePhasePending))

		// A node adopted into the range makes NodeIPAM report usage: once
		// it shows, NodeIPAM has seen everything before it.
		createNode(api, "adopted", "10.244.200.0/24")
		Eventually(api.Usage).WithArguments("pods").Should(HaveField("Allocated", HaveValue(Equal(int64(1)))))
		Expect(podCIDRsOf(api, "waiting")()).To(BeEmpty())
		Expect(history.acks(nodeIPAM, "pods")).NotTo(ContainElement("Active/Accepted"), "NodeIPAM never took the edit for an activation")

		ack(api, "blocker")
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(podCIDRsOf(api, "waiting")).Should(ConsistOf(inPods()))
		history.expectInvariants(api)
	})

	It("takes cidr and nodeMaskSize of a spec range from the spec when they are edited", func() {
		createPodNetwork(api, pods)
		Eventually(podsAck(api, nodeIPAM)).Should(Equal("Active/Accepted"))
		inSync(api, nodeIPAM)
		editPods(api, func(rs *v1alpha1.RangeStatus) { rs.CIDR, rs.NodeMaskSize = "10.99.0.0/16", 20 },
			func(rs v1alpha1.RangeStatus) bool { return rs.CIDR == "10.99.0.0/16" },
			"takes cidr 10.244.0.0/16 and nodeMaskSize 24 from the spec again")
		Eventually(api.RangeStatus).WithArguments("pods").Should(And(
			HaveField("CIDR", "10.244.0.0/16"), HaveField("NodeMaskSize", int32(24)), HaveField("Phase", v1alpha1.RangePhaseActive)),
			"NodeIPAM, the only consumer, accepted it again")
		Eventually(statusManagers(api)).Should(operatorOnly)
	})

	It("keeps a Draining range whose release was forged until no node holds a block in it", func() {
		createPodNetwork(api, pods)
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))
		createNode(api, "holder")
		Eventually(podCIDRsOf(api, "holder")).Should(HaveLen(1))
		setRanges(api)
		Eventually(api.RangeStatus).WithArguments("pods").Should(And(HaveField("Phase", v1alpha1.RangePhaseDraining), HaveField("Holders", ConsistOf("holder"))))
		podsAwaitOnly(api)

		editPods(api, func(rs *v1alpha1.RangeStatus) { rs.Phase = v1alpha1.RangePhaseReleased },
			func(rs v1alpha1.RangeStatus) bool { return rs.Phase == v1alpha1.RangePhaseReleased }, "is Draining")
		Eventually(statusManagers(api)).Should(operatorOnly)
		Expect(api.RangeStatus("pods")).To(And(HaveField("Phase", v1alpha1.RangePhaseDraining), HaveField("Holders", ConsistOf("holder"))))

		deleteNode(api, "holder")
		Eventually(api.Phase).WithArguments("pods").Should(BeEmpty(), "released and purged once the node is gone")
	})

	It("never releases a range whose cidr was edited once it left the spec, says why, and forgets it when the entry is removed", func() {
		createPodNetwork(api, pods, framework.Range("other", "10.246.0.0/16").Obj())
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))
		createNode(api, "holder", "10.244.9.0/24")
		setRanges(api, framework.Range("other", "10.246.0.0/16").Obj())
		Eventually(api.RangeStatus).WithArguments("pods").Should(And(HaveField("Phase", v1alpha1.RangePhaseDraining), HaveField("Holders", ConsistOf("holder"))))
		podsAwaitOnly(api)

		// Re-addressed, here into garbage: held, since nothing tells which
		// prefix nodes use.
		editPods(api, func(rs *v1alpha1.RangeStatus) { rs.CIDR = "not-a-cidr" },
			func(rs v1alpha1.RangeStatus) bool { return rs.CIDR == "not-a-cidr" },
			`"kubectl-edit" set cidr: it is held Draining and never released`)
		Eventually(api.RangeStatus).WithArguments("pods").Should(And(HaveField("Phase", v1alpha1.RangePhaseDraining),
			HaveField("InvalidReason", v1alpha1.RangeInvalidStatusEdited), HaveField("Message", "Never released until the problem in invalidMessage is fixed")))
		Eventually(condition(api, v1alpha1.DegradedCondition)).Should(And(HavePrefix("True InvalidRanges"),
			ContainSubstring(`"pods" (not-a-cidr) is Draining and never released`)))
		Eventually(statusManagers(api)).Should(operatorOnly)

		// With the node gone and NodeIPAM's Draining acknowledgement, a
		// later reconcile still releases nothing.
		deleteNode(api, "holder")
		setRanges(api, framework.Range("other", "10.246.0.0/16").Obj(), framework.Range("late", "10.247.0.0/16").Obj())
		Eventually(api.Phase).WithArguments("late").Should(Equal(v1alpha1.RangePhaseActive))
		Expect(api.Phase("pods")).To(Equal(v1alpha1.RangePhaseDraining))

		// The way out: remove the entry by hand.
		_, err := framework.RemoveStatusRange(suiteCtx, api, "pods")
		Expect(err).NotTo(HaveOccurred())
		Eventually(api.Phase).WithArguments("pods").Should(BeEmpty())
		Eventually(condition(api, v1alpha1.DegradedCondition)).Should(HavePrefix("False AsExpected"))
	})

	It("drains and forgets an entry another client added", func() {
		createPodNetwork(api, pods)
		Eventually(podsAck(api, nodeIPAM)).Should(Equal("Active/Accepted"))
		inSync(api, nodeIPAM)
		_, err := framework.AddStatusRange(suiteCtx, api, v1alpha1.RangeStatus{Name: "handmade", CIDR: "10.250.0.0/16", NodeMaskSize: 24, Phase: v1alpha1.RangePhaseActive})
		Expect(err).NotTo(HaveOccurred())
		Eventually(rangeEvents(api, "StatusEdited", "handmade")).Should(ContainElement(ContainSubstring("is Draining")))
		Eventually(api.Phase).WithArguments("handmade").Should(BeEmpty(), "Draining, then Released and purged once NodeIPAM acknowledged")
		createNode(api, "after")
		Eventually(podCIDRsOf(api, "after")).Should(ConsistOf(inPods()))
	})

	It("recomputes the quarantine, usage and conditions others wrote, and keeps writing its own", func() {
		createPodNetwork(api, pods)
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))
		createNode(api, "n1")
		Eventually(api.Usage).WithArguments("pods").Should(Equal(v1alpha1.NewRangeUsage(256, 1, 255, 0)))

		future := ptr.To(metav1.NewTime(time.Now().Add(1000 * time.Hour)))
		for _, inject := range []func() (string, error){
			func() (string, error) {
				return framework.AddQuarantine(suiteCtx, api, v1alpha1.QuarantinedBlock{CIDR: "not-a-cidr", FreedAt: future},
					v1alpha1.QuarantinedBlock{CIDR: "10.244.7.0/24", FreedAt: future})
			},
			func() (string, error) {
				return framework.EditRange(suiteCtx, api, "pods", func(rs *v1alpha1.RangeStatus) {
					rs.Usage = v1alpha1.NewRangeUsage(1, 1<<40, 1<<40, 0)
				})
			},
			func() (string, error) { return framework.FloodConditions(suiteCtx, api) },
		} {
			what, err := inject()
			Expect(err).NotTo(HaveOccurred())
			GinkgoWriter.Println("edited:", what)
		}
		Eventually(statusManagers(api)).Should(operatorOnly)
		Eventually(func() []v1alpha1.QuarantinedBlock { return api.GetPodNetwork().Status.Quarantine }).Should(BeEmpty())
		Eventually(api.Usage).WithArguments("pods").Should(Equal(v1alpha1.NewRangeUsage(256, 1, 255, 0)))
		Expect(len(api.GetPodNetwork().Status.Conditions)).To(BeNumerically("<=", 16))

		// The status is still the operator's to write.
		setRanges(api, pods, framework.Range("more", "10.245.0.0/16").Obj())
		Eventually(condition(api, v1alpha1.ReadyCondition)).Should(Equal("True AllRangesActive: All 2 ranges are Active"))
		createNode(api, "n2")
		Eventually(podCIDRsOf(api, "n2")).Should(HaveLen(1))
	})

	It("purges a Released range whose entry another client gave usage", func() {
		Expect(api.Create(suiteCtx, framework.Consumer("slow").Obj())).To(Succeed())
		createPodNetwork(api, pods)
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhasePending))
		ack(api, "slow")
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))
		setRanges(api)
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseDraining))
		ack(api, "slow")
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseReleased))
		Eventually(podsAck(api, nodeIPAM)).Should(Equal("Released/Accepted"))
		podsAwaitOnly(api, "slow")

		_, err := framework.EditRange(suiteCtx, api, "pods", func(rs *v1alpha1.RangeStatus) { rs.Usage = v1alpha1.NewRangeUsage(256, 0, 0, 0) })
		Expect(err).NotTo(HaveOccurred())
		Eventually(statusManagers(api)).Should(operatorOnly)
		Eventually(api.RangeStatus).WithArguments("pods").Should(HaveField("Usage", BeZero()), "NodeIPAM reports none for a Released range")
		ack(api, "slow")
		Eventually(api.Phase).WithArguments("pods").Should(BeEmpty())
	})

	It("tracks a spec range whose entry was removed by hand again as Pending", func() {
		Expect(api.Create(suiteCtx, framework.Consumer("slow").Obj())).To(Succeed())
		createPodNetwork(api, pods)
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhasePending))
		ack(api, "slow")
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))
		ack(api, "slow")
		Eventually(podsAck(api, "slow")).Should(Equal("Active/Accepted"))
		createNode(api, "n1")
		Eventually(podCIDRsOf(api, "n1")).Should(HaveLen(1))

		_, err := framework.RemoveStatusRange(suiteCtx, api, "pods")
		Expect(err).NotTo(HaveOccurred())
		// A removal leaves no trace in managedFields: the operator sees a
		// spec range it does not track, as if it had just been added.
		Eventually(notes(api, "PodNetwork", "RangePending")).Should(HaveLen(2))
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhasePending))
		createNode(api, "n2")
		ack(api, "slow")
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(podCIDRsOf(api, "n2")).Should(HaveLen(1))
		Expect(podCIDRsOf(api, "n2")()).NotTo(Equal(podCIDRsOf(api, "n1")()))
	})
})

// NodeIPAM restores the quarantine from status when it starts, the one time
// it reads what it wrote there.
var _ = Describe("A quarantine edited by hand while the operator was down", func() {
	api := k8sClient

	It("is read with distrust at the next start: a block freed in the future is not withheld for ever", func() {
		DeferCleanup(resetCluster, api)
		op := startOperator(suite.ControlPlane.Config)
		createPodNetwork(api, framework.Range("one", "10.244.0.0/24").NodeMaskSize(24).Obj()) // a single block
		Eventually(api.Phase).WithArguments("one").Should(Equal(v1alpha1.RangePhaseActive))
		Expect(op.Stop()).To(Succeed())

		// Believed, the block would wait out its recycle delay (0s) after
		// the year 2999.
		_, err := framework.AddQuarantine(suiteCtx, api,
			v1alpha1.QuarantinedBlock{CIDR: "10.244.0.0/24", FreedAt: ptr.To(metav1.NewTime(time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)))},
			v1alpha1.QuarantinedBlock{CIDR: "not-a-cidr", FreedAt: ptr.To(metav1.NewTime(time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)))})
		Expect(err).NotTo(HaveOccurred())

		startOperator(suite.ControlPlane.Config)
		createNode(api, "n1")
		Eventually(podCIDRsOf(api, "n1")).Should(ConsistOf("10.244.0.0/24"))
		Eventually(statusManagers(api)).Should(operatorOnly)
		Eventually(func() []v1alpha1.QuarantinedBlock { return api.GetPodNetwork().Status.Quarantine }).Should(BeEmpty())
	})
})
