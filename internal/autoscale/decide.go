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
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/declared"
	"podnetwork.io/operator/internal/nodeipam"
)

// decider holds one Decide call.
type decider struct {
	in        *Input
	now       metav1.Time
	set       []v1alpha1.AutoscaledRange // the set as decided so far
	changed   bool
	tracked   map[string]*v1alpha1.RangeStatus
	required  map[string]bool
	prevPools map[string]*v1alpha1.AutoscalingPoolStatus
	hard      *space // ServiceCIDRs and node addresses, built on first use
	hardErr   error
	events    []Event
	steps     []Step
	requeue   time.Duration
}

// Decide runs the autoscaler once. See the package documentation.
func Decide(in Input) Output {
	as := &in.Autoscaling
	if !as.IsSet() {
		return Output{Set: slices.Clone(in.Set)}
	}
	d := newDecider(&in)
	status := &v1alpha1.AutoscalingStatus{Mode: as.Mode}
	switch as.Mode {
	case v1alpha1.AutoscalingAuto, v1alpha1.AutoscalingRecommend:
		if as.Mode == v1alpha1.AutoscalingAuto {
			d.dropAdopted()
		}
		var lines []string
		for i := range as.Pools {
			ps := d.pool(&as.Pools[i])
			status.Pools = append(status.Pools, ps)
			lines = append(lines, summaryLine(&ps))
		}
		status.Message = truncate(strings.Join(lines, "; "))
		if len(lines) == 0 {
			status.Message = "No pools are declared"
		}
	default:
		status.Message = "Autoscaling is Off: nothing is added or removed"
	}
	return Output{
		Set:          d.set,
		SetChanged:   d.changed,
		Status:       status,
		Events:       d.events,
		Steps:        d.steps,
		RequeueAfter: d.requeueAfter(),
	}
}

func newDecider(in *Input) *decider {
	d := &decider{
		in:        in,
		now:       metav1.NewTime(in.Now.Truncate(time.Second)),
		set:       slices.Clone(in.Set),
		tracked:   map[string]*v1alpha1.RangeStatus{},
		required:  map[string]bool{},
		prevPools: map[string]*v1alpha1.AutoscalingPoolStatus{},
	}
	for i := range in.Status.Ranges {
		d.tracked[in.Status.Ranges[i].Name] = &in.Status.Ranges[i]
	}
	for _, c := range in.Status.Consumers {
		d.required[c.Name] = c.Required
	}
	if a := in.Status.Autoscaling; a != nil {
		for i := range a.Pools {
			d.prevPools[a.Pools[i].Name] = &a.Pools[i]
		}
	}
	return d
}

// union declares the admin's ranges with the set as decided so far.
func (d *decider) union() declared.Result {
	return declared.Union(d.in.Spec, &v1alpha1.AutoscaledRangeSet{Spec: &v1alpha1.AutoscaledRangeSetSpec{Ranges: d.set}})
}

// dropAdopted removes the entries the admin adopted (copied verbatim into
// spec.ranges): the range is the admin's now, and must stay theirs if they
// later remove it.
func (d *decider) dropAdopted() {
	for _, name := range d.union().Adopted {
		d.remove(name)
		ev := normal(v1alpha1.AutoscaledRangeRemovedEvent, "Adopt",
			fmt.Sprintf("Range %q is declared verbatim in spec.ranges: it is the admin's now, and the autoscaler no longer holds it", name))
		ev.Range = name
		d.events = append(d.events, ev)
	}
}

// remove deletes the named entry from the set.
func (d *decider) remove(name string) {
	d.set = slices.DeleteFunc(d.set, func(a v1alpha1.AutoscaledRange) bool { return a.Name == name })
	d.changed = true
}

// wake asks Decide to run again after at most after.
func (d *decider) wake(after time.Duration) {
	if after > 0 && (d.requeue == 0 || after < d.requeue) {
		d.requeue = after
	}
}

func (d *decider) requeueAfter() time.Duration {
	if d.requeue == 0 || d.requeue > maxRequeue {
		return maxRequeue
	}
	return d.requeue
}

