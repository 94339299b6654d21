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

package drain

import (
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// conversion is the fixture in Auto mode during a conversion to
// dual-stack: range v6
// (fd00::/48) Active, for the nodes of pool "a" only when selector is set,
// and familyPolicy policy.
func conversion(handover v1alpha1.DrainHandover, policy v1alpha1.FamilyPolicy, selector bool) *fixture {
	f := newFixture(v1alpha1.DrainAssistAuto, handover)
	f.in.Ranges = append(f.in.Ranges, v1alpha1.RangeStatus{Name: "v6", CIDR: "fd00::/48", Phase: v1alpha1.RangePhaseActive})
	f.in.FamilyPolicy = policy
	v6 := v1alpha1.PodCIDRRange{Name: "v6", CIDR: "fd00::/48"}
	if selector {
		v6.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}
	}
	f.in.Declared = []v1alpha1.PodCIDRRange{{Name: "new", CIDR: "10.2.0.0/16"}, v6}
	return f
}

func dualStack(n *Node) { n.PodCIDRs = append(n.PodCIDRs, netip.MustParsePrefix("fd00:0:0:9::/64")) }

func inPool(pool string) func(*Node) {
	return func(n *Node) { n.Labels = map[string]string{"pool": pool} }
}

func TestSingleStackNodes(t *testing.T) {
	t.Run("under AllOrWait an IPv4-only node is replaced like a holder, and the report says why", func(t *testing.T) {
		g := NewWithT(t)
		f := conversion(v1alpha1.HandoverDelete, v1alpha1.FamilyPolicyAllOrWait, false).
			node("v4only", "10.2.1.0/24", withPods(pod("web"))).
			node("dual", "10.2.2.0/24", dualStack)
		g.Expect(Candidates(f.in)).To(Equal([]string{"v4only"}))
		plan, _ := f.step(nil)
		g.Expect(plan.Total).To(Equal(1))
		g.Expect(starts(plan)).To(Equal([]string{"v4only"}))
		np := nodePlan(plan, "v4only")
		g.Expect(np.Ranges).To(BeEmpty())
		g.Expect(np.Lacks).To(Equal([]Lack{{Family: v1alpha1.IPv6, Range: "v6"}}))
		g.Expect(np.Message).To(Equal("it lacks an IPv6 podCIDR; familyPolicy AllOrWait (Active range v6 selects it); 1 pod to evict"))
		g.Expect(nodePlan(plan, "dual")).To(BeNil())

		_, rep := f.step(allDone(plan))
		l := listed(rep, "v4only")
		g.Expect(l).NotTo(BeNil())
		g.Expect(l.LacksFamilies).To(Equal([]v1alpha1.IPFamily{v1alpha1.IPv6}))
		g.Expect(l.Ranges).To(BeEmpty())
		g.Expect(*rep.Status.Total).To(Equal(int32(1)))
		g.Expect(*rep.Status.Draining).To(Equal(int32(1)), "counted with the holders")
		g.Expect(rep.Events).To(ContainElement(HaveField("Message", ContainSubstring("it lacks an IPv6 podCIDR; familyPolicy AllOrWait"))))
	})

	t.Run("under Independent nothing lacks a family", func(t *testing.T) {
		g := NewWithT(t)
		f := conversion(v1alpha1.HandoverDelete, v1alpha1.FamilyPolicyIndependent, false).
			node("v4only", "10.2.1.0/24")
		plan, rep := f.step(nil)
		g.Expect(plan.Total).To(BeZero())
		g.Expect(rep.Status.Message).To(Equal("No node holds a block in a Draining range"))
	})

	t.Run("only the nodes the IPv6 range selects lack it", func(t *testing.T) {
		g := NewWithT(t)
		f := conversion(v1alpha1.HandoverDelete, v1alpha1.FamilyPolicyAllOrWait, true).
			node("pool-a", "10.2.1.0/24", inPool("a")).
			node("pool-b", "10.2.2.0/24", inPool("b"))
		g.Expect(Decide(f.in).Total).To(Equal(1))
		g.Expect(starts(Decide(f.in))).To(Equal([]string{"pool-a"}))
	})

	t.Run("a node without podCIDRs waits for NodeIPAM, a Draining IPv6 range gives nothing", func(t *testing.T) {
		g := NewWithT(t)
		f := conversion(v1alpha1.HandoverDelete, v1alpha1.FamilyPolicyAllOrWait, false)
		f.in.Nodes = append(f.in.Nodes, Node{Name: "empty", Detail: &Detail{PodsRead: true, KarpenterManaged: true}})
		f.in.Ranges[2].Phase = v1alpha1.RangePhaseDraining
		f.node("v4only", "10.2.1.0/24")
		g.Expect(Decide(f.in).Total).To(BeZero())
	})

	t.Run("a node both holding a Draining block and lacking IPv6 says both", func(t *testing.T) {
		g := NewWithT(t)
		f := conversion(v1alpha1.HandoverCondition, v1alpha1.FamilyPolicyAllOrWait, false).
			node("both", "10.1.1.0/24")
		plan := Decide(f.in)
		np := nodePlan(plan, "both")
		g.Expect(np.Ranges).To(Equal([]string{"old"}))
		g.Expect(np.Lacks).To(HaveLen(1))
		g.Expect(np.Message).To(HavePrefix("it holds a block of Draining range old, and it lacks an IPv6 podCIDR"))
		g.Expect(np.ConditionReason).To(Equal(v1alpha1.PodCIDRRangeDrainingReason))
	})

	t.Run("with the handover Condition, the condition names the family", func(t *testing.T) {
		g := NewWithT(t)
		f := conversion(v1alpha1.HandoverCondition, v1alpha1.FamilyPolicyAllOrWait, false).
			node("v4only", "10.2.1.0/24")
		np := nodePlan(Decide(f.in), "v4only")
		g.Expect(np.Steps).To(Equal([]Step{StepStart, StepHandOver}))
		g.Expect(np.ConditionReason).To(Equal(v1alpha1.PodCIDRFamilyMissingReason))
		g.Expect(np.ConditionMessage).To(ContainSubstring("lacks an IPv6 podCIDR (Active range v6 selects the node)"))
	})

	t.Run("a started IPv4-only node is driven on, not let go of", func(t *testing.T) {
		g := NewWithT(t)
		f := conversion(v1alpha1.HandoverDelete, v1alpha1.FamilyPolicyAllOrWait, false).
			node("v4only", "10.2.1.0/24", started(t0), withPods(pod("web")))
		np := nodePlan(Decide(f.in), "v4only")
		g.Expect(np.Steps).To(Equal([]Step{StepEvict}))
		g.Expect(np.State).To(Equal(v1alpha1.DrainNodeDraining))
	})

	t.Run("a started node is let go of when familyPolicy goes back to Independent", func(t *testing.T) {
		g := NewWithT(t)
		f := conversion(v1alpha1.HandoverDelete, v1alpha1.FamilyPolicyIndependent, false).
			node("v4only", "10.2.1.0/24", started(t0))
		np := nodePlan(Decide(f.in), "v4only")
		g.Expect(np.Steps).To(Equal([]Step{StepRelease}))
	})

	t.Run("maxUnavailable holds over holders and single-stack nodes together", func(t *testing.T) {
		g := NewWithT(t)
		f := conversion(v1alpha1.HandoverDelete, v1alpha1.FamilyPolicyAllOrWait, false).
			holders(2).node("v4only", "10.2.1.0/24").node("v4only-2", "10.2.3.0/24", started(t0))
		plan := Decide(f.in)
		g.Expect(plan.Total).To(Equal(4))
		g.Expect(plan.MaxUnavailable).To(Equal(1))
		g.Expect(starts(plan)).To(BeEmpty(), "one started already")
	})
}
