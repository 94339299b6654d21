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

package autoscale

import (
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

const (
	active   = v1alpha1.RangePhaseActive
	pending  = v1alpha1.RangePhasePending
	draining = v1alpha1.RangePhaseDraining
	released = v1alpha1.RangePhaseReleased
)

func TestOffAndUnset(t *testing.T) {
	if out := Decide(Input{Now: t0}); out.Status != nil || out.SetChanged || len(out.Events) != 0 {
		t.Errorf("unset: %+v, want no status, no change, no event", out)
	}
	f := newFixture(v1alpha1.AutoscalingOff).admin("pods", "10.64.0.0/20", active, 16, 16, 0).auto("p-1", "10.64.0.0/19", pending)
	out := f.decide()
	if out.SetChanged || len(out.Events) != 0 || out.Status.Mode != v1alpha1.AutoscalingOff || len(out.Status.Pools) != 0 {
		t.Errorf("Off: %+v, want nothing added, removed or reported but the mode", out)
	}
	if !reflect.DeepEqual(out.Set, f.in.Set) {
		t.Errorf("Off changed the set: %v", setNames(out))
	}
}

func TestSteady(t *testing.T) {
	out := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/20", active, 16, 2, 0).decide()
	st := poolStatus(t, out)
	if st.State != v1alpha1.PoolSteady || out.SetChanged || len(out.Events) != 0 {
		t.Errorf("state %s, set changed %v, events %v; want Steady, nothing", st.State, out.SetChanged, reasons(out))
	}
	if *st.CapacityBlocks != 16 || *st.FreeBlocks != 14 || *st.WaitingNodes != 0 || *st.BlocksPerHour != 0 || st.ExhaustionSeconds != nil {
		t.Errorf("numbers %+v", st)
	}
	if c := condition(st, v1alpha1.PoolExhaustedCondition); c.Status != metav1.ConditionFalse || c.ObservedGeneration != 3 {
		t.Errorf("Exhausted %+v, want False at generation 3", c)
	}
	if c := condition(st, v1alpha1.PoolBlockedCondition); c.Status != metav1.ConditionFalse {
		t.Errorf("Blocked %+v, want False", c)
	}
	if out.RequeueAfter <= 0 || out.RequeueAfter > maxRequeue {
		t.Errorf("requeue %s, want within %s: the forecast moves with time", out.RequeueAfter, maxRequeue)
	}
}

// TestGrowByExpansionStepByStep follows one growth from the decision to the
// supernet being Active, feeding each output back like the controller.
func TestGrowByExpansionStepByStep(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/20", active, 16, 14, 0).consumer("c", true)
	out := f.decide()
	if got := setNames(out); !slices.Equal(got, []string{"p-1=10.64.0.0/19"}) || !out.SetChanged {
		t.Fatalf("set %v (changed %v), want p-1=10.64.0.0/19: the admin's range expanded by a supernet", got, out.SetChanged)
	}
	if a := out.Set[0]; a.Pool != "p" || a.NodeMaskSize != 24 || !a.AddedTime.Equal(ptr.To(metav1.NewTime(t0))) {
		t.Errorf("entry %+v, want pool p, nodeMaskSize 24, addedTime now", a)
	}
	if st := poolStatus(t, out); st.State != v1alpha1.PoolGrowing || !slices.Equal(st.Ranges, []string{"p-1"}) {
		t.Errorf("state %s ranges %v, want Growing holding p-1", st.State, st.Ranges)
	}
	if !slices.Equal(reasons(out), []string{v1alpha1.RangeAutoscaledEvent}) || out.Events[0].Range != "p-1" || out.Events[0].Action != "Expand" {
		t.Errorf("events %+v, want one RangeAutoscaled (Expand) for p-1", out.Events)
	}
	if len(out.Steps) != 1 || out.Steps[0] != (Step{Pool: "p", Action: "Expand"}) {
		t.Errorf("steps %+v", out.Steps)
	}

	// A restart before the lifecycle tracked it: the same inputs again add
	// nothing more.
	out = f.next(out).decide()
	if out.SetChanged || len(out.Events) != 0 || poolStatus(t, out).State != v1alpha1.PoolGrowing {
		t.Fatalf("second decide: changed %v events %v state %s, want nothing new while p-1 is in flight", out.SetChanged, reasons(out), poolStatus(t, out).State)
	}

	// Pending, awaiting the consumer: still waiting.
	f.tracked("p-1", "10.64.0.0/19", pending, "p").status("p-1").Awaiting = []string{"c"}
	out = f.next(out).decide()
	if st := poolStatus(t, out); out.SetChanged || st.State != v1alpha1.PoolGrowing || !strings.Contains(st.Message, "awaiting [c]") {
		t.Fatalf("while Pending: changed %v, %s %q", out.SetChanged, st.State, st.Message)
	}

	// Active, not reported by NodeIPAM yet: its capacity is estimated (32
	// blocks, 14 held inside the admin's range), and the pool is Steady.
	rs := f.status("p-1")
	rs.Phase, rs.Awaiting, rs.PhaseSince = active, nil, ptr.To(metav1.NewTime(t0.Add(4*time.Second)))
	f.in.Now = t0.Add(5 * time.Second)
	out = f.next(out).decide()
	st := poolStatus(t, out)
	if out.SetChanged || st.State != v1alpha1.PoolSteady || *st.CapacityBlocks != 32 || *st.FreeBlocks != 18 {
		t.Errorf("after activation: changed %v, %s, %d/%d free; want Steady with 18/32 free", out.SetChanged, st.State, *st.FreeBlocks, *st.CapacityBlocks)
	}
	if *st.LeadTimeSeconds != 4 {
		t.Errorf("lead time %ds, want the 4 s p-1 took", *st.LeadTimeSeconds)
	}
}

func TestLookAheadGrowsBeforeTheThreshold(t *testing.T) {
	base := func() *fixture {
		return newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/16", active, 256, 150, 0)
	}
	// 106 of 256 free (41 %): no growth while nothing arrives.
	if out := base().decide(); out.SetChanged {
		t.Fatalf("grew without arrivals: %v", setNames(out))
	}
	// One node per second for the last minute: over two default lead times
	// (60 s) the free blocks fall to ~45 (18 %) < 20 %: grow now.
	f := base()
	for i, c := range ages(60, time.Minute, t0) {
		f.in.Nodes = append(f.in.Nodes, Node{Name: "n" + itoaT(i), Created: c, PodCIDRs: []netip.Prefix{mp("10.64.0.0/24")}})
	}
	out := f.decide()
	if got := setNames(out); !slices.Equal(got, []string{"p-1=10.64.0.0/15"}) {
		t.Errorf("set %v, want the expansion before the threshold is crossed", got)
	}
	st := poolStatus(t, out)
	if *st.BlocksPerHour < 3600 || *st.BlocksPerHour > 3700 || st.ExhaustionSeconds == nil || *st.ExhaustionSeconds > 106 || *st.ExhaustionSeconds < 100 {
		t.Errorf("forecast: %d blocks/h, exhaustion %v s; want ~3600/h and ~104 s", *st.BlocksPerHour, st.ExhaustionSeconds)
	}
}

func itoaT(i int) string { return string(rune('a'+i/26)) + string(rune('a'+i%26)) }

func TestAddWhenNoExpansionFits(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/20", active, 16, 16, 0)
	f.in.ServiceCIDRs = []netip.Prefix{mp("10.64.16.0/24")}
	out := f.decide()
	if got := setNames(out); !slices.Equal(got, []string{"p-1=10.64.32.0/20"}) || out.Events[0].Action != "Add" {
		t.Errorf("set %v events %+v, want p-1 added at 10.64.32.0/20 (the sibling half holds a ServiceCIDR)", got, out.Events)
	}

	f.pool().GrowBy = v1alpha1.GrowByAdd
	f.in.ServiceCIDRs = nil
	if got := setNames(f.decide()); !slices.Equal(got, []string{"p-1=10.64.16.0/20"}) {
		t.Errorf("growBy Add: set %v, want a disjoint /20 even though an expansion fits", got)
	}
}

func TestExhausted(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/20", active, 16, 16, 0)
	f.pool().GrowBy = v1alpha1.GrowByExpand
	f.in.ServiceCIDRs = []netip.Prefix{mp("10.64.16.0/24")}
	out := f.decide()
	st := poolStatus(t, out)
	c := condition(st, v1alpha1.PoolExhaustedCondition)
	if out.SetChanged || st.State != v1alpha1.PoolExhausted || c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.PoolExhaustedReason {
		t.Fatalf("changed %v state %s Exhausted %+v, want Exhausted/PoolExhausted and nothing added", out.SetChanged, st.State, c)
	}
	if !slices.Equal(reasons(out), []string{v1alpha1.PoolExhaustedEvent}) || out.Events[0].Type != "Warning" {
		t.Errorf("events %+v, want one Warning PoolExhausted", out.Events)
	}
	if out = f.next(out).decide(); len(out.Events) != 0 {
		t.Errorf("events %v on the next decide, want none: the condition already says it", reasons(out))
	}
	// Room again (the ServiceCIDR is gone): the condition clears.
	f.in.ServiceCIDRs = nil
	out = f.next(out).decide()
	if c := condition(poolStatus(t, out), v1alpha1.PoolExhaustedCondition); c.Status != metav1.ConditionFalse || !out.SetChanged {
		t.Errorf("Exhausted %+v changed %v, want False and a growth", c, out.SetChanged)
	}
}

func TestMaxRanges(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto).auto("p-1", "10.64.0.0/20", active, 16, 16, 0)
	f.pool().MaxRanges = 1
	// An expansion replaces p-1 and does not count twice.
	if got := setNames(f.decide()); !slices.Equal(got, []string{"p-1=10.64.0.0/20", "p-2=10.64.0.0/19"}) {
		t.Errorf("set %v, want p-2 expanding p-1 within maxRanges 1", got)
	}
	// No expansion fits: adding a second disjoint range would exceed it.
	f.in.ServiceCIDRs = []netip.Prefix{mp("10.64.16.0/24")}
	out := f.decide()
	c := condition(poolStatus(t, out), v1alpha1.PoolExhaustedCondition)
	if out.SetChanged || c.Reason != v1alpha1.MaxRangesReachedReason {
		t.Errorf("changed %v Exhausted %+v, want MaxRangesReached", out.SetChanged, c)
	}
}

