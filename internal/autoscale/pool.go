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
	"math"
	"slices"
	"time"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/nodeipam"
)

// pool decides the step of one pool and returns its status.
func (d *decider) pool(p *v1alpha1.AutoscalingPool) v1alpha1.AutoscalingPoolStatus {
	st := v1alpha1.AutoscalingPoolStatus{Name: p.Name}
	pc := &poolContext{p: p, st: &st, prev: d.prevPools[p.Name], auto: d.in.Autoscaling.Mode == v1alpha1.AutoscalingAuto}
	if pc.prev != nil {
		st.Conditions = slices.Clone(pc.prev.Conditions)
	}
	spec, err := parsePool(p)
	if err != nil {
		st.State, st.Message = v1alpha1.PoolExhausted, fmt.Sprintf("The pool cannot be used: %v", err)
		d.exhausted(pc, v1alpha1.PoolExhaustedReason, st.Message)
		d.setBlocked(pc, "", "")
		return st
	}
	pc.spec = spec
	// Terms that cannot be compiled match no node, as for a range's
	// nodeSelector; the CRD validates the selector's shape.
	pc.sel, _ = nodeipam.CompileNodeSelector(p.NodeSelector)

	if pc.auto {
		d.consolidate(pc)
	}
	pc.union = d.union()
	pc.serving = d.serving(&pc.spec, p.NodeSelector, &pc.union, "")
	capacity, free := totals(pc.serving)
	waiting, created := demand(&pc.spec, pc.sel, d.in.Nodes)
	pc.forecast = forecast{
		capacity: capacity, free: free, waiting: waiting,
		rate: arrivalRate(created, d.in.Now),
		lead: leadTime(p.Name, d.set, d.tracked),
	}
	d.report(pc)
	d.trackIdle(pc)

	switch blocked, reason, msg := d.inFlight(pc); {
	case blocked:
		st.State = v1alpha1.PoolBlocked
		d.setBlocked(pc, reason, msg)
		d.exhausted(pc, "", "")
		st.Message = msg + ". " + capitalize(numbers(pc.forecast))
	case msg != "":
		st.State = v1alpha1.PoolGrowing
		d.setBlocked(pc, "", "")
		d.exhausted(pc, "", "")
		st.Message = msg + ". " + capitalize(numbers(pc.forecast))
	case pc.forecast.belowGrow(p.Grow):
		d.setBlocked(pc, "", "")
		d.grow(pc)
	default:
		d.setBlocked(pc, "", "")
		d.exhausted(pc, "", "")
		if !d.shrink(pc) {
			st.State = v1alpha1.PoolSteady
			if d.shrinking(pc) {
				st.State = v1alpha1.PoolShrinking
			}
			st.Message = d.steadyMessage(pc)
		}
	}
	d.recommendationEvent(pc)
	for _, a := range d.poolRanges(p.Name, ptrTo(d.union())) {
		st.Ranges = append(st.Ranges, a.Name)
	}
	slices.Sort(st.Ranges)
	return st
}

func ptrTo[T any](v T) *T { return &v }

// consolidate removes the pool's ranges that an Active range of the pool
// strictly contains: the expansion that covers them finished, and every
// block inside them stays inside the Active supernet, so they are released
// without replacing a node. A range of spec.ranges is never removed.
func (d *decider) consolidate(pc *poolContext) {
	union := d.union()
	mine := d.poolRanges(pc.p.Name, &union)
	var gone []string
	for _, a := range mine {
		ap, err := a.Prefix()
		if err != nil {
			continue
		}
		for _, o := range mine {
			rs := d.tracked[o.Name]
			op, err := o.Prefix()
			if err != nil || rs == nil || rs.Phase != v1alpha1.RangePhaseActive || rs.CIDR != op.String() || !cidr.StrictlyContains(op, ap) {
				continue
			}
			gone = append(gone, a.Name)
			ev := normal(v1alpha1.AutoscaledRangeRemovedEvent, "Consolidate",
				fmt.Sprintf("Pool %q removed range %q (%s): the Active range %q (%s) it added contains it, so its nodes keep their blocks", pc.p.Name, a.Name, a.CIDR, o.Name, o.CIDR))
			ev.Pool, ev.Range = pc.p.Name, a.Name
			d.events = append(d.events, ev)
			d.steps = append(d.steps, Step{Pool: pc.p.Name, Action: ActionConsolidate})
			break
		}
	}
	for _, name := range gone {
		d.remove(name)
	}
}

