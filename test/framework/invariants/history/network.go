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

package history

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// trackedRange is one entry of PodNetwork status.ranges as last observed.
type trackedRange struct {
	name, cidr string
	prefix     netip.Prefix
	ok         bool // cidr parsed
	phase      v1alpha1.RangePhase
	nms        int32
	invalid    bool // invalidReason set
}

// network is the PodNetwork and the PodNetworkConsumers as of the RV being
// replayed.
type network struct {
	pn        *v1alpha1.PodNetwork // nil before the first observation and after deletion
	seen      bool                 // a PodNetwork observation was replayed
	ranges    []*trackedRange      // status order
	byName    map[string]*trackedRange
	consumers map[string]*v1alpha1.PodNetworkConsumer
	nodeIPAM  string
	// autoscaled are the ranges of AutoscaledRangeSet default, declared
	// beside spec.ranges.
	autoscaled []v1alpha1.AutoscaledRange
}

func newNetwork(nodeIPAM string) *network {
	return &network{byName: map[string]*trackedRange{}, consumers: map[string]*v1alpha1.PodNetworkConsumer{}, nodeIPAM: nodeIPAM}
}

func parseRanges(pn *v1alpha1.PodNetwork) []*trackedRange {
	if pn == nil {
		return nil
	}
	out := make([]*trackedRange, 0, len(pn.Status.Ranges))
	for i := range pn.Status.Ranges {
		rs := &pn.Status.Ranges[i]
		r := &trackedRange{name: rs.Name, cidr: rs.CIDR, phase: rs.Phase, nms: rs.NodeMaskSize, invalid: rs.InvalidReason != ""}
		if p, err := netip.ParsePrefix(rs.CIDR); err == nil {
			r.prefix, r.ok = p.Masked(), true
		}
		out = append(out, r)
	}
	return out
}

// rangeChange is what one PodNetwork observation did to one range.
type rangeChange struct {
	name, cidr string
	from, to   string // phases; "(new)" and "(purged)" at the ends
	r          *trackedRange
}

const (
	fromNew  = "(new)"
	toPurged = "(purged)"
)

// observePodNetwork replaces the PodNetwork and returns the changes it
// made to the ranges. The first observation of a history changes nothing:
// what led to it was not seen.
func (nw *network) observePodNetwork(pn *v1alpha1.PodNetwork, deleted bool) []rangeChange {
	if deleted {
		pn = nil
	}
	next := parseRanges(pn)
	first := !nw.seen
	nw.seen = true
	var changes []rangeChange
	nextByName := make(map[string]*trackedRange, len(next))
	for _, r := range next {
		nextByName[r.name] = r
		old := nw.byName[r.name]
		switch {
		case first:
		case old == nil || old.cidr != r.cidr:
			changes = append(changes, rangeChange{name: r.name, cidr: r.cidr, from: fromNew, to: string(r.phase), r: r})
		case old.phase != r.phase:
			changes = append(changes, rangeChange{name: r.name, cidr: r.cidr, from: string(old.phase), to: string(r.phase), r: r})
		}
	}
	for _, old := range nw.ranges {
		if n := nextByName[old.name]; n == nil || n.cidr != old.cidr {
			changes = append(changes, rangeChange{name: old.name, cidr: old.cidr, from: string(old.phase), to: toPurged, r: old})
		}
	}
	nw.pn, nw.ranges, nw.byName = pn, next, nextByName
	return changes
}

func (nw *network) observeConsumer(c *v1alpha1.PodNetworkConsumer, deleted bool) {
	if deleted {
		delete(nw.consumers, c.Name)
		return
	}
	nw.consumers[c.Name] = c
}

// unacked returns, sorted, the required consumers (spec.required true or
// unset, not being deleted) that have no Accepted acknowledgement of range
// name/cidr in phase.
func (nw *network) unacked(name, cidr string, phase v1alpha1.RangePhase) []string {
	rs := v1alpha1.RangeStatus{Name: name, CIDR: cidr, Phase: phase}
	var out []string
	for _, c := range nw.consumers {
		if !c.IsRequired() || c.DeletionTimestamp != nil {
			continue
		}
		if acked, _, _ := v1alpha1.AckState(c.Status.Ranges, &rs); !acked {
			out = append(out, c.Name)
		}
	}
	slices.Sort(out)
	return out
}