func TestOneRangeInFlightPerPool(t *testing.T) {
	for _, phase := range []v1alpha1.RangePhase{"", pending} {
		f := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/20", active, 16, 16, 0).auto("p-1", "10.80.0.0/20", phase)
		f.pool().CIDR = "10.64.0.0/11"
		out := f.decide()
		if st := poolStatus(t, out); out.SetChanged || st.State != v1alpha1.PoolGrowing {
			t.Errorf("p-1 %q: changed %v state %s, want Growing and no second range although nothing is free", phase, out.SetChanged, st.State)
		}
	}
}

func TestRejectionStopsGrowth(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/20", active, 16, 16, 0).auto("p-1", "10.64.0.0/19", pending).
		consumer("kube-proxy", true).consumer("viewer", false)
	f.status("p-1").Rejections = []v1alpha1.RangeRejection{{Consumer: "viewer", Message: "not interested"}}
	if st := poolStatus(t, f.decide()); st.State != v1alpha1.PoolGrowing {
		t.Fatalf("rejected by an optional consumer: %s, want Growing (only required consumers block)", st.State)
	}
	f.status("p-1").Rejections = append(f.status("p-1").Rejections, v1alpha1.RangeRejection{Consumer: "kube-proxy", Message: "covering prefix too short"})
	out := f.decide()
	st := poolStatus(t, out)
	c := condition(st, v1alpha1.PoolBlockedCondition)
	if out.SetChanged || st.State != v1alpha1.PoolBlocked || c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.AutoscaledRangeRejectedReason ||
		!strings.Contains(c.Message, "covering prefix too short") {
		t.Fatalf("changed %v state %s Blocked %+v, want Blocked/RangeRejected and nothing added or removed", out.SetChanged, st.State, c)
	}
	if !slices.Equal(reasons(out), []string{v1alpha1.PoolBlockedEvent}) {
		t.Errorf("events %v, want one PoolBlocked", reasons(out))
	}
	// No loop: the next decides neither add, remove nor announce again.
	for range 3 {
		out = f.next(out).decide()
		if out.SetChanged || len(out.Events) != 0 {
			t.Fatalf("changed %v events %v, want nothing while blocked", out.SetChanged, reasons(out))
		}
	}

	f.status("p-1").Rejections, f.status("p-1").InvalidReason, f.status("p-1").InvalidMessage = nil, v1alpha1.RangeInvalidServiceCIDROverlap, "overlaps ServiceCIDR \"x\""
	if c := condition(poolStatus(t, f.decide()), v1alpha1.PoolBlockedCondition); c.Reason != v1alpha1.AutoscaledRangeInvalidReason {
		t.Errorf("Blocked %+v, want RangeInvalid", c)
	}
}