// inFlight reports the pool's range that is not Active yet, if any: a
// message, and whether it blocks the pool (rejected by a required
// consumer, or invalid) with the condition reason.
func (d *decider) inFlight(pc *poolContext) (blocked bool, reason, msg string) {
	for _, a := range d.poolRanges(pc.p.Name, &pc.union) {
		rs := d.tracked[a.Name]
		switch {
		case rs == nil || rs.CIDR != string(a.CIDR):
			return false, "", fmt.Sprintf("Waiting for range %q (%s) to be tracked", a.Name, a.CIDR)
		case rs.Phase == v1alpha1.RangePhaseActive:
			continue
		case rs.InvalidReason != "":
			return true, v1alpha1.AutoscaledRangeInvalidReason, fmt.Sprintf(
				"Range %q (%s) cannot be used (%s: %s); the pool adds nothing more until it is Active or its entry is deleted from AutoscaledRangeSet %q",
				a.Name, a.CIDR, rs.InvalidReason, rs.InvalidMessage, v1alpha1.AutoscaledRangeSetName)
		}
		for _, rej := range rs.Rejections {
			if d.required[rej.Consumer] {
				return true, v1alpha1.AutoscaledRangeRejectedReason, fmt.Sprintf(
					"Required consumer %q rejected range %q (%s): %s; the pool adds nothing more until the range is Active or its entry is deleted from AutoscaledRangeSet %q",
					rej.Consumer, a.Name, a.CIDR, rej.Message, v1alpha1.AutoscaledRangeSetName)
			}
		}
		return false, "", fmt.Sprintf("Waiting for range %q (%s) to become Active (%s)", a.Name, a.CIDR, waitingFor(rs))
	}
	// A range someone else declared for the same nodes (the admin's, when
	// the PodNetwork was just created or edited) is capacity on its way:
	// wait for it rather than add another, unless it cannot become Active.
	for i := range pc.union.Ranges {
		r := &pc.union.Ranges[i]
		p, err := r.Prefix()
		if err != nil || pc.union.Pools[r.Name] == pc.p.Name || p.Addr().Is4() != pc.spec.prefix.Addr().Is4() || !sameSelector(r.NodeSelector, pc.p.NodeSelector) {
			continue
		}
		rs := d.tracked[r.Name]
		switch {
		case rs == nil:
			return false, "", fmt.Sprintf("Waiting for range %q (%s), which serves the pool's nodes, to be tracked", r.Name, r.CIDR)
		case rs.Phase == v1alpha1.RangePhasePending && rs.CIDR == p.Masked().String() && rs.InvalidReason == "" && !d.rejectedByRequired(rs):
			return false, "", fmt.Sprintf("Waiting for range %q (%s), which serves the pool's nodes, to become Active (%s)", r.Name, r.CIDR, waitingFor(rs))
		}
	}
	return false, "", ""
}

// rejectedByRequired reports whether a required consumer rejected the
// current phase of rs.
func (d *decider) rejectedByRequired(rs *v1alpha1.RangeStatus) bool {
	return slices.ContainsFunc(rs.Rejections, func(r v1alpha1.RangeRejection) bool { return d.required[r.Consumer] })
}

func waitingFor(rs *v1alpha1.RangeStatus) string {
	if len(rs.Awaiting) > 0 {
		return fmt.Sprintf("%s, awaiting %v", rs.Phase, rs.Awaiting)
	}
	return string(rs.Phase)
}

// shrinking reports whether a range the pool removed (not one an expansion
// covers) is still draining.
func (d *decider) shrinking(pc *poolContext) bool {
	for _, rs := range d.in.Status.Ranges {
		if rs.Pool == pc.p.Name && pc.union.Pools[rs.Name] == "" && rs.CoveredBy == "" &&
			(rs.Phase == v1alpha1.RangePhaseDraining || rs.Phase == v1alpha1.RangePhaseReleased) {
			return true
		}
	}
	return false
}

