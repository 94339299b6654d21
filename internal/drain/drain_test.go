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
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

const (
	auto      = v1alpha1.DrainAssistAuto
	recommend = v1alpha1.DrainAssistRecommend
	del       = v1alpha1.HandoverDelete
	cond      = v1alpha1.HandoverCondition
)

func TestStarts(t *testing.T) {
	tests := []struct {
		name       string
		f          *fixture
		want       []string
		candidates []string
	}{
		{name: "off starts nothing", f: newFixture(v1alpha1.DrainAssistOff, del).holders(3)},
		{name: "one at a time by default, by name", f: newFixture(auto, del).holders(3), want: []string{"n-0"}, candidates: []string{"n-0", "n-1", "n-2"}},
		{name: "a number", f: newFixture(auto, del).holders(4).maxUnavailable(intstr.FromInt32(3)), want: []string{"n-0", "n-1", "n-2"}, candidates: []string{"n-0", "n-1", "n-2", "n-3"}},
		{name: "a percentage rounds down", f: newFixture(auto, del).holders(4).maxUnavailable(intstr.FromString("75%")), want: []string{"n-0", "n-1", "n-2"}, candidates: []string{"n-0", "n-1", "n-2", "n-3"}},
		{name: "a percentage is at least one node", f: newFixture(auto, del).holders(3).maxUnavailable(intstr.FromString("10%")), want: []string{"n-0"}, candidates: []string{"n-0", "n-1", "n-2"}},
		{
			name: "a started node takes the slot",
			f:    newFixture(auto, del).holders(1, started(t0)).node("n-1", "10.1.1.0/24").node("n-2", "10.1.2.0/24"),
		},
		{
			name: "a holder someone else deletes takes a slot",
			f:    newFixture(auto, del).holders(1, deleting).node("n-1", "10.1.1.0/24").maxUnavailable(intstr.FromInt32(2)),
			want: []string{"n-1"}, candidates: []string{"n-1"},
		},
		{
			name: "a started node that no longer holds a Draining block still takes its slot until released",
			f:    newFixture(auto, del).node("gone", "10.2.0.0/24", started(t0)).holders(2),
		},
		{
			name:       "skipped nodes do not take a slot",
			f:          newFixture(auto, del).holders(1, nodeDoNotDisrupt(v1alpha1.DoNotDisruptAnnotation)).node("n-1", "10.1.1.0/24").node("n-2", "10.1.2.0/24"),
			want:       []string{"n-1"},
			candidates: []string{"n-0", "n-1", "n-2"},
		},
		{
			name: "nodes not read wait",
			f:    newFixture(auto, del).holders(2, unread),
			// Candidates names them for the controller to read.
			candidates: []string{"n-0", "n-1"},
		},
		{
			name: "a node inside an Active supernet holds nothing",
			f: func() *fixture {
				f := newFixture(auto, del).holders(1)
				f.in.Ranges = append(f.in.Ranges, v1alpha1.RangeStatus{Name: "super", CIDR: "10.0.0.0/8", Phase: v1alpha1.RangePhaseActive})
				return f
			}(),
		},
		{
			name: "an invalid Draining range is never released: its nodes are left alone",
			f: func() *fixture {
				f := newFixture(auto, del).holders(1)
				f.in.Ranges[0].InvalidReason = v1alpha1.RangeInvalidStatusEdited
				return f
			}(),
		},
		{
			name: "a node whose podCIDR cannot be read is never started",
			f:    newFixture(auto, del).holders(1, func(n *Node) { n.Unreadable = true }),
		},
		{name: "nothing while the PodNetwork is being deleted", f: func() *fixture { f := newFixture(auto, del).holders(2); f.in.Deleting = true; return f }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			p := Decide(tt.f.in)
			g.Expect(starts(p)).To(Equal(tt.want))
			g.Expect(Candidates(tt.f.in)).To(Equal(tt.candidates))
			if len(starts(p)) > 0 {
				g.Expect(p.Busy).To(BeNumerically("<=", p.MaxUnavailable))
			}
		})
	}
}

