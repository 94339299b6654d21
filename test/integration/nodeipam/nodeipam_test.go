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

package nodeipam_test

import (
	"net/netip"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	pn "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	nodeipamctrl "podnetwork.io/operator/controllers/nodeipam"
	"podnetwork.io/operator/test/framework"
)

// leaderElection makes an operator compete for the Lease with short timings.
func leaderElection(o *controllers.Options) {
	o.LeaderElect = true
	o.LeaderElectionNamespace = leaseNamespace
	o.LeaseDuration, o.RenewDeadline, o.RetryPeriod = 4*time.Second, 3*time.Second, 250*time.Millisecond
}

// withClock gives NodeIPAM a fake clock, so recycle delays pass when the
// spec says so.
func withClock(clk *clocktesting.FakeClock) func(*controllers.Options) {
	return func(o *controllers.Options) { o.NodeIPAM.Clock = clk }
}

// quarantined returns the blocks listed in status.quarantine.
func quarantined() []string {
	var out []string
	for _, q := range k8sClient.GetPodNetwork().Status.Quarantine {
		out = append(out, q.CIDR)
	}
	return out
}

// withPodCIDRs splits names into the nodes that have podCIDRs and the ones
// that do not.
func withPodCIDRs(names []string) (with, without []string) {
	for _, n := range names {
		if len(podCIDRsOf(n)()) > 0 {
			with = append(with, n)
		} else {
			without = append(without, n)
		}
	}
	return with, without
}

func countWithPodCIDRs(names []string) func() int {
	return func() int {
		with, _ := withPodCIDRs(names)
		return len(with)
	}
}

func inside(cidr string) OmegaMatcher {
	r := netip.MustParsePrefix(cidr)
	return WithTransform(func(s string) bool {
		p := netip.MustParsePrefix(s)
		return r.Bits() <= p.Bits() && r.Contains(p.Addr())
	}, BeTrue())
}

