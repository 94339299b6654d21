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

package autoscale_test

import (
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/test/framework"
)

// kubeProxyCovering returns the clusterCIDR kube-proxy's adapter would
// write for a PodNetwork (its pure planner), and the desired ranges.
func kubeProxyCovering(pn *v1alpha1.PodNetwork) (netip.Prefix, []netip.Prefix) {
	d := adapters.Decide(adapters.Input{PodNetwork: pn, Limits: adapters.DefaultLimits}, kubeproxy.Rules)
	var desired []netip.Prefix
	for _, rs := range v1alpha1.DesiredRanges(pn) {
		desired = append(desired, netip.MustParsePrefix(rs.CIDR))
	}
	return d.Covering["IPv4"], desired
}

var _ = Describe("Autoscaling", func() {
	BeforeEach(func() {
		DeferCleanup(resetCluster)
	})

	It("grows the pool by expansion as nodes arrive, each range Active with both consumers' acks, kube-proxy's clusterCIDR never wider than a range", func() {
		history := recordHistory()
		consumers{names: []string{"cni", "proxy"}, delay: time.Second}.start()
		startOperator()
		// The admin's 8 blocks (/25 of /28s) inside a pool of 256.
		Expect(k8sClient.Create(suiteCtx, network(autoPool("10.70.0.0/20", 24, 30),
			framework.Range("pods", "10.70.0.0/25").NodeMaskSize(28).Obj()))).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))

		names := createNodesAtRate("steady", 60, 4)
		Eventually(withoutPodCIDRs(names)).Should(BeEmpty())
		Expect(insideAll("10.70.0.0/20")()).To(BeEmpty())

		// One autoscaled range is left, a supernet of the admin's, Active;
		// the ranges it expanded were consolidated away.
		Eventually(func() []string {
			held := autoscaled()
			if len(held) != 1 || k8sClient.Phase(rangeName(held[0])) != v1alpha1.RangePhaseActive {
				return append(held, "not settled")
			}
			return held
		}).Should(HaveExactElements(MatchRegexp(`^p-\d+=10\.70\.0\.0/(2[0-4])$`)))
		Eventually(poolState).Should(Equal(v1alpha1.PoolSteady))
		pn := k8sClient.GetPodNetwork()
		Expect(pn.Spec.Ranges).To(HaveExactElements(framework.Range("pods", "10.70.0.0/25").NodeMaskSize(28).Obj()), "the admin's range is untouched")
		Expect(pn.Status.FindRange("pods")).To(HaveField("Phase", v1alpha1.RangePhaseActive))
		Expect(pn.Status.Summary.AutoscaledRanges).To(Equal(int32(1)))

		// Every range the pool added went Pending -> Active (both consumers
		// acknowledged Pending: the lifecycle waits for every required
		// one), and grew by expansion only.
		added := poolRangeNames(history)
		Expect(len(added)).To(BeNumerically(">=", 2), "60 nodes need more than one doubling of 8 blocks")
		for name, phases := range phasesSeen(history) {
			if slices.Contains(added, name) {
				Expect(phases[0]).To(Equal(v1alpha1.RangePhasePending), "range %s: %v", name, phases)
				Expect(phases).To(ContainElement(v1alpha1.RangePhaseActive), "range %s: %v", name, phases)
			}
		}
		for _, ev := range events(v1alpha1.RangeAutoscaledEvent) {
			Expect(ev.Action).To(Equal("Expand"), ev.Note)
		}
		for _, c := range []string{"cni", "proxy"} {
			Expect(k8sClient.Consumer(c).Status.Ranges).To(ContainElement(And(
				HaveField("Name", MatchRegexp(`^p-\d+$`)), HaveField("Phase", v1alpha1.RangePhaseActive))))
		}

		// kube-proxy's clusterCIDR, at every recorded state, is one of the
		// desired ranges itself: expansion never widens it over addresses
		// that are not pod addresses.
		for _, ev := range history.Events() {
			if pn, ok := ev.Object.(*v1alpha1.PodNetwork); ok {
				covering, desired := kubeProxyCovering(pn)
				if len(desired) > 0 {
					Expect(desired).To(ContainElement(covering), "clusterCIDR %s for ranges %v", covering, desired)
				}
			}
		}
		expectInvariants(history)
	})

	It("says when the pool has no room left, with a condition and one event", func() {
		consumers{names: []string{"cni"}}.start()
		startOperator()
		p := autoPool("10.71.0.0/24", 24, 30)
		p.GrowBy = v1alpha1.GrowByExpand
		Expect(k8sClient.Create(suiteCtx, network(p, framework.Range("pods", "10.71.0.0/25").NodeMaskSize(28).Obj()))).To(Succeed())

		names := k8sClient.CreateNodes("full", 20)
		// The pool expands once, to its whole /24 (16 blocks); 4 nodes wait.
		Eventually(withoutPodCIDRs(names)).Should(HaveLen(4))
		Eventually(poolCondition).WithArguments(v1alpha1.PoolExhaustedCondition).Should(And(
			HaveField("Status", BeEquivalentTo("True")), HaveField("Reason", v1alpha1.PoolExhaustedReason)))
		Expect(poolState()).To(Equal(v1alpha1.PoolExhausted))
		Eventually(func() int { return len(events(v1alpha1.PoolExhaustedEvent)) }).Should(Equal(1))
		Expect(events(v1alpha1.PoolExhaustedEvent)[0].Type).To(Equal("Warning"))
		Expect(autoscaled()).To(HaveExactElements(MatchRegexp(`^p-\d+=10\.71\.0\.0/24$`)))
		Consistently(func() int { return len(events(v1alpha1.PoolExhaustedEvent)) }, "2s").Should(Equal(1), "announced once")
	})

	It("stops growing when a required consumer rejects the range it added, without a loop", func() {
		var reject atomic.Bool
		reject.Store(true)
		consumers{names: []string{"cni", "proxy"}, reject: func(rs v1alpha1.RangeStatus) string {
			if reject.Load() && rs.Name != "pods" {
				return "cannot route " + rs.CIDR
			}
			return ""
		}}.start()
		startOperator()
		Expect(k8sClient.Create(suiteCtx, network(autoPool("10.72.0.0/20", 24, 30),
			framework.Range("pods", "10.72.0.0/25").NodeMaskSize(28).Obj()))).To(Succeed())

		names := k8sClient.CreateNodes("rej", 8)
		Eventually(withoutPodCIDRs(names)).Should(BeEmpty())
		Eventually(poolState).Should(Equal(v1alpha1.PoolBlocked))
		Expect(poolCondition(v1alpha1.PoolBlockedCondition)).To(And(
			HaveField("Reason", v1alpha1.AutoscaledRangeRejectedReason), HaveField("Message", ContainSubstring("cannot route"))))
		held := autoscaled()
		Expect(held).To(HaveLen(1))
		Eventually(func() []string { return k8sClient.EventReasons("PodNetwork") }).Should(ContainElement("Warning/" + v1alpha1.PoolBlockedEvent))

		// No loop: the rejected range stays, alone, and nothing is added or
		// removed while the rejection holds.
		Consistently(autoscaled, "3s").Should(Equal(held))
		Expect(events(v1alpha1.RangeAutoscaledEvent)).To(HaveLen(1))
		Expect(events(v1alpha1.AutoscaledRangeRemovedEvent)).To(BeEmpty())
		Expect(k8sClient.Phase(rangeName(held[0]))).To(Equal(v1alpha1.RangePhasePending))

		// The consumer accepts it: the range becomes Active and the pool
		// moves again.
		reject.Store(false)
		Eventually(k8sClient.Phase).WithArguments(rangeName(held[0])).Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(poolState).ShouldNot(Equal(v1alpha1.PoolBlocked))
	})

	It("gives back an autoscaled range that stays empty, never the admin's", func() {
		history := recordHistory()
		consumers{names: []string{"cni"}}.start()
		startOperator()
		p := autoPool("10.73.0.0/20", 25, 0)
		p.GrowBy = v1alpha1.GrowByAdd
		p.Grow = v1alpha1.GrowThreshold{FreeBlocksBelow: 3}
		p.Shrink = v1alpha1.ShrinkPolicy{FreeBlocksAbove: 6, IdleSeconds: new(int32)}
		Expect(k8sClient.Create(suiteCtx, network(p, framework.Range("pods", "10.73.0.0/25").NodeMaskSize(28).Obj()))).To(Succeed())

		// 6 of the admin's 8 blocks taken: fewer than 3 free, the pool adds
		// a /25 (8 more).
		names := k8sClient.CreateNodes("shrink", 6)
		Eventually(withoutPodCIDRs(names)).Should(BeEmpty())
		Eventually(autoscaled).Should(HaveExactElements("p-1=10.73.0.128/25"))
		Eventually(k8sClient.Phase).WithArguments("p-1").Should(Equal(v1alpha1.RangePhaseActive))
		// It stays while the admin's range alone would have fewer than 6
		// free blocks.
		Consistently(autoscaled, "2s").Should(HaveExactElements("p-1=10.73.0.128/25"))

		// The nodes leave: without p-1, 8 blocks are free.
		deleteNodes(names)
		Eventually(autoscaled).Should(BeEmpty())
		Eventually(k8sClient.Phase).WithArguments("p-1").Should(BeEmpty(), "drained, released and purged")
		Expect(events(v1alpha1.AutoscaledRangeRemovedEvent)).To(HaveLen(1))
		Expect(k8sClient.Phase("pods")).To(Equal(v1alpha1.RangePhaseActive))
		Expect(phasesSeen(history)["p-1"]).To(Equal([]v1alpha1.RangePhase{
			v1alpha1.RangePhasePending, v1alpha1.RangePhaseActive, v1alpha1.RangePhaseDraining, v1alpha1.RangePhaseReleased}))
		// Hysteresis: nothing is added back.
		Consistently(autoscaled, "2s").Should(BeEmpty())
		expectInvariants(history)
	})

	It("keeps the range it is adding, without a duplicate, across an operator restart", func() {
		history := recordHistory()
		var hold atomic.Bool
		hold.Store(true)
		consumers{names: []string{"cni", "proxy"}, hold: func(rs v1alpha1.RangeStatus) bool {
			return hold.Load() && rs.Name != "pods"
		}}.start()
		op := startOperator()
		Expect(k8sClient.Create(suiteCtx, network(autoPool("10.76.0.0/20", 24, 30),
			framework.Range("pods", "10.76.0.0/25").NodeMaskSize(28).Obj()))).To(Succeed())

		names := k8sClient.CreateNodes("restart", 8)
		Eventually(withoutPodCIDRs(names)).Should(BeEmpty())
		Eventually(autoscaled).Should(HaveLen(1))
		held := autoscaled()
		first := rangeName(held[0])
		Eventually(k8sClient.Phase).WithArguments(first).Should(Equal(v1alpha1.RangePhasePending))

		// Restart in the middle of the step: the range is added, not Active.
		Expect(op.Stop()).To(Succeed())
		startOperator()
		Consistently(autoscaled, "3s").Should(Equal(held))
		Expect(poolState()).To(Equal(v1alpha1.PoolGrowing))

		hold.Store(false)
		Eventually(func() []v1alpha1.RangePhase { return phasesSeen(history)[first] }).Should(ContainElement(v1alpha1.RangePhaseActive))
		// Until it was Active, across both operators, the set never held a
		// second range (the burst of 8 nodes may make the pool grow again
		// afterwards: it reads as an arrival rate for a few seconds).
		activeAt := int64(0)
		for _, ev := range history.Events() {
			if pn, ok := ev.Object.(*v1alpha1.PodNetwork); ok && activeAt == 0 {
				if rs := pn.Status.FindRange(first); rs != nil && rs.Phase == v1alpha1.RangePhaseActive {
					activeAt = ev.RV
				}
			}
		}
		for _, ev := range history.Events() {
			if set, ok := ev.Object.(*v1alpha1.AutoscaledRangeSet); ok && ev.RV < activeAt {
				Expect(set.Spec.Ranges).To(HaveLen(1), "set at resourceVersion %d, before %s was Active", ev.RV, first)
			}
		}
	})

	It("keeps the ranges it added through the admin's client-side apply, server-side apply and replace, and never writes the admin's ranges", func() {
		history := recordHistory()
		consumers{names: []string{"cni"}}.start()
		startOperator()
		admin := newAdmin()
		// A pool for zone-a nodes, which no range of the admin serves: it
		// adds its first range at once, then holds it, idle and Active.
		p := autoPool("10.74.0.0/20", 24, 30)
		p.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}
		mine := network(p, framework.Range("pods", "10.75.0.0/24").NodeMaskSize(28).Obj())
		withExtra := mine.DeepCopy()
		withExtra.Spec.Ranges = append(withExtra.Spec.Ranges, framework.Range("extra", "10.75.1.0/24").NodeMaskSize(28).Obj())

		admin.applyClientSide(mine)
		Eventually(autoscaled).Should(HaveLen(1))
		held := autoscaled()
		name := rangeName(held[0])
		Eventually(k8sClient.Phase).WithArguments(name).Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(poolState).Should(Equal(v1alpha1.PoolSteady))

		specNames := func() []string {
			var out []string
			for _, r := range k8sClient.GetPodNetwork().Spec.Ranges {
				out = append(out, r.Name)
			}
			return out
		}
		untouched := func(want ...string) {
			GinkgoHelper()
			Eventually(specNames).Should(Equal(want), "the admin's write took effect")
			Consistently(func() []string {
				return append(autoscaled(), string(k8sClient.Phase(name)))
			}, "2s").Should(Equal(append(slices.Clone(held), string(v1alpha1.RangePhaseActive))), "the autoscaled range stays declared and Active")
		}
		By("client-side apply adding a range")
		admin.applyClientSide(withExtra)
		untouched("pods", "extra")
		By("client-side apply removing it: the manifest's list replaces spec.ranges wholesale")
		admin.applyClientSide(mine)
		untouched("pods")
		By("server-side apply under a GitOps tool's field manager")
		admin.applyServerSide(withExtra)
		untouched("pods", "extra")
		By("replace of the whole object")
		admin.replace(mine)
		untouched("pods")

		// Through it all the autoscaled range never left Active, and every
		// recorded spec.ranges is one the admin wrote: the operator never
		// wrote the admin's ranges.
		Expect(phasesSeen(history)[name]).To(Equal([]v1alpha1.RangePhase{v1alpha1.RangePhasePending, v1alpha1.RangePhaseActive}))
		for _, ev := range history.Events() {
			if pn, ok := ev.Object.(*v1alpha1.PodNetwork); ok {
				Expect(pn.Spec.Ranges).To(Or(Equal(mine.Spec.Ranges), Equal(withExtra.Spec.Ranges)), "spec at resourceVersion %d", ev.RV)
			}
		}
		Expect(k8sClient.GetPodNetwork().Status.FindRange(name).Pool).To(Equal(poolName))
		if out := admin.getWide(); out != "" {
			// What the admin sees: the autoscaled range counted, and each
			// pool's state.
			Expect(out).To(And(ContainSubstring("AUTOSCALED"), ContainSubstring("AUTOSCALING"), MatchRegexp(`\s1\s+p Steady`)))
		}
	})
})
