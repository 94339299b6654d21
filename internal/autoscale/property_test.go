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
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/declared"
)

// TestDecideInvariants runs Decide on random clusters, twice in a row as a
// restarted controller would, and checks the rules that must hold whatever
// the input (see checkInvariants). AUTOSCALE_SEED=n replays one seed.
func TestDecideInvariants(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("AUTOSCALE_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seed %d (AUTOSCALE_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	seen := map[string]int{}
	for i := range 3000 {
		in := randomInput(rng)
		out := Decide(in)
		for _, st := range out.Steps {
			seen[st.Action]++
		}
		for _, e := range out.Events {
			seen[e.Reason]++
		}
		if err := checkInvariants(&in, &out); err != nil {
			t.Fatalf("seed %d case %d: %v\nspec %+v\nset %+v\ntracked %+v\nset out: %v", seed, i, err, in.Spec, in.Set, in.Status.Ranges, setNames(out))
		}
		again := in
		again.Set, again.Status.Autoscaling = out.Set, out.Status
		out2 := Decide(again)
		if err := checkInvariants(&again, &out2); err != nil {
			t.Fatalf("seed %d case %d, second decide: %v", seed, i, err)
		}
	}
	// The generator must reach every kind of step, or the invariants above
	// were checked on nothing.
	t.Logf("steps and events seen: %v", seen)
	for _, k := range []string{"Expand", "Add", "Remove", ActionConsolidate, v1alpha1.PoolExhaustedEvent, v1alpha1.PoolBlockedEvent, v1alpha1.RangeRecommendedEvent} {
		if seen[k] == 0 {
			t.Errorf("no case reached %s", k)
		}
	}
}

func randomInput(rng *rand.Rand) Input {
	modes := []v1alpha1.AutoscalingMode{v1alpha1.AutoscalingOff, v1alpha1.AutoscalingRecommend, v1alpha1.AutoscalingAuto, v1alpha1.AutoscalingAuto}
	strategies := []v1alpha1.GrowthStrategy{"", v1alpha1.GrowByExpand, v1alpha1.GrowByAdd}
	pool := v1alpha1.AutoscalingPool{
		Name: "p", CIDR: "10.64.0.0/14", RangePrefixLength: int32(18 + rng.IntN(5)), NodeMaskSize: 24,
		MaxRanges: int32(1 + rng.IntN(4)), GrowBy: strategies[rng.IntN(3)],
		Grow: v1alpha1.GrowThreshold{FreePercentBelow: int32(5 + rng.IntN(40)), FreeBlocksBelow: int32(rng.IntN(20))},
	}
	if rng.IntN(3) == 0 {
		pool.Exclusions = []v1alpha1.CIDRString{v1alpha1.CIDRString(fmt.Sprintf("10.%d.%d.0/20", 64+rng.IntN(4), 16*rng.IntN(16)))}
	}
	if rng.IntN(2) == 0 {
		pool.Shrink = v1alpha1.ShrinkPolicy{FreePercentAbove: pool.Grow.FreePercentBelow + 10, IdleSeconds: ptr.To(int32(rng.IntN(120)))}
	}
	now := t0
	in := Input{Now: now, Autoscaling: v1alpha1.PodNetworkAutoscaling{Mode: modes[rng.IntN(4)], CooldownSeconds: ptr.To(int32(rng.IntN(120))), Pools: []v1alpha1.AutoscalingPool{pool}}}
	if rng.IntN(3) == 0 {
		in.ServiceCIDRs = []netip.Prefix{netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", 64+rng.IntN(4), rng.IntN(256)))}
	}
	in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "c", Required: true}, {Name: "o"}}
	phases := []v1alpha1.RangePhase{active, active, active, active, active, active, pending, draining, released, ""}
	var occupied []netip.Prefix
	n := rng.IntN(6)
	for i := range n {
		// A random /17../22 inside (or just outside) the pool, disjoint
		// from the others, or a one-bit expansion of an earlier one.
		var p netip.Prefix
		if len(occupied) > 0 && rng.IntN(3) == 0 {
			o := occupied[rng.IntN(len(occupied))]
			p = netip.PrefixFrom(o.Addr(), o.Bits()-1).Masked()
		} else {
			bits := 17 + rng.IntN(6)
			addr := netip.AddrFrom4([4]byte{10, byte(63 + rng.IntN(6)), byte(rng.IntN(256)), 0})
			p = netip.PrefixFrom(addr, bits).Masked()
		}
		if conflicts(p, occupied) {
			continue
		}
		occupied = append(occupied, p)
		name := fmt.Sprintf("r%d", i)
		phase := phases[rng.IntN(len(phases))]
		capacity := int64(cidr.BlockCount(p, 24))
		allocated := rng.Int64N(capacity + 1)
		quarantined := rng.Int64N(capacity - allocated + 1)
		if rng.IntN(3) == 0 {
			allocated, quarantined = 0, 0
		}
		if rng.IntN(2) == 0 {
			in.Spec = append(in.Spec, v1alpha1.PodCIDRRange{Name: name, CIDR: p.String(), NodeMaskSize: 24})
		} else {
			name = fmt.Sprintf("p-%d", i+1)
			in.Set = append(in.Set, v1alpha1.AutoscaledRange{Name: name, Pool: "p", CIDR: v1alpha1.CIDRString(p.String()), NodeMaskSize: 24, AddedTime: ptr.To(metav1.NewTime(now.Add(-time.Duration(rng.IntN(600)) * time.Second)))})
		}
		if phase == "" {
			continue
		}
		rs := v1alpha1.RangeStatus{Name: name, CIDR: p.String(), NodeMaskSize: 24, Phase: phase, PhaseSince: ptr.To(metav1.NewTime(now.Add(-time.Duration(rng.IntN(600)) * time.Second)))}
		if phase != released && rng.IntN(4) != 0 {
			rs.Usage = v1alpha1.NewRangeUsage(capacity, allocated, capacity-allocated-quarantined, quarantined)
		}
		if phase == pending && rng.IntN(3) == 0 {
			rs.Rejections = []v1alpha1.RangeRejection{{Consumer: []string{"c", "o"}[rng.IntN(2)], Message: "no"}}
		}
		in.Status.Ranges = append(in.Status.Ranges, rs)
	}
	// A previous decide may have seen the autoscaler's ranges empty long ago.
	if rng.IntN(2) == 0 {
		ps := v1alpha1.AutoscalingPoolStatus{Name: "p", State: v1alpha1.PoolSteady}
		for _, a := range in.Set {
			ps.IdleRanges = append(ps.IdleRanges, v1alpha1.IdleRange{Name: a.Name, Since: ptr.To(metav1.NewTime(now.Add(-time.Hour)))})
		}
		in.Status.Autoscaling = &v1alpha1.AutoscalingStatus{Mode: in.Autoscaling.Mode, Pools: []v1alpha1.AutoscalingPoolStatus{ps}}
	}
	// Some clusters are quiet (old nodes, all placed), some busy.
	span, waitingOneIn := []int{900, 86400}[rng.IntN(2)], []int{2, 10, 1 << 30}[rng.IntN(3)]
	for i := range rng.IntN(200) {
		node := Node{Name: fmt.Sprintf("n%d", i), Created: now.Add(-time.Duration(span/2+rng.IntN(span/2)) * time.Second)}
		if rng.IntN(waitingOneIn) != 0 {
			node.PodCIDRs = []netip.Prefix{netip.MustParsePrefix("10.99.0.0/24")}
		}
		if rng.IntN(20) == 0 {
			node.Addresses = []netip.Addr{netip.AddrFrom4([4]byte{10, byte(64 + rng.IntN(4)), byte(rng.IntN(256)), 7})}
		}
		in.Nodes = append(in.Nodes, node)
	}
	return in
}