// grow takes (or recommends) the pool's growth step, or reports that there
// is no room.
func (d *decider) grow(pc *poolContext) {
	st := pc.st
	sp, err := d.space()
	if err != nil {
		d.exhausted(pc, v1alpha1.PoolExhaustedReason, err.Error())
		return
	}
	mine := d.poolRanges(pc.p.Name, &pc.union)
	maxRanges := pc.p.EffectiveMaxRanges()
	strategy := pc.p.EffectiveGrowBy()
	limited := false
	var action v1alpha1.AutoscalingAction
	var target, expanded string
	if strategy != v1alpha1.GrowByAdd {
		cands := slices.Clone(pc.serving)
		sortServing(cands)
		for _, c := range cands {
			if c.nms != pc.spec.nms || !pc.spec.prefix.Contains(c.prefix.Addr()) || c.prefix.Bits() < pc.spec.prefix.Bits() {
				continue
			}
			sup, ok := sp.expansion(&pc.spec, c.prefix)
			if !ok {
				continue
			}
			if disjointCount(mine, sup) > maxRanges {
				limited = true
				continue
			}
			action, target, expanded = v1alpha1.ActionExpand, sup.String(), c.name
			break
		}
	}
	if action == "" && strategy != v1alpha1.GrowByExpand {
		if disjointCount(mine, netipPrefixZero) >= maxRanges {
			limited = true
		} else if p, ok := sp.carve(&pc.spec); ok {
			action, target = v1alpha1.ActionAdd, p.String()
		}
	}
	why := d.growthReason(pc)
	if action == "" {
		reason, msg := v1alpha1.PoolExhaustedReason, fmt.Sprintf("%s, but the pool has no room left for %s", why, roomFor(pc.p, strategy))
		if limited {
			reason, msg = v1alpha1.MaxRangesReachedReason, fmt.Sprintf("%s, but the pool already holds maxRanges (%d) disjoint ranges and cannot expand them", why, maxRanges)
		}
		d.exhausted(pc, reason, msg)
		st.State, st.Message = v1alpha1.PoolExhausted, msg
		return
	}
	d.exhausted(pc, "", "")
	rec := v1alpha1.AutoscalingRecommendation{Action: action, CIDR: target, Range: expanded}
	what := fmt.Sprintf("add %s", target)
	if action == v1alpha1.ActionExpand {
		what = fmt.Sprintf("expand range %q to %s", expanded, target)
	}
	if !pc.auto {
		st.State, st.Recommendation = v1alpha1.PoolRecommending, rec
		st.Message = fmt.Sprintf("%s: it would %s", why, what)
		d.steps = append(d.steps, Step{Pool: pc.p.Name, Action: string(action), Recommended: true})
		return
	}
	p, _ := netipParse(target)
	r := d.newRange(pc, p)
	d.set = append(d.set, r)
	d.changed = true
	st.State = v1alpha1.PoolGrowing
	st.Message = fmt.Sprintf("%s: added range %q (%s) to %s; waiting for it to become Active", why, r.Name, r.CIDR, what)
	ev := normal(v1alpha1.RangeAutoscaledEvent, string(action), fmt.Sprintf("Pool %q added range %q (%s) to %s: %s", pc.p.Name, r.Name, r.CIDR, what, lowerFirst(why)))
	ev.Pool, ev.Range = pc.p.Name, r.Name
	d.events = append(d.events, ev)
	d.steps = append(d.steps, Step{Pool: pc.p.Name, Action: string(action)})
}

func roomFor(p *v1alpha1.AutoscalingPool, strategy v1alpha1.GrowthStrategy) string {
	switch strategy {
	case v1alpha1.GrowByExpand:
		return "an expansion"
	case v1alpha1.GrowByAdd:
		return fmt.Sprintf("a /%d", p.RangePrefixLength)
	default:
		return fmt.Sprintf("an expansion or a /%d", p.RangePrefixLength)
	}
}