func TestConsolidation(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/21", active, 8, 8, 0).
		auto("p-1", "10.64.0.0/20", active, 16, 10, 0).auto("p-2", "10.64.0.0/19", active, 32, 10, 0)
	out := f.decide()
	if got := setNames(out); !slices.Equal(got, []string{"p-2=10.64.0.0/19"}) {
		t.Errorf("set %v, want p-1 removed (p-2 contains it); the admin's range is never removed", got)
	}
	if !slices.Contains(reasons(out), v1alpha1.AutoscaledRangeRemovedEvent) || out.Steps[0].Action != ActionConsolidate {
		t.Errorf("events %v steps %+v", reasons(out), out.Steps)
	}
	// Not while the supernet is Pending, and never in Recommend mode.
	f.status("p-2").Phase = pending
	if out := f.decide(); out.SetChanged {
		t.Errorf("consolidated under a Pending supernet: %v", setNames(out))
	}
	f.status("p-2").Phase = active
	f.in.Autoscaling.Mode = v1alpha1.AutoscalingRecommend
	if out := f.decide(); out.SetChanged {
		t.Errorf("Recommend mode wrote the set: %v", setNames(out))
	}
}

func TestRecommend(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingRecommend).admin("pods", "10.64.0.0/20", active, 16, 14, 0)
	out := f.decide()
	st := poolStatus(t, out)
	want := v1alpha1.AutoscalingRecommendation{Action: v1alpha1.ActionExpand, CIDR: "10.64.0.0/19", Range: "pods"}
	if out.SetChanged || len(out.Set) != 0 || st.State != v1alpha1.PoolRecommending || st.Recommendation != want {
		t.Fatalf("changed %v set %v state %s recommendation %+v, want only the recommendation %+v", out.SetChanged, setNames(out), st.State, st.Recommendation, want)
	}
	if !slices.Equal(reasons(out), []string{v1alpha1.RangeRecommendedEvent}) || !out.Steps[0].Recommended {
		t.Errorf("events %v steps %+v, want one RangeRecommended, a recommended step", reasons(out), out.Steps)
	}
	if !strings.Contains(out.Status.Message, "would expand 10.64.0.0/19") {
		t.Errorf("message %q", out.Status.Message)
	}
	if out = f.next(out).decide(); len(out.Events) != 0 {
		t.Errorf("events %v, want none for the same recommendation", reasons(out))
	}
}