// nodeIPAMAckedDraining reports whether NodeIPAM's consumer currently shows
// an Accepted acknowledgement of r in phase Draining: from then on it
// promises that no node write with a block in r is in flight.
func (nw *network) nodeIPAMAckedDraining(r *trackedRange) bool {
	c := nw.consumers[nw.nodeIPAM]
	if c == nil {
		return false
	}
	acked, _, _ := v1alpha1.AckState(c.Status.Ranges, &v1alpha1.RangeStatus{Name: r.name, CIDR: r.cidr, Phase: v1alpha1.RangePhaseDraining})
	return acked
}

// containing returns the tracked ranges that contain p.
func (nw *network) containing(p netip.Prefix) []*trackedRange {
	var out []*trackedRange
	for _, r := range nw.ranges {
		if r.ok && r.prefix.Bits() <= p.Bits() && r.prefix.Contains(p.Addr()) {
			out = append(out, r)
		}
	}
	return out
}

// placement judges a podCIDR NodeIPAM wrote at the current RV (see the
// package documentation, inside-active): ok when a range containing it is
// Active, or Draining without NodeIPAM's Draining acknowledgement yet
// (race is then true), and p has that range's nodeMaskSize.
func (nw *network) placement(p netip.Prefix) (ok, race bool, why string) {
	rs := nw.containing(p)
	var seen []string
	for _, r := range rs {
		seen = append(seen, fmt.Sprintf("%s %s %s", r.name, r.cidr, r.phase))
		legal := r.phase == v1alpha1.RangePhaseActive
		inRace := r.phase == v1alpha1.RangePhaseDraining && !nw.nodeIPAMAckedDraining(r)
		if !legal && !inRace {
			continue
		}
		if r.nms != 0 && int(r.nms) != p.Bits() {
			return false, false, fmt.Sprintf("it is not a /%d block of range %s (%s)", r.nms, r.name, r.cidr)
		}
		if legal {
			return true, false, ""
		}
		race = true
	}
	if race {
		return true, true, ""
	}
	if len(rs) == 0 {
		return false, false, "it lies in no tracked range"
	}
	return false, false, fmt.Sprintf("no range containing it is Active or Draining before node-ipam acknowledged Draining (%s)", strings.Join(seen, "; "))
}

// coveredByOtherActive reports whether p lies inside an Active range other
// than the one named exclude.
func (nw *network) coveredByOtherActive(p netip.Prefix, exclude string) bool {
	for _, r := range nw.containing(p) {
		if r.name != exclude && r.phase == v1alpha1.RangePhaseActive {
			return true
		}
	}
	return false
}

// observeAutoscaled replaces the autoscaler's declared ranges.
func (nw *network) observeAutoscaled(set *v1alpha1.AutoscaledRangeSet, deleted bool) {
	if set.Name != v1alpha1.AutoscaledRangeSetName {
		return
	}
	nw.autoscaled = nil
	if !deleted && set.Spec != nil {
		nw.autoscaled = set.Spec.Ranges
	}
}

// spec returns the declared range named name with that cidr, if any: the
// spec's (which wins when both declare the same name and cidr, as the
// lifecycle's union does), else the autoscaler's.
func (nw *network) spec(name, cidr string) *v1alpha1.PodCIDRRange {
	if nw.pn == nil {
		return nil
	}
	for i := range nw.pn.Spec.Ranges {
		if s := &nw.pn.Spec.Ranges[i]; s.Name == name && s.CIDR == cidr {
			return s
		}
	}
	for _, a := range nw.autoscaled {
		if a.Name == name && string(a.CIDR) == cidr {
			return &v1alpha1.PodCIDRRange{Name: a.Name, CIDR: string(a.CIDR), NodeMaskSize: a.NodeMaskSize, NodeSelector: a.NodeSelector}
		}
	}
	return nil
}

// policy returns the recycle delay and whether reuse must wait for it
// (whenExhausted Wait), as the PodNetwork spec says now.
func (nw *network) policy() (delaySeconds int32, wait bool) {
	delaySeconds, wait = 60, true
	if nw.pn == nil {
		return delaySeconds, wait
	}
	a := nw.pn.Spec.Allocation
	if a == nil {
		return delaySeconds, wait
	}
	if a.RecycleDelaySeconds != nil {
		delaySeconds = *a.RecycleDelaySeconds
	}
	return delaySeconds, a.WhenExhausted != v1alpha1.WhenExhaustedReuseOldest
}