// conflicts reports whether p overlaps a prefix of os other than as a
// strict supernet (the only overlap the generator makes on purpose).
func conflicts(p netip.Prefix, os []netip.Prefix) bool {
	for _, o := range os {
		if o.Overlaps(p) && !cidr.StrictlyContains(p, o) {
			return true
		}
	}
	return false
}

// checkInvariants checks what Decide must never do, whatever the input.
func checkInvariants(in *Input, out *Output) error {
	auto := in.Autoscaling.Mode == v1alpha1.AutoscalingAuto
	if !auto && !reflect.DeepEqual(out.Set, in.Set) {
		return fmt.Errorf("mode %s changed the set", in.Autoscaling.Mode)
	}
	before := map[string]*v1alpha1.AutoscaledRange{}
	for i := range in.Set {
		before[in.Set[i].Name] = &in.Set[i]
	}
	tracked := map[string]*v1alpha1.RangeStatus{}
	for i := range in.Status.Ranges {
		tracked[in.Status.Ranges[i].Name] = &in.Status.Ranges[i]
	}
	union := declared.Union(in.Spec, &v1alpha1.AutoscaledRangeSet{Spec: &v1alpha1.AutoscaledRangeSetSpec{Ranges: in.Set}})
	after := map[string]bool{}
	added := map[string]int{}
	for i := range out.Set {
		a := &out.Set[i]
		after[a.Name] = true
		if b := before[a.Name]; b != nil {
			if !reflect.DeepEqual(*a, *b) {
				return fmt.Errorf("entry %s changed: %+v -> %+v", a.Name, *b, *a)
			}
			continue
		}
		added[a.Pool]++
		if err := checkNewRange(in, a); err != nil {
			return err
		}
	}
	for pool, n := range added {
		if n > 1 {
			return fmt.Errorf("pool %s added %d ranges at once", pool, n)
		}
		// An entry the same step removed (consolidated) no longer counts.
		for _, b := range in.Set {
			if rs := tracked[b.Name]; after[b.Name] && b.Pool == pool && union.Pools[b.Name] == pool && (rs == nil || rs.CIDR != string(b.CIDR) || rs.Phase != active) {
				return fmt.Errorf("pool %s added a range while %s was in flight", pool, b.Name)
			}
		}
	}
	for name, b := range before {
		if after[name] {
			continue
		}
		if err := checkRemoval(in, b, tracked, &union); err != nil {
			return err
		}
	}
	return nil
}