func TestEvictions(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, del).holders(1, started(t0), withPods(
		pod("web"), daemonSetPod("proxy"), mirrorPod("etcd"), finishedPod("job"), terminatingPod("old")))
	p := Decide(f.in)
	np := nodePlan(p, "n-0")
	g.Expect(np.Steps).To(Equal([]Step{StepEvict}))
	g.Expect(np.Evict).To(Equal([]Pod{pod("web")}), "never DaemonSet, mirror, finished or terminating pods")
	g.Expect(np.PodsLeft).To(Equal(2), "web and the terminating one")

	rep := Summarize(f.in, p, allDone(p))
	s := listed(rep, "n-0")
	g.Expect(s.State).To(Equal(v1alpha1.DrainNodeDraining))
	g.Expect(s.Reason).To(Equal(v1alpha1.DrainReasonPodsTerminating))
	g.Expect(*s.PodsLeft).To(Equal(int32(2)))
}

func TestStartEvictsAtOnce(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, del).holders(1, withPods(pod("web"), daemonSetPod("proxy")))
	p, _ := f.step(nil)
	np := nodePlan(p, "n-0")
	g.Expect(np.Steps).To(Equal([]Step{StepStart, StepEvict}))
	g.Expect(np.Cordon).To(BeTrue())
	_, rep := f.step(allDone(p))
	g.Expect(reasons(rep.Events)).To(ContainElement("n-0/" + v1alpha1.DrainStartedEvent))
	g.Expect(listed(rep, "n-0").StartTime.Time).To(Equal(t0))

	// Already cordoned by the admin: drain assist does not cordon it, and
	// will not uncordon it.
	f = newFixture(auto, del).holders(1, unschedulable)
	p, _ = f.step(nil)
	g.Expect(nodePlan(p, "n-0").Cordon).To(BeFalse())
	g.Expect(nodePlan(p, "n-0").Steps).To(Equal([]Step{StepStart, StepHandOver}), "nothing to evict: handed over at once")
}

func TestStartFailed(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, del).holders(2)
	p := Decide(f.in)
	rep := Summarize(f.in, p, map[string]NodeResult{"n-0": {StartError: "conflict"}})
	g.Expect(rep.Status.Nodes).To(BeEmpty())
	g.Expect(*rep.Status.Waiting).To(Equal(int32(2)))
	g.Expect(rep.Events).To(BeEmpty())
}

func TestDoNotDisrupt(t *testing.T) {
	tests := []struct {
		name       string
		f          *fixture
		wantState  v1alpha1.DrainNodeState
		wantReason v1alpha1.DrainNodeReason
		wantSteps  []Step
	}{
		{
			name: "a node annotated podnetwork.io/do-not-disrupt is skipped", f: newFixture(auto, del).holders(1, nodeDoNotDisrupt(v1alpha1.DoNotDisruptAnnotation)),
			wantState: v1alpha1.DrainNodeSkipped, wantReason: v1alpha1.DrainReasonNodeDoNotDisrupt,
		},
		{
			name: "a node annotated karpenter.sh/do-not-disrupt is skipped", f: newFixture(auto, del).holders(1, nodeDoNotDisrupt(v1alpha1.KarpenterDoNotDisruptAnnotation)),
			wantState: v1alpha1.DrainNodeSkipped, wantReason: v1alpha1.DrainReasonNodeDoNotDisrupt,
		},
		{
			name: "a node with a do-not-disrupt pod is skipped", f: newFixture(auto, del).holders(1, withPods(pod("a"), doNotDisruptPod("b"))),
			wantState: v1alpha1.DrainNodeSkipped, wantReason: v1alpha1.DrainReasonPodDoNotDisrupt,
		},
		{
			name: "a terminating do-not-disrupt pod does not count", f: newFixture(auto, del).holders(1, withPods(func() Pod { p := doNotDisruptPod("b"); p.Terminating = true; return p }())),
			wantState: "", wantSteps: []Step{StepStart},
		},
		{
			name: "a started node annotated do-not-disrupt is released", f: newFixture(auto, del).holders(1, started(t0), nodeDoNotDisrupt(v1alpha1.DoNotDisruptAnnotation), withPods(pod("a"))),
			wantState: v1alpha1.DrainNodeSkipped, wantReason: v1alpha1.DrainReasonNodeDoNotDisrupt, wantSteps: []Step{StepRelease},
		},
		{
			name: "a started node whose pod asks not to be disrupted is released", f: newFixture(auto, del).holders(1, started(t0), withPods(pod("a"), doNotDisruptPod("b"))),
			wantState: v1alpha1.DrainNodeSkipped, wantReason: v1alpha1.DrainReasonPodDoNotDisrupt, wantSteps: []Step{StepRelease},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			p := Decide(tt.f.in)
			np := nodePlan(p, "n-0")
			g.Expect(np).NotTo(BeNil())
			g.Expect(np.State).To(Equal(tt.wantState))
			g.Expect(np.Reason).To(Equal(tt.wantReason))
			if tt.wantSteps != nil {
				g.Expect(np.Steps[:len(tt.wantSteps)]).To(Equal(tt.wantSteps))
			} else {
				g.Expect(np.Steps).To(BeEmpty())
			}
			if np.Has(StepRelease) {
				g.Expect(np.Uncordon).To(BeTrue(), "drain assist cordoned it, so it uncordons it")
				g.Expect(np.Evict).To(BeEmpty(), "a pod that asks not to be disrupted is never evicted")
			}
		})
	}
}