func TestAdoptedEntriesAreDropped(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto).auto("p-1", "10.64.0.0/20", active, 16, 1, 0)
	f.in.Spec = append(f.in.Spec, v1alpha1.PodCIDRRange{Name: "p-1", CIDR: "10.64.0.0/20", NodeMaskSize: 24})
	out := f.decide()
	if len(out.Set) != 0 || !out.SetChanged || !slices.Contains(reasons(out), v1alpha1.AutoscaledRangeRemovedEvent) {
		t.Errorf("set %v events %v, want the adopted entry dropped", setNames(out), reasons(out))
	}
	f.in.Autoscaling.Mode = v1alpha1.AutoscalingRecommend
	if out := f.decide(); out.SetChanged {
		t.Error("Recommend mode dropped the adopted entry")
	}
}

func TestDemandAndSelectors(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto)
	f.pool().NodeSelector = zone("a")
	// Serving: only the range with the pool's selector; the unselected
	// and the IPv6 ranges serve other nodes.
	f.in.Spec = append(f.in.Spec,
		v1alpha1.PodCIDRRange{Name: "zone-a", CIDR: "10.64.0.0/20", NodeMaskSize: 24, NodeSelector: zone("a")},
		v1alpha1.PodCIDRRange{Name: "all", CIDR: "10.96.0.0/16", NodeMaskSize: 24},
		v1alpha1.PodCIDRRange{Name: "v6", CIDR: "fd00::/48", NodeMaskSize: 64})
	f.tracked("zone-a", "10.64.0.0/20", active, "", 16, 10, 0).tracked("all", "10.96.0.0/16", active, "", 256, 0, 0)
	f.in.Status.Ranges = append(f.in.Status.Ranges, v1alpha1.RangeStatus{Name: "v6", CIDR: "fd00::/48", NodeMaskSize: 64, Phase: active, Usage: v1alpha1.NewRangeUsage(65536, 0, 65536, 0)})
	old := t0.Add(-time.Hour)
	for i := range 5 {
		f.in.Nodes = append(f.in.Nodes, Node{Name: "a" + itoaT(i), Labels: map[string]string{"zone": "a"}, Created: old})
	}
	for i := range 20 {
		f.in.Nodes = append(f.in.Nodes, Node{Name: "b" + itoaT(i), Labels: map[string]string{"zone": "b"}, Created: old})
	}
	out := f.decide()
	st := poolStatus(t, out)
	if *st.CapacityBlocks != 16 || *st.FreeBlocks != 6 || *st.WaitingNodes != 5 {
		t.Errorf("capacity %d free %d waiting %d, want 16, 6, 5 (zone a only)", *st.CapacityBlocks, *st.FreeBlocks, *st.WaitingNodes)
	}
	// 6 free - 5 waiting = 1 block (6 %) < 20 %: grow, copying the selector.
	if len(out.Set) != 1 || !reflect.DeepEqual(out.Set[0].NodeSelector, zone("a")) {
		t.Errorf("set %+v, want one range with the pool's selector", out.Set)
	}
}