// checkNewRange: a range added lies in its pool, is a valid range, and
// overlaps no ServiceCIDR, node address, exclusion nor known range but
// ranges it strictly contains with its nodeMaskSize.
func checkNewRange(in *Input, a *v1alpha1.AutoscaledRange) error {
	p, err := cidr.ParseCanonical(string(a.CIDR))
	if err != nil {
		return fmt.Errorf("added %s: %w", a.Name, err)
	}
	pool := in.Autoscaling.FindPool(a.Pool)
	pp := netip.MustParsePrefix(pool.CIDR)
	if p.Bits() < pp.Bits() || !pp.Contains(p.Addr()) || cidr.ValidateRange(p, int(a.NodeMaskSize)) != nil || a.NodeMaskSize != pool.NodeMaskSize {
		return fmt.Errorf("added %s %s outside pool %s or invalid", a.Name, p, pp)
	}
	for _, s := range in.ServiceCIDRs {
		if s.Overlaps(p) {
			return fmt.Errorf("added %s %s over ServiceCIDR %s", a.Name, p, s)
		}
	}
	for _, x := range pool.Exclusions {
		if netip.MustParsePrefix(string(x)).Overlaps(p) {
			return fmt.Errorf("added %s %s over exclusion %s", a.Name, p, x)
		}
	}
	for _, n := range in.Nodes {
		for _, addr := range n.Addresses {
			if p.Contains(addr) {
				return fmt.Errorf("added %s %s over node address %s", a.Name, p, addr)
			}
		}
	}
	check := func(what string, q netip.Prefix, nms int32) error {
		if q.Overlaps(p) && !(cidr.StrictlyContains(p, q) && nms == a.NodeMaskSize) {
			return fmt.Errorf("added %s %s over %s %s", a.Name, p, what, q)
		}
		return nil
	}
	for _, r := range in.Spec {
		if err := check("spec range", netip.MustParsePrefix(r.CIDR), r.EffectiveNodeMaskSize()); err != nil {
			return err
		}
	}
	for _, r := range in.Set {
		if err := check("autoscaled range", netip.MustParsePrefix(string(r.CIDR)), r.NodeMaskSize); err != nil {
			return err
		}
	}
	for _, r := range in.Status.Ranges {
		if err := check("tracked range", netip.MustParsePrefix(r.CIDR), r.NodeMaskSize); err != nil {
			return err
		}
	}
	return nil
}

// checkRemoval: a range is removed only in Auto mode, and only when the
// admin adopted it, an Active range of its pool contains it, or it is
// Active without any allocated or quarantined block.
func checkRemoval(in *Input, b *v1alpha1.AutoscaledRange, tracked map[string]*v1alpha1.RangeStatus, union *declared.Result) error {
	if in.Autoscaling.Mode != v1alpha1.AutoscalingAuto {
		return fmt.Errorf("removed %s in mode %s", b.Name, in.Autoscaling.Mode)
	}
	if union.Pools[b.Name] == "" {
		return nil // adopted
	}
	bp := netip.MustParsePrefix(string(b.CIDR))
	for _, o := range in.Set {
		rs := tracked[o.Name]
		if o.Pool == b.Pool && rs != nil && rs.Phase == active && rs.CIDR == string(o.CIDR) && cidr.StrictlyContains(netip.MustParsePrefix(string(o.CIDR)), bp) {
			return nil // consolidated
		}
	}
	rs := tracked[b.Name]
	if rs == nil || rs.Phase != active || rs.Usage.IsZero() || *rs.Usage.Allocated != 0 || *rs.Usage.Quarantined != 0 {
		return fmt.Errorf("removed %s, which may hold blocks (%+v)", b.Name, rs)
	}
	if in.Autoscaling.Pools[0].Shrink == (v1alpha1.ShrinkPolicy{}) {
		return fmt.Errorf("removed idle %s without a shrink policy", b.Name)
	}
	return nil
}