// trackIdle records, in the pool's status, since when each Active range
// the pool holds has had no allocated and no quarantined block.
func (d *decider) trackIdle(pc *poolContext) {
	prev := map[string]*v1alpha1.IdleRange{}
	if pc.prev != nil {
		for i := range pc.prev.IdleRanges {
			prev[pc.prev.IdleRanges[i].Name] = &pc.prev.IdleRanges[i]
		}
	}
	for _, a := range d.poolRanges(pc.p.Name, &pc.union) {
		rs := d.tracked[a.Name]
		if rs == nil || rs.Phase != v1alpha1.RangePhaseActive || rs.CIDR != string(a.CIDR) || rs.Usage.IsZero() ||
			valueOf(rs.Usage.Allocated) != 0 || valueOf(rs.Usage.Quarantined) != 0 {
			continue
		}
		since := d.now
		if p := prev[a.Name]; p != nil && p.Since != nil && !p.Since.After(d.now.Time) {
			since = *p.Since
		}
		pc.st.IdleRanges = append(pc.st.IdleRanges, v1alpha1.IdleRange{Name: a.Name, Since: ptrTo(since)})
	}
}

// shrink removes (or recommends removing) one range the pool added that has
// been idle long enough, when the pool's thresholds hold without it. It
// reports whether it did.
func (d *decider) shrink(pc *poolContext) bool {
	s := pc.p.Shrink
	if !s.IsSet() || d.shrinking(pc) {
		return false
	}
	cooldown := time.Duration(d.in.Autoscaling.EffectiveCooldownSeconds()) * time.Second
	if wait := d.lastStep(pc.p.Name).Add(cooldown).Sub(d.in.Now); wait > 0 {
		d.wake(wait)
		return false
	}
	idleFor := time.Duration(s.EffectiveIdleSeconds()) * time.Second
	var best *v1alpha1.IdleRange
	for i := range pc.st.IdleRanges {
		ir := &pc.st.IdleRanges[i]
		if wait := ir.Since.Add(idleFor).Sub(d.in.Now); wait > 0 {
			d.wake(wait)
			continue
		}
		if !slices.ContainsFunc(pc.serving, func(r servingRange) bool { return r.name == ir.Name }) {
			continue // inside another range: consolidation's business
		}
		without := d.serving(&pc.spec, pc.p.NodeSelector, &pc.union, ir.Name)
		f := pc.forecast
		f.capacity, f.free = totals(without)
		if !f.aboveShrink(s) || f.belowGrow(pc.p.Grow) {
			continue
		}
		if best == nil || ir.Since.Before(best.Since) || (ir.Since.Equal(best.Since) && ir.Name < best.Name) {
			best = ir
		}
	}
	if best == nil {
		return false
	}
	var cidrOf string
	for _, a := range d.set {
		if a.Name == best.Name {
			cidrOf = string(a.CIDR)
		}
	}
	why := fmt.Sprintf("range %q (%s) has held no block since %s and the pool's thresholds hold without it",
		best.Name, cidrOf, best.Since.UTC().Format(time.RFC3339))
	if !pc.auto {
		pc.st.State = v1alpha1.PoolRecommending
		pc.st.Recommendation = v1alpha1.AutoscalingRecommendation{Action: v1alpha1.ActionRemove, CIDR: cidrOf, Range: best.Name}
		pc.st.Message = "It would remove " + why
		d.steps = append(d.steps, Step{Pool: pc.p.Name, Action: string(v1alpha1.ActionRemove), Recommended: true})
		return true
	}
	d.remove(best.Name)
	pc.st.State = v1alpha1.PoolShrinking
	pc.st.Message = "Removed " + why
	ev := normal(v1alpha1.AutoscaledRangeRemovedEvent, string(v1alpha1.ActionRemove), fmt.Sprintf("Pool %q removed %s", pc.p.Name, why))
	ev.Pool, ev.Range = pc.p.Name, best.Name
	d.events = append(d.events, ev)
	d.steps = append(d.steps, Step{Pool: pc.p.Name, Action: string(v1alpha1.ActionRemove)})
	return true
}

func valueOf(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// report writes the pool's numbers into its status.
func (d *decider) report(pc *poolContext) {
	f := pc.forecast
	st := pc.st
	st.CapacityBlocks, st.FreeBlocks = ptrTo(f.capacity), ptrTo(f.free)
	st.WaitingNodes = ptrTo(int32(min(f.waiting, math.MaxInt32)))
	st.BlocksPerHour = ptrTo(int64(math.Round(f.rate * 3600)))
	st.LeadTimeSeconds = ptrTo(int32(f.lead / time.Second))
	if e, ok := f.exhaustion(); ok {
		st.ExhaustionSeconds = ptrTo(int64(e / time.Second))
	}
}