// space returns what carving avoids now: ServiceCIDRs, node addresses, and
// every range the admin wrote, the set holds or status tracks.
func (d *decider) space() (*space, error) {
	if d.hard == nil && d.hardErr == nil {
		d.hard, d.hardErr = newSpace(d.in.ServiceCIDRs, d.in.Nodes)
	}
	if d.hardErr != nil {
		return nil, d.hardErr
	}
	s := &space{hard: d.hard.hard}
	for i := range d.in.Spec {
		r := &d.in.Spec[i]
		if p, err := r.Prefix(); err == nil {
			s.add(p, r.EffectiveNodeMaskSize())
		}
	}
	for i := range d.set {
		if p, err := d.set[i].Prefix(); err == nil {
			s.add(p, d.set[i].NodeMaskSize)
		}
	}
	for _, rs := range d.in.Status.Ranges {
		if p, err := rs.Prefix(); err == nil {
			s.add(p, rs.NodeMaskSize)
		}
	}
	return s, nil
}

// poolRanges returns the set entries of the pool that the union declares
// as the autoscaler's (not adopted), in set order.
func (d *decider) poolRanges(pool string, union *declared.Result) []*v1alpha1.AutoscaledRange {
	var out []*v1alpha1.AutoscaledRange
	for i := range d.set {
		if a := &d.set[i]; a.Pool == pool && union.Pools[a.Name] == pool {
			out = append(out, a)
		}
	}
	return out
}

// nextName returns "<pool>-<n>" with n above every number any range of
// that form carries in spec, the set or status, so a name is never reused
// while its former range may still be tracked.
func (d *decider) nextName(pool string) string {
	n := 0
	see := func(name string) {
		if rest, ok := strings.CutPrefix(name, pool+"-"); ok {
			if k, err := strconv.Atoi(rest); err == nil && k > n {
				n = k
			}
		}
	}
	for _, r := range d.in.Spec {
		see(r.Name)
	}
	for _, a := range d.set {
		see(a.Name)
	}
	for _, rs := range d.in.Status.Ranges {
		see(rs.Name)
	}
	return fmt.Sprintf("%s-%d", pool, n+1)
}

// lastStep returns when the pool last changed: a range it added (addedTime)
// or the latest phase change of a range it holds or held.
func (d *decider) lastStep(pool string) time.Time {
	var last time.Time
	for _, a := range d.set {
		if a.Pool == pool && a.AddedTime != nil && a.AddedTime.After(last) {
			last = a.AddedTime.Time
		}
	}
	for _, rs := range d.in.Status.Ranges {
		if rs.Pool == pool && rs.PhaseSince != nil && rs.PhaseSince.After(last) {
			last = rs.PhaseSince.Time
		}
	}
	return last
}

// disjointCount returns how many of the pool's ranges, with extra if
// valid, no other of them strictly contains: what maxRanges limits.
func disjointCount(ranges []*v1alpha1.AutoscaledRange, extra netip.Prefix) int32 {
	var ps []netip.Prefix
	for _, a := range ranges {
		if p, err := a.Prefix(); err == nil {
			ps = append(ps, p.Masked())
		}
	}
	if extra.IsValid() {
		ps = append(ps, extra)
	}
	n := int32(0)
	for _, p := range ps {
		if !slices.ContainsFunc(ps, func(o netip.Prefix) bool { return o.Bits() < p.Bits() && o.Contains(p.Addr()) }) {
			n++
		}
	}
	return n
}

// poolContext is what the steps of one pool share.
type poolContext struct {
	p        *v1alpha1.AutoscalingPool
	spec     poolSpec
	sel      *nodeipam.NodeSelector
	auto     bool
	union    declared.Result
	serving  []servingRange
	forecast forecast
	st       *v1alpha1.AutoscalingPoolStatus
	prev     *v1alpha1.AutoscalingPoolStatus
}

// sortServing orders serving ranges largest first, then by address: the
// order expansions are tried in.
func sortServing(rs []servingRange) {
	slices.SortFunc(rs, func(a, b servingRange) int {
		return cmp.Or(cmp.Compare(a.prefix.Bits(), b.prefix.Bits()), a.prefix.Addr().Compare(b.prefix.Addr()))
	})
}

// newRange returns the set entry for a range the pool adds.
func (d *decider) newRange(pc *poolContext, p netip.Prefix) v1alpha1.AutoscaledRange {
	return v1alpha1.AutoscaledRange{
		Name:         d.nextName(pc.p.Name),
		Pool:         pc.p.Name,
		CIDR:         v1alpha1.CIDRString(p.String()),
		NodeMaskSize: pc.spec.nms,
		NodeSelector: pc.p.NodeSelector.DeepCopy(),
		AddedTime:    ptr.To(d.now),
	}
}