func TestSkipsAreAnnouncedOnce(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, del).holders(1, nodeDoNotDisrupt(v1alpha1.DoNotDisruptAnnotation))
	_, rep := f.step(nil)
	g.Expect(reasons(rep.Events)).To(ConsistOf("n-0/"+v1alpha1.DrainSkippedEvent, "/"+v1alpha1.DrainAssistBlockedEvent))
	cond := meta.FindStatusCondition(rep.Status.Conditions, v1alpha1.DrainAssistCompleteCondition)
	g.Expect(cond.Reason).To(Equal(v1alpha1.NodesBlockedReason))
	g.Expect(cond.Message).To(ContainSubstring("n-0 (NodeDoNotDisrupt: The node is annotated podnetwork.io/do-not-disrupt)"))

	_, again := f.previous(rep.Status).step(nil)
	g.Expect(again.Events).To(BeEmpty())
	g.Expect(again.Status).To(Equal(rep.Status))

	// Not read again (no free slot), the report stands, and the node is
	// looked at last.
	f.node("n-1", "10.1.1.0/24", started(t0), withPods(pod("a")))
	f.in.Nodes[0].Detail = nil
	_, kept := f.step(nil)
	g.Expect(listed(kept, "n-0").State).To(Equal(v1alpha1.DrainNodeSkipped))
	g.Expect(reasons(kept.Events)).NotTo(ContainElement("n-0/" + v1alpha1.DrainSkippedEvent))

	f = newFixture(auto, del).holders(3).previous(rep.Status)
	g.Expect(Candidates(f.in)).To(Equal([]string{"n-1", "n-2", "n-0"}))
}

func TestHandover(t *testing.T) {
	t.Run("Delete", func(t *testing.T) {
		g := NewWithT(t)
		f := newFixture(auto, del).holders(1, started(t0), withPods(daemonSetPod("proxy")))
		p, _ := f.step(nil)
		g.Expect(nodePlan(p, "n-0").Steps).To(Equal([]Step{StepHandOver}))
		_, rep := f.step(allDone(p))
		s := listed(rep, "n-0")
		g.Expect(s.State).To(Equal(v1alpha1.DrainNodeHandedOver))
		g.Expect(s.Reason).To(Equal(v1alpha1.DrainReasonDeleted))
		g.Expect(reasons(rep.Events)).To(ContainElement("n-0/" + v1alpha1.NodeHandedOverEvent))
		cond := meta.FindStatusCondition(rep.Status.Conditions, v1alpha1.DrainAssistCompleteCondition)
		g.Expect(cond.Reason).To(Equal(v1alpha1.AwaitingReplacementReason))
	})
	t.Run("Delete refuses a node Karpenter does not manage", func(t *testing.T) {
		g := NewWithT(t)
		f := newFixture(auto, del).holders(1, notKarpenter).node("n-1", "10.1.1.0/24", started(t0), notKarpenter)
		p, rep := f.step(nil)
		g.Expect(nodePlan(p, "n-0").State).To(Equal(v1alpha1.DrainNodeSkipped))
		g.Expect(nodePlan(p, "n-0").Reason).To(Equal(v1alpha1.DrainReasonNotKarpenterManaged))
		g.Expect(nodePlan(p, "n-1").Steps).To(BeEmpty())
		g.Expect(listed(rep, "n-1").State).To(Equal(v1alpha1.DrainNodeBlocked))
		g.Expect(listed(rep, "n-1").Reason).To(Equal(v1alpha1.DrainReasonNotKarpenterManaged))
		g.Expect(reasons(rep.Events)).To(ContainElements("n-0/"+v1alpha1.DrainSkippedEvent, "n-1/"+v1alpha1.DrainBlockedEvent))
	})
	t.Run("Condition, naming the range", func(t *testing.T) {
		g := NewWithT(t)
		f := newFixture(auto, cond).holders(1, started(t0), notKarpenter)
		p, _ := f.step(nil)
		np := nodePlan(p, "n-0")
		g.Expect(np.Steps).To(Equal([]Step{StepHandOver}))
		g.Expect(np.ConditionMessage).To(ContainSubstring("Draining range old (10.1.0.0/16)"))
		_, rep := f.step(allDone(p))
		g.Expect(listed(rep, "n-0").Reason).To(Equal(v1alpha1.DrainReasonReplacementRequested))
	})
	t.Run("a handed-over node keeps its slot until it is gone", func(t *testing.T) {
		g := NewWithT(t)
		f := newFixture(auto, cond).holders(1, started(t0), replacementRequested(t0)).node("n-1", "10.1.1.0/24")
		p, rep := f.step(nil)
		g.Expect(starts(p)).To(BeEmpty())
		g.Expect(listed(rep, "n-0").State).To(Equal(v1alpha1.DrainNodeHandedOver))
		g.Expect(nodePlan(p, "n-0").Steps).To(BeEmpty())
	})
	t.Run("a handover that failed is retried", func(t *testing.T) {
		g := NewWithT(t)
		f := newFixture(auto, del).holders(1, started(t0))
		p := Decide(f.in)
		rep := Summarize(f.in, p, map[string]NodeResult{"n-0": {HandOverError: "boom"}})
		g.Expect(listed(rep, "n-0").State).To(Equal(v1alpha1.DrainNodeDraining))
		g.Expect(listed(rep, "n-0").Message).To(ContainSubstring("handing it over failed: boom"))
	})
}