var _ = Describe("NodeIPAM", func() {
	BeforeEach(func() {
		DeferCleanup(resetCluster)
	})

	It("gives 200 nodes created at once distinct podCIDRs", func() {
		history := recordRanges()
		startOperator()
		createPodNetwork(0, pn.WhenExhaustedWait, framework.Range("pods", "10.244.0.0/16").NodeMaskSize(24).Obj())

		names := k8sClient.CreateNodes("burst", 200)
		Eventually(allHavePodCIDRs(names)).Should(BeEmpty())
		for _, n := range names {
			Expect(podCIDRsOf(n)()).To(ConsistOf(inside("10.244.0.0/16")))
		}
		expectInvariants(history)
		Eventually(k8sClient.Usage).WithArguments("pods").Should(Equal(pn.NewRangeUsage(256, 200, 56, 0)))
		Eventually(k8sClient.Ack).WithArguments(nodeipamctrl.ConsumerName, "pods").Should(HaveField("Phase", pn.RangePhaseActive))
	})

	It("gives dual-stack nodes both families or nothing, without leaking blocks, with one event per backoff period", func() {
		history := recordRanges()
		startOperator()
		createPodNetwork(0, pn.WhenExhaustedWait,
			framework.Range("v4", "10.250.0.0/22").NodeMaskSize(24).Obj(), // 4 blocks
			framework.Range("v6", "fd00:250::/63").NodeMaskSize(64).Obj()) // 2 blocks
		Eventually(k8sClient.Phase).WithArguments("v4").Should(Equal(pn.RangePhaseActive))
		Eventually(k8sClient.Phase).WithArguments("v6").Should(Equal(pn.RangePhaseActive))

		names := k8sClient.CreateNodes("ds", 3)
		Eventually(countWithPodCIDRs(names)).Should(Equal(2))
		with, without := withPodCIDRs(names)
		for _, n := range with {
			Expect(podCIDRsOf(n)()).To(HaveExactElements(inside("10.250.0.0/22"), inside("fd00:250::/63")))
		}
		waiting := without[0]
		Eventually(cidrNotAvailable(uidOf(waiting))).Should(ConsistOf(
			And(ContainSubstring(`range "v6" (fd00:250::/63): all 2 blocks are allocated`), Not(ContainSubstring("reusable")))))

		// Retries (label changes wake it at once) neither leak IPv4 blocks
		// nor emit more events.
		for range 3 {
			touchNode(waiting)
		}
		Eventually(k8sClient.Usage).WithArguments("v4").Should(Equal(pn.NewRangeUsage(4, 2, 2, 0)))
		Eventually(k8sClient.Usage).WithArguments("v6").Should(Equal(pn.NewRangeUsage(2, 2, 0, 0)))

		// Freeing a dual-stack node lets the waiting one have both families.
		deleteNode(with[0])
		Eventually(podCIDRsOf(waiting)).Should(HaveExactElements(inside("10.250.0.0/22"), inside("fd00:250::/63")))
		Expect(cidrNotAvailable(uidOf(waiting))()).To(HaveLen(1))
		Eventually(k8sClient.Usage).WithArguments("v4").Should(HaveField("Allocated", HaveValue(Equal(int64(2)))))
		expectInvariants(history)
	})

	It("gives waiting nodes blocks from a range added later, once it is Active", func() {
		history := recordRanges()
		startOperator()
		createPodNetwork(0, pn.WhenExhaustedWait, framework.Range("first", "10.251.0.0/23").NodeMaskSize(24).Obj()) // 2 blocks

		names := k8sClient.CreateNodes("wait", 4)
		Eventually(countWithPodCIDRs(names)).Should(Equal(2))
		_, waiting := withPodCIDRs(names)
		for _, n := range waiting {
			Eventually(cidrNotAvailable(uidOf(n))).ShouldNot(BeEmpty())
		}

		addRange(framework.Range("second", "10.252.0.0/24").NodeMaskSize(25).Obj()) // 2 blocks
		Eventually(allHavePodCIDRs(names)).Should(BeEmpty())
		Expect(k8sClient.Phase("second")).To(Equal(pn.RangePhaseActive))
		for _, n := range waiting {
			Expect(podCIDRsOf(n)()).To(ConsistOf(inside("10.252.0.0/24")))
		}
		expectInvariants(history)
	})

	It("selects ranges with real NodeSelector semantics, the most specific first", func() {
		history := recordRanges()
		startOperator()
		gpuOrTPU := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"gpu"}}}},
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"tpu"}}}},
		}}
		createPodNetwork(0, pn.WhenExhaustedWait,
			framework.Range("general", "10.244.0.0/24").NodeMaskSize(26).Obj(),
			framework.Range("accel", "10.245.0.0/24").NodeMaskSize(26).NodeSelector(gpuOrTPU).Obj())

		Expect(k8sClient.Create(suiteCtx, framework.Node("sel-gpu").Labels(map[string]string{"pool": "gpu"}).Obj())).To(Succeed())
		Expect(k8sClient.Create(suiteCtx, framework.Node("sel-tpu").Labels(map[string]string{"pool": "tpu"}).Obj())).To(Succeed())
		Expect(k8sClient.Create(suiteCtx, framework.Node("sel-cpu").Labels(map[string]string{"pool": "cpu"}).Obj())).To(Succeed())
		Eventually(podCIDRsOf("sel-gpu")).Should(ConsistOf(inside("10.245.0.0/24")))
		Eventually(podCIDRsOf("sel-tpu")).Should(ConsistOf(inside("10.245.0.0/24")))
		Eventually(podCIDRsOf("sel-cpu")).Should(ConsistOf(inside("10.244.0.0/24")))
		expectInvariants(history)
	})

	It("reuses the block of a deleted node at once under ReuseOldest, after quarantining it", func() {
		history := recordRanges()
		startOperator()
		createPodNetwork(3600, pn.WhenExhaustedReuseOldest, framework.Range("q", "10.253.0.0/23").NodeMaskSize(24).Obj()) // 2 blocks

		names := k8sClient.CreateNodes("reuse", 2)
		Eventually(allHavePodCIDRs(names)).Should(BeEmpty())
		freed := podCIDRsOf(names[0])()[0]

		// A node being deleted keeps its block: finalizers may hold it, and
		// its pods, for long.
		Eventually(func() error {
			n := &corev1.Node{}
			if err := k8sClient.Get(suiteCtx, client.ObjectKey{Name: names[0]}, n); err != nil {
				return err
			}
			n.Finalizers = append(n.Finalizers, "test.podnetwork.io/hold")
			return k8sClient.Update(suiteCtx, n)
		}).Should(Succeed())
		deleteNode(names[0])
		Expect(k8sClient.Create(suiteCtx, framework.Node("reuse-early").Obj())).To(Succeed())
		Eventually(cidrNotAvailable(uidOf("reuse-early"))).Should(ConsistOf(ContainSubstring("all 2 blocks are allocated")))
		Expect(quarantined()).To(BeEmpty())

		// Gone for real: quarantined, and under ReuseOldest handed out anyway.
		Eventually(func() error {
			n := &corev1.Node{}
			if err := k8sClient.Get(suiteCtx, client.ObjectKey{Name: names[0]}, n); err != nil {
				return err
			}
			n.Finalizers = nil
			return k8sClient.Update(suiteCtx, n)
		}).Should(Succeed())
		Eventually(podCIDRsOf("reuse-early")).Should(Equal([]string{freed}))
		Eventually(k8sClient.Usage).WithArguments("q").Should(Equal(pn.NewRangeUsage(2, 2, 0, 0)))
		Eventually(quarantined).Should(BeEmpty())
		expectInvariants(history)
	})

	It("keeps a freed block quarantined for the recycle delay under Wait, across a restart", func() {
		history := recordRanges()
		clk := clocktesting.NewFakeClock(time.Now().Truncate(time.Second))
		op := startOperator(withClock(clk))
		createPodNetwork(60, pn.WhenExhaustedWait, framework.Range("q", "10.253.0.0/23").NodeMaskSize(24).Obj()) // 2 blocks

		names := k8sClient.CreateNodes("quar", 2)
		Eventually(allHavePodCIDRs(names)).Should(BeEmpty())
		freed := podCIDRsOf(names[0])()[0]
		deleteNode(names[0])
		Eventually(quarantined).Should(Equal([]string{freed}))
		Eventually(k8sClient.Usage).WithArguments("q").Should(Equal(pn.NewRangeUsage(2, 1, 0, 1)))

		// The quarantine lives in the PodNetwork status: a new leader keeps it.
		Expect(op.Stop()).To(Succeed())
		startOperator(withClock(clk))

		Expect(k8sClient.Create(suiteCtx, framework.Node("quar-new").Obj())).To(Succeed())
		Eventually(cidrNotAvailable(uidOf("quar-new"))).Should(ConsistOf(ContainSubstring("NodeIPAM retries in 1m0s, when the first quarantined block becomes reusable")))
		Expect(podCIDRsOf("quar-new")()).To(BeEmpty())

		// Once the delay has passed, the next retry (a label change wakes
		// the node at once) hands the block out.
		clk.Step(61 * time.Second)
		touchNode("quar-new")
		Eventually(podCIDRsOf("quar-new")).Should(Equal([]string{freed}))
		Eventually(quarantined).Should(BeEmpty())
		expectInvariants(history)
	})

	It("rebuilds from the nodes after a restart and never hands out a block twice", func() {
		history := recordRanges()
		op := startOperator()
		createPodNetwork(0, pn.WhenExhaustedWait, framework.Range("r", "10.254.0.0/20").NodeMaskSize(24).Obj()) // 16 blocks
		before := k8sClient.CreateNodes("before", 8)
		Eventually(allHavePodCIDRs(before)).Should(BeEmpty())
		Expect(op.Stop()).To(Succeed())

		between := k8sClient.CreateNodes("between", 4)
		startOperator()
		after := k8sClient.CreateNodes("after", 4)
		all := append(append(before, between...), after...)
		Eventually(allHavePodCIDRs(all)).Should(BeEmpty())
		expectInvariants(history)
		Eventually(k8sClient.Usage).WithArguments("r").Should(Equal(pn.NewRangeUsage(16, 16, 0, 0)))
	})

	It("rebuilds from a LIST of the API server too, when it may not wait for the cache", func() {
		history := recordRanges()
		listing := func(o *controllers.Options) { o.NodeIPAM.RebuildCacheWait = 0 }
		op := startOperator(listing)
		createPodNetwork(0, pn.WhenExhaustedWait, framework.Range("r", "10.254.16.0/20").NodeMaskSize(24).Obj()) // 16 blocks
		before := k8sClient.CreateNodes("listed", 8)
		Eventually(allHavePodCIDRs(before)).Should(BeEmpty())
		Expect(op.Stop()).To(Succeed())

		between := k8sClient.CreateNodes("listed-between", 4)
		startOperator(listing)
		after := k8sClient.CreateNodes("listed-after", 4)
		all := append(append(before, between...), after...)
		Eventually(allHavePodCIDRs(all)).Should(BeEmpty())
		expectInvariants(history)
		Eventually(k8sClient.Usage).WithArguments("r").Should(Equal(pn.NewRangeUsage(16, 16, 0, 0)))
	})

	It("adopts podCIDRs another allocator assigned, whatever their size, and allocates around them", func() {
		history := recordRanges()
		// As kube-controller-manager left them: four /24s and a /23 that
		// covers two blocks of the range.
		kcm := map[string]string{
			"kcm-0": "10.244.0.0/24", "kcm-1": "10.244.1.0/24", "kcm-2": "10.244.2.0/24", "kcm-3": "10.244.3.0/24",
			"kcm-wide": "10.244.6.0/23",
		}
		for name, cidr := range kcm {
			Expect(k8sClient.Create(suiteCtx, framework.Node(name).PodCIDRs(cidr).Obj())).To(Succeed())
		}
		startOperator()
		createPodNetwork(0, pn.WhenExhaustedWait, framework.Range("pods", "10.244.0.0/20").NodeMaskSize(24).Obj()) // 16 blocks

		fresh := k8sClient.CreateNodes("fresh", 10) // 16 - 6 adopted = 10 free
		Eventually(allHavePodCIDRs(fresh)).Should(BeEmpty())
		Eventually(k8sClient.Usage).WithArguments("pods").Should(Equal(pn.NewRangeUsage(16, 16, 0, 0)))
		for name, cidr := range kcm {
			Expect(podCIDRsOf(name)()).To(Equal([]string{cidr}))
		}
		Expect(k8sClient.Create(suiteCtx, framework.Node("fresh-extra").Obj())).To(Succeed())
		Eventually(cidrNotAvailable(uidOf("fresh-extra"))).ShouldNot(BeEmpty())
		expectInvariants(history)
	})

	It("leaves foreign podCIDRs alone and reports the node", func() {
		history := recordRanges()
		Expect(k8sClient.Create(suiteCtx, framework.Node("foreign-0").PodCIDRs("192.168.77.0/24").Obj())).To(Succeed())
		startOperator()
		createPodNetwork(0, pn.WhenExhaustedWait, framework.Range("pods", "10.246.0.0/24").NodeMaskSize(26).Obj())

		names := k8sClient.CreateNodes("native", 2)
		Eventually(allHavePodCIDRs(names)).Should(BeEmpty())
		Eventually(func() []string { return k8sClient.GetPodNetwork().Status.ForeignNodes }).Should(Equal([]string{"foreign-0"}))
		Expect(podCIDRsOf("foreign-0")()).To(Equal([]string{"192.168.77.0/24"}))
		Eventually(k8sClient.Usage).WithArguments("pods").Should(Equal(pn.NewRangeUsage(4, 2, 2, 0)))
		expectInvariants(history)
	})

	It("reports both nodes when another allocator hands out a block NodeIPAM holds", func() {
		startOperator()
		createPodNetwork(0, pn.WhenExhaustedWait, framework.Range("pods", "10.246.0.0/24").NodeMaskSize(26).Obj())
		Expect(k8sClient.Create(suiteCtx, framework.Node("owner").Obj())).To(Succeed())
		Eventually(podCIDRsOf("owner")).ShouldNot(BeEmpty())
		block := podCIDRsOf("owner")()[0]

		Expect(k8sClient.Create(suiteCtx, framework.Node("intruder").PodCIDRs(block).Obj())).To(Succeed())
		Eventually(func() []string { return k8sClient.GetPodNetwork().Status.AllocationConflicts }).Should(ConsistOf(
			"nodes intruder (" + block + ") and owner (" + block + ") have overlapping podCIDRs"))
		Expect(podCIDRsOf("owner")()).To(Equal([]string{block}))

		// The lifecycle writes its part of the status meanwhile (a foreign
		// node appears); it must leave the conflicts to NodeIPAM.
		Expect(k8sClient.Create(suiteCtx, framework.Node("elsewhere").PodCIDRs("192.168.78.0/24").Obj())).To(Succeed())
		Eventually(func() []string { return k8sClient.GetPodNetwork().Status.ForeignNodes }).Should(Equal([]string{"elsewhere"}))

		deleteNode("intruder")
		Eventually(func() []string { return k8sClient.GetPodNetwork().Status.AllocationConflicts }).Should(BeEmpty())
	})

	It("keeps a Draining range until the nodes holding its blocks are deleted", func() {
		history := recordRanges()
		startOperator()
		createPodNetwork(0, pn.WhenExhaustedWait, framework.Range("old", "10.247.0.0/24").NodeMaskSize(26).Obj())
		holders := k8sClient.CreateNodes("holder", 2)
		Eventually(allHavePodCIDRs(holders)).Should(BeEmpty())

		replaceRanges(framework.Range("new", "10.248.0.0/24").NodeMaskSize(26).Obj())
		Eventually(k8sClient.Phase).WithArguments("old").Should(Equal(pn.RangePhaseDraining))
		Eventually(k8sClient.Phase).WithArguments("new").Should(Equal(pn.RangePhaseActive))
		Eventually(k8sClient.Ack).WithArguments(nodeipamctrl.ConsumerName, "old").Should(And(
			HaveField("Phase", pn.RangePhaseDraining), HaveField("Result", pn.AckAccepted)))

		Expect(k8sClient.Create(suiteCtx, framework.Node("newcomer").Obj())).To(Succeed())
		Eventually(podCIDRsOf("newcomer")).Should(ConsistOf(inside("10.248.0.0/24")))

		deleteNode(holders[0])
		Eventually(func() int32 { return k8sClient.RangeStatus("old").HolderCount }).Should(Equal(int32(1)))
		Expect(k8sClient.Phase("old")).To(Equal(pn.RangePhaseDraining))

		deleteNode(holders[1])
		Eventually(k8sClient.Phase).WithArguments("old").Should(Or(Equal(pn.RangePhaseReleased), BeEmpty()))
		expectInvariants(history)
	})

	It("never writes from a replica that is not the leader", func() {
		history := recordRanges()
		leader := startOperator(leaderElection)
		lease := &coordinationv1.Lease{}
		Eventually(func() string {
			if err := k8sClient.Get(suiteCtx, client.ObjectKey{Namespace: leaseNamespace, Name: controllers.LeaderElectionID}, lease); err != nil {
				return ""
			}
			return ptrValue(lease.Spec.HolderIdentity)
		}).ShouldNot(BeEmpty())
		leaderID := ptrValue(lease.Spec.HolderIdentity)

		standby := startOperator(leaderElection)
		createPodNetwork(0, pn.WhenExhaustedWait, framework.Range("pods", "10.249.0.0/24").NodeMaskSize(26).Obj())
		first := k8sClient.CreateNodes("led", 2)
		Eventually(allHavePodCIDRs(first)).Should(BeEmpty())
		Expect(standby.writes.list()).To(BeEmpty())
		Expect(leader.writes.list()).NotTo(BeEmpty())
		Expect(k8sClient.Get(suiteCtx, client.ObjectKey{Namespace: leaseNamespace, Name: controllers.LeaderElectionID}, lease)).To(Succeed())
		Expect(ptrValue(lease.Spec.HolderIdentity)).To(Equal(leaderID))

		// The leader leaves; the standby takes over, rebuilds and allocates
		// around what the first leader assigned.
		Expect(leader.Stop()).To(Succeed())
		second := k8sClient.CreateNodes("took-over", 2)
		Eventually(allHavePodCIDRs(second)).Should(BeEmpty())
		Expect(standby.writes.list()).NotTo(BeEmpty())
		expectInvariants(history)
	})
})

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