func TestNamesAreNeverReused(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto).tracked("p-3", "10.64.0.0/20", released, "p").admin("p-7x", "10.96.0.0/16", active, 256, 256, 0)
	out := f.decide()
	if got := setNames(out); !slices.Equal(got, []string{"p-4=10.64.16.0/20"}) {
		t.Errorf("set %v, want p-4 outside the still tracked 10.64.0.0/20", got)
	}
}

// TestEveryPoolGrows: pools for other nodes (another family, another
// selector) each take their own step in one decide; a pool for the same
// nodes as another waits for the range the other just added.
func TestEveryPoolGrows(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto)
	q := *f.pool()
	q.Name, q.CIDR, q.RangePrefixLength, q.NodeMaskSize = "q", "fd00:10::/48", 56, 64
	r := *f.pool()
	r.Name, r.CIDR, r.NodeSelector = "r", "10.80.0.0/12", zone("r")
	s := *f.pool()
	s.Name, s.CIDR = "s", "10.96.0.0/12"
	f.in.Autoscaling.Pools = append(f.in.Autoscaling.Pools, q, r, s)
	out := f.decide()
	if got := setNames(out); !slices.Equal(got, []string{"p-1=10.64.0.0/20", "q-1=fd00:10::/56", "r-1=10.80.0.0/20"}) {
		t.Errorf("set %v, want one first range per pool", got)
	}
	if len(out.Status.Pools) != 4 || !strings.Contains(out.Status.Message, "q Growing") || !strings.Contains(out.Status.Pools[3].Message, `"p-1"`) {
		t.Errorf("status %+v", out.Status)
	}
}

func TestDecideDoesNotMutateItsInput(t *testing.T) {
	f := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/21", active, 8, 8, 0).
		auto("p-1", "10.64.0.0/20", active, 16, 10, 0).auto("p-2", "10.64.0.0/19", active, 32, 32, 0)
	before := f.in.Set[0]
	snapshot := make([]v1alpha1.AutoscaledRange, len(f.in.Set))
	for i := range f.in.Set {
		snapshot[i] = *f.in.Set[i].DeepCopy()
	}
	status := f.in.Status.DeepCopy()
	_ = f.decide()
	if !reflect.DeepEqual(snapshot, f.in.Set) || !reflect.DeepEqual(*status, f.in.Status) || f.in.Set[0].Name != before.Name {
		t.Error("Decide changed its input")
	}
}

func TestWaitsForOtherPendingCapacity(t *testing.T) {
	// The admin's range for the same nodes is Pending (just created): the
	// pool waits for it instead of adding a range.
	f := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/20", pending).consumer("c", true)
	out := f.decide()
	if st := poolStatus(t, out); out.SetChanged || st.State != v1alpha1.PoolGrowing || !strings.Contains(st.Message, `"pods"`) {
		t.Fatalf("changed %v state %s %q, want Growing, waiting for pods", out.SetChanged, st.State, st.Message)
	}
	// Declared, not tracked yet: the same.
	g := newFixture(v1alpha1.AutoscalingAuto)
	g.in.Spec = append(g.in.Spec, v1alpha1.PodCIDRRange{Name: "pods", CIDR: "10.64.0.0/20", NodeMaskSize: 24})
	if out := g.decide(); out.SetChanged {
		t.Errorf("added %v before the admin's range was tracked", setNames(out))
	}
	// Rejected by a required consumer, or invalid, it will not come: grow.
	f.status("pods").Rejections = []v1alpha1.RangeRejection{{Consumer: "c", Message: "no"}}
	if out := f.decide(); !out.SetChanged {
		t.Error("waited for a rejected range")
	}
	f.status("pods").Rejections = nil
	f.status("pods").InvalidReason = v1alpha1.RangeInvalidRangeConflict
	if out := f.decide(); !out.SetChanged {
		t.Error("waited for an invalid range")
	}
	// A Pending range for other nodes (another selector) is not waited for.
	h := newFixture(v1alpha1.AutoscalingAuto)
	h.in.Spec = append(h.in.Spec, v1alpha1.PodCIDRRange{Name: "gpu", CIDR: "10.99.0.0/20", NodeMaskSize: 24, NodeSelector: zone("gpu")})
	h.tracked("gpu", "10.99.0.0/20", pending, "")
	if out := h.decide(); !out.SetChanged {
		t.Error("waited for a range of other nodes")
	}
}