func TestEvictionBlocked(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, del).holders(1, started(t0), withPods(pod("db-0"), pod("web"))).node("n-1", "10.1.1.0/24").node("n-2", "10.1.2.0/24")
	p := Decide(f.in)
	res := map[string]NodeResult{"n-0": {Evictions: []Eviction{
		{Pod: pod("db-0"), Outcome: Blocked, PDB: "app/db"},
		{Pod: pod("web"), Outcome: Evicted},
	}}}
	rep := Summarize(f.in, p, res)
	s := listed(rep, "n-0")
	g.Expect(s.State).To(Equal(v1alpha1.DrainNodeDraining), "a PodDisruptionBudget is waited for: retried, not blocked")
	g.Expect(s.Reason).To(Equal(v1alpha1.DrainReasonEvictionBlocked))
	g.Expect(s.Message).To(Equal("PodDisruptionBudget app/db allows no disruption of pod app/db-0 now; retrying"))
	g.Expect(reasons(rep.Events)).To(Equal([]string{"n-0/" + v1alpha1.EvictionBlockedEvent}))
	g.Expect(rep.RequeueAfter).To(Equal(10 * time.Second))

	// The same answer again: no new event.
	again := Summarize(f.previous(rep.Status).in, p, res)
	g.Expect(again.Events).To(BeEmpty())

	// Past the timeout: Blocked, announced once, the budget still named.
	f.in.Now = t0.Add(31 * time.Minute)
	late := Summarize(f.in, Decide(f.in), res)
	s = listed(late, "n-0")
	g.Expect(s.State).To(Equal(v1alpha1.DrainNodeBlocked))
	g.Expect(s.Reason).To(Equal(v1alpha1.DrainReasonEvictionBlocked))
	g.Expect(s.Message).To(Equal("Not drained within 30m0s of being cordoned at 2026-05-01T12:00:00Z: PodDisruptionBudget app/db allows no disruption of pod app/db-0 now; retrying"))
	g.Expect(reasons(late.Events)).To(ConsistOf("n-0/"+v1alpha1.DrainBlockedEvent, "/"+v1alpha1.DrainAssistBlockedEvent))
	cond := meta.FindStatusCondition(late.Status.Conditions, v1alpha1.DrainAssistCompleteCondition)
	g.Expect(cond.Reason).To(Equal(v1alpha1.NodesBlockedReason))
	g.Expect(nodePlan(Decide(f.in), "n-0").Steps).To(Equal([]Step{StepEvict}), "evictions are still retried: nothing is forced")
}

func TestTimeouts(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, cond).holders(1, started(t0), withPods(terminatingPod("slow")))
	f.in.Spec.NodeTimeoutSeconds = 600
	f.in.Now = t0.Add(7 * time.Minute)
	_, rep := f.step(nil)
	g.Expect(listed(rep, "n-0").State).To(Equal(v1alpha1.DrainNodeDraining))
	g.Expect(rep.RequeueAfter).To(Equal(10*time.Second), "the poll comes first")
	f.in.Now = t0.Add(9*time.Minute + 55*time.Second)
	_, rep = f.step(nil)
	g.Expect(rep.RequeueAfter).To(Equal(6*time.Second), "just after the deadline")
	f.in.Now = t0.Add(11 * time.Minute)
	_, rep = f.step(nil)
	s := listed(rep, "n-0")
	g.Expect(s.State).To(Equal(v1alpha1.DrainNodeBlocked))
	g.Expect(s.Reason).To(Equal(v1alpha1.DrainReasonTimeout))
	g.Expect(s.Message).To(HavePrefix("Not drained within 10m0s"))

	// Handed over, the timeout counts from the handover.
	f = newFixture(auto, cond).holders(1, started(t0), replacementRequested(t0.Add(20*time.Minute)))
	f.in.Now = t0.Add(45 * time.Minute)
	_, rep = f.step(nil)
	g.Expect(listed(rep, "n-0").State).To(Equal(v1alpha1.DrainNodeHandedOver))
	f.in.Now = t0.Add(51 * time.Minute)
	_, rep = f.step(nil)
	s = listed(rep, "n-0")
	g.Expect(s.State).To(Equal(v1alpha1.DrainNodeBlocked))
	g.Expect(s.Reason).To(Equal(v1alpha1.DrainReasonTimeout))
	g.Expect(s.Message).To(ContainSubstring("is a MachineHealthCheck remediating nodes with condition PodCIDRReplacementNeeded?"))
}

func TestRelease(t *testing.T) {
	g := NewWithT(t)
	// The range is back in the spec: Active again.
	f := newFixture(auto, cond).holders(1, started(t0), replacementRequested(t0))
	f.in.Ranges[0].Phase = v1alpha1.RangePhaseActive
	p, _ := f.step(nil)
	np := nodePlan(p, "n-0")
	g.Expect(np.Steps).To(Equal([]Step{StepRelease}))
	g.Expect(np.Uncordon).To(BeTrue())
	g.Expect(np.RemoveCondition).To(BeTrue())
	_, rep := f.step(allDone(p))
	g.Expect(rep.Status.Nodes).To(BeEmpty())
	g.Expect(reasons(rep.Events)).To(ContainElement("n-0/" + v1alpha1.DrainReleasedEvent))
	g.Expect(rep.RequeueAfter).To(BeZero(), "nothing left")

	rep = Summarize(f.in, p, map[string]NodeResult{"n-0": {ReleaseError: "boom"}})
	g.Expect(listed(rep, "n-0").Message).To(ContainSubstring("releasing it failed: boom"))
	g.Expect(rep.RequeueAfter).To(Equal(10 * time.Second))
}

func TestRecommend(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(recommend, del).holders(3, withPods(pod("web"))).maxUnavailable(intstr.FromInt32(2))
	p, rep := f.step(nil)
	g.Expect(p.Act).To(BeFalse())
	for _, np := range p.Nodes {
		g.Expect(np.Steps).NotTo(ContainElement(StepStart), "Recommend never starts a node")
	}
	g.Expect(listed(rep, "n-0").State).To(Equal(v1alpha1.DrainNodeRecommended))
	g.Expect(listed(rep, "n-1").State).To(Equal(v1alpha1.DrainNodeRecommended))
	g.Expect(listed(rep, "n-2")).To(BeNil())
	g.Expect(*rep.Status.Waiting).To(Equal(int32(3)))
	cond := meta.FindStatusCondition(rep.Status.Conditions, v1alpha1.DrainAssistCompleteCondition)
	g.Expect(cond.Reason).To(Equal(v1alpha1.RecommendingReason))
	g.Expect(cond.Message).To(Equal("3 nodes with blocks in Draining ranges; Auto mode would start n-0, n-1 next"))
	g.Expect(reasons(rep.Events)).To(Equal([]string{"/" + v1alpha1.DrainRecommendedEvent}))

	_, again := f.previous(rep.Status).step(nil)
	g.Expect(again.Events).To(BeEmpty(), "the same recommendation is announced once")
}

func TestComplete(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, del)
	_, rep := f.step(nil)
	cond := meta.FindStatusCondition(rep.Status.Conditions, v1alpha1.DrainAssistCompleteCondition)
	g.Expect(cond.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(cond.Reason).To(Equal(v1alpha1.NoNodesToReplaceReason))
	g.Expect(cond.ObservedGeneration).To(Equal(int64(2)))
	g.Expect(rep.Events).To(BeEmpty(), "nothing happened")
	g.Expect(rep.RequeueAfter).To(BeZero())
	g.Expect(rep.Status.Message).To(Equal("No node holds a block in a Draining range"))

	busy := newFixture(auto, del).holders(1, started(t0), withPods(pod("a")))
	_, before := busy.step(nil)
	g.Expect(meta.FindStatusCondition(before.Status.Conditions, v1alpha1.DrainAssistCompleteCondition).Reason).To(Equal(v1alpha1.DrainInProgressReason))
	g.Expect(before.Status.Message).To(Equal("1 to replace: 1 draining, 0 blocked, 0 handed over, 0 waiting, 0 skipped (at most 1 at a time)"))
	f.in.Now = t0.Add(time.Minute)
	_, after := f.previous(before.Status).step(nil)
	g.Expect(reasons(after.Events)).To(Equal([]string{"/" + v1alpha1.DrainAssistCompleteEvent}))
	done := meta.FindStatusCondition(after.Status.Conditions, v1alpha1.DrainAssistCompleteCondition)
	g.Expect(done.LastTransitionTime.Time).To(Equal(t0.Add(time.Minute)))
}

func TestNoActiveRange(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, del).holders(1).node("v6", "fd00:1::/64")
	f.in.Ranges = append(f.in.Ranges, v1alpha1.RangeStatus{Name: "old6", CIDR: "fd00:1::/48", Phase: v1alpha1.RangePhaseDraining})
	p, rep := f.step(nil)
	g.Expect(starts(p)).To(Equal([]string{"n-0"}))
	s := listed(rep, "v6")
	g.Expect(s.State).To(Equal(v1alpha1.DrainNodeSkipped))
	g.Expect(s.Reason).To(Equal(v1alpha1.DrainReasonNoActiveRange))
	g.Expect(s.Message).To(Equal("No Active IPv6 range could give a replacement node a block"))
	g.Expect(s.Ranges).To(Equal([]string{"old6"}))
	g.Expect(Candidates(f.in)).To(Equal([]string{"n-0"}), "a node that cannot be replaced is not read")
}

func TestCountsCoverEveryHolder(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, del).maxUnavailable(intstr.FromInt32(3)).
		node("a", "10.1.0.0/24", started(t0), withPods(pod("x"))).
		node("b", "10.1.1.0/24", deleting).
		node("c", "10.1.2.0/24", nodeDoNotDisrupt(v1alpha1.DoNotDisruptAnnotation)).
		node("d", "10.1.3.0/24", unread).
		node("e", "10.1.4.0/24", withPods(pod("y"))).
		node("f", "10.1.5.0/24").
		node("x", "10.2.0.0/24")
	p, rep := f.step(nil)
	g.Expect(p.Total).To(Equal(6))
	g.Expect(starts(p)).To(Equal([]string{"e"}), "a and b take two of three slots; c is skipped, d unread")
	st := rep.Status
	g.Expect(*st.Waiting + *st.Draining + *st.Blocked + *st.HandedOver + *st.Skipped).To(Equal(*st.Total))
	g.Expect(st.MaxUnavailable).To(Equal(int32(3)))
	g.Expect(ptr.Deref(st.HandedOver, 0)).To(Equal(int32(1)))
}

func TestListedOrderAndCap(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(auto, del).maxUnavailable(intstr.FromString("100%"))
	for i := range 70 {
		f.node(netip.MustParsePrefix("10.1.0.0/24").String()+"-"+string(rune('a'+i/26))+string(rune('a'+i%26)),
			netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 1, byte(i), 0}), 24).String(), nodeDoNotDisrupt(v1alpha1.DoNotDisruptAnnotation))
	}
	f.node("z-busy", "10.1.200.0/24", started(t0), withPods(pod("a")))
	_, rep := f.step(nil)
	g.Expect(rep.Status.Nodes).To(HaveLen(v1alpha1.MaxDrainAssistListedNodes))
	g.Expect(rep.Status.Nodes[0].Name).To(Equal("z-busy"), "the nodes drain assist works on come first")
	g.Expect(*rep.Status.Skipped).To(Equal(int32(70)))
}
