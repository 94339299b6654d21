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

// Package lifecycle is the pure state machine that moves the ranges of the
// PodNetwork through their phases. Compute takes a snapshot of everything it
// depends on (spec, previous status, consumers and their acknowledgements,
// nodes, ServiceCIDRs, the time) and returns the new status, the conditions,
// the events to emit and whether the finalizer can go. It never talks to the
// API server.
//
// Transitions (a consumer "acked" a phase when its status has an Accepted
// entry with the range's name, cidr and that phase; only required consumers
// that are not being deleted are waited for):
//
//   - a spec range that is not tracked becomes Pending. A range that overlaps
//     a ServiceCIDR, a node address or another tracked range (other than as a
//     strict supernet or subnet with the same nodeMaskSize) stays Pending with
//     invalidReason set and is never offered to consumers;
//   - Pending → Active when it is valid, every required consumer acked
//     Pending and none rejected it;
//   - Pending → Released when it leaves the spec before becoming Active;
//   - Active → Draining as soon as it leaves the spec (or the PodNetwork is
//     being deleted);
//   - Draining → Active when the same name, cidr and nodeMaskSize are back in
//     the spec;
//   - Draining → Released when every required consumer acked Draining and no
//     node holds a pod CIDR overlapping the range that is not inside another
//     Active range (so a range covered by an Active supernet is released
//     without replacing nodes);
//   - Released → purged (no longer tracked) when every required consumer
//     acked Released.
//
// A name stays bound to its cidr while it is tracked: a spec range whose name
// is tracked with another cidr or nodeMaskSize waits (Degraded says so) until the
// old range is purged, and a range re-added with the same name and cidr while
// Released also waits for the purge and then starts over as a new Pending
// range. A cidr that is still tracked cannot be reused under another name
// (RangeConflict) until it is purged.
//
// Transitions chain within one Compute call until nothing moves, so one
// reconcile reaches the resting state. Each one is recorded once
// (Output.Transitions), and the events are derived afterwards from those
// records and from what changed between the previous status and the new one
// (events.go): a transition is announced by exactly one event and counted
// once.
package lifecycle

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
)

// maxIterations bounds the transition loop; each range moves at most four
// times (e.g. Active → Draining → Released → purged → Pending) per call.
const maxIterations = 8

type specRange struct {
	r      *v1alpha1.PodCIDRRange
	prefix netip.Prefix
	nms    int32
	err    string // why cidr cannot be used at all
}

type entry struct {
	st     v1alpha1.RangeStatus
	prefix netip.Prefix
	ok     bool                  // cidr is a canonical prefix
	prev   *v1alpha1.RangeStatus // the previous status entry with this name, if any
	moved  bool                  // the phase changed in this Compute
	// garbage says why cidr cannot be used ("" when it can): the status was
	// edited by hand. Such a range is never released.
	garbage string
	// held is true for a range another client re-addressed while it was not
	// in the spec (invalidReason StatusEdited): it is never released.
	held bool
}

type computer struct {
	in         *Input
	now        metav1.Time
	spec       []*specRange
	specByName map[string]*specRange
	consumers  []Consumer // not being deleted, sorted by name
	entries    map[string]*entry
	prevByName map[string]*v1alpha1.RangeStatus
	nodes      []Node
	// transitions are the phase changes made so far, in order.
	transitions []Transition
	// repairs are the StatusEdited events of repair, which explain the
	// phase changes it made.
	repairs []Event
}

// Compute runs the state machine once. See the package documentation.
func Compute(in Input) Output {
	c := newComputer(&in)
	for range maxIterations {
		changed := c.specTransitions()
		changed = c.addNewEntries() || changed
		c.validate()
		changed = c.ackTransitions() || changed
		if !changed {
			break
		}
	}
	return c.output()
}

func newComputer(in *Input) *computer {
	c := &computer{
		in:         in,
		now:        metav1.NewTime(in.Now.Truncate(time.Second)),
		specByName: map[string]*specRange{},
		entries:    map[string]*entry{},
		prevByName: map[string]*v1alpha1.RangeStatus{},
	}
	if !in.Deleting {
		for i := range in.Spec {
			s := parseSpecRange(&in.Spec[i])
			c.spec = append(c.spec, s)
			c.specByName[s.r.Name] = s
		}
	}
	for _, cons := range in.Consumers {
		if !cons.Deleting {
			c.consumers = append(c.consumers, cons)
		}
	}
	sort.Slice(c.consumers, func(i, j int) bool { return c.consumers[i].Name < c.consumers[j].Name })
	for i := range in.Status.Ranges {
		prev := &in.Status.Ranges[i]
		c.prevByName[prev.Name] = prev
		e := &entry{st: *prev.DeepCopy(), prev: prev, held: prev.InvalidReason == v1alpha1.RangeInvalidStatusEdited}
		// The lifecycle writes only canonical cidrs; any other was written
		// by hand.
		if p, err := cidr.ParseCanonical(prev.CIDR); err != nil {
			e.garbage = fmt.Sprintf("cidr %q in status is not a canonical prefix (%v)", prev.CIDR, err)
		} else {
			e.prefix, e.ok = p, true
		}
		c.entries[prev.Name] = e
	}
	// The nodes stay in the order given: what lists node names sorts the
	// few it lists (holders, foreignNodes, validate), which at 100,000 nodes
	// cost a fraction of sorting them all on every reconcile.
	c.nodes = make([]Node, 0, len(in.Nodes))
	for _, n := range in.Nodes {
		c.nodes = append(c.nodes, Node{Name: n.Name, Addresses: n.Addresses,
			UnreadablePodCIDRs: n.UnreadablePodCIDRs, PodCIDRs: validMasked(n.PodCIDRs)})
	}
	c.repair()
	return c
}

// validMasked returns the valid prefixes of ps, masked: ps itself when that
// is what it holds already (NodeFrom reads podCIDRs masked), so the usual
// node costs no copy.
func validMasked(ps []netip.Prefix) []netip.Prefix {
	clean := true
	for _, p := range ps {
		if !p.IsValid() || p != p.Masked() {
			clean = false
			break
		}
	}
	if clean {
		return ps
	}
	var out []netip.Prefix
	for _, p := range ps {
		if p.IsValid() {
			out = append(out, p.Masked())
		}
	}
	return out
}

func parseSpecRange(r *v1alpha1.PodCIDRRange) *specRange {
	s := &specRange{r: r}
	p, err := cidr.ParseCanonical(r.CIDR)
	if err != nil {
		s.err = err.Error()
		return s
	}
	s.prefix = p
	s.nms = r.EffectiveNodeMaskSize()
	return s
}

// sortedNames returns the names of the tracked ranges in order.
func (c *computer) sortedNames() []string {
	names := make([]string, 0, len(c.entries))
	for n := range c.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// inSpec reports whether the spec holds the range of e: same name, cidr and
// nodeMaskSize.
func (c *computer) inSpec(e *entry) bool {
	s := c.specByName[e.st.Name]
	return s != nil && s.err == "" && e.ok && s.prefix == e.prefix && s.nms == e.st.NodeMaskSize
}

// setPhase moves e to phase and records the transition.
func (c *computer) setPhase(e *entry, phase v1alpha1.RangePhase) {
	c.record(e, phase, false)
	e.st.Phase = phase
	e.st.PhaseSince = ptr.To(c.now)
	e.moved = true
	e.st.Awaiting = nil
	e.st.Rejections = nil
	e.st.Holders = nil
	e.st.HolderCount = 0
}

// record appends the transition of e from its current phase to phase.
func (c *computer) record(e *entry, to v1alpha1.RangePhase, repair bool) {
	c.transitions = append(c.transitions, Transition{
		Range: e.st.Name, CIDR: e.st.CIDR, From: e.st.Phase, To: to,
		FromSince: e.st.PhaseSince, At: c.now, Repair: repair,
	})
}

// specTransitions applies the transitions driven by the spec alone.
func (c *computer) specTransitions() bool {
	changed := false
	for _, name := range c.sortedNames() {
		e := c.entries[name]
		inSpec := c.inSpec(e)
		switch e.st.Phase {
		case v1alpha1.RangePhasePending:
			if !inSpec {
				c.setPhase(e, v1alpha1.RangePhaseReleased)
				changed = true
			}
		case v1alpha1.RangePhaseActive:
			if !inSpec {
				c.setPhase(e, v1alpha1.RangePhaseDraining)
				changed = true
			}
		case v1alpha1.RangePhaseDraining:
			if inSpec {
				c.setPhase(e, v1alpha1.RangePhaseActive)
				changed = true
			}
		case v1alpha1.RangePhaseReleased:
			// Only acknowledgements move a Released range.
		}
	}
	return changed
}

// addNewEntries tracks every usable spec range whose name is not tracked yet
// as Pending.
func (c *computer) addNewEntries() bool {
	changed := false
	for _, s := range c.spec {
		if s.err != "" || c.entries[s.r.Name] != nil || len(c.entries) >= v1alpha1.MaxStatusRanges {
			continue
		}
		e := &entry{
			st: v1alpha1.RangeStatus{
				Name:         s.r.Name,
				CIDR:         s.prefix.String(),
				IPFamily:     v1alpha1.FamilyOf(s.prefix),
				NodeMaskSize: s.nms,
				Phase:        v1alpha1.RangePhasePending,
				PhaseSince:   ptr.To(c.now),
			},
			prefix: s.prefix,
			ok:     true,
		}
		c.entries[s.r.Name] = e
		c.transitions = append(c.transitions, Transition{Range: s.r.Name, CIDR: e.st.CIDR, To: v1alpha1.RangePhasePending, At: c.now})
		changed = true
	}
	return changed
}

// ackTransitions applies the transitions that wait for consumers and nodes.
func (c *computer) ackTransitions() bool {
	changed := false
	for _, name := range c.sortedNames() {
		e := c.entries[name]
		switch e.st.Phase {
		case v1alpha1.RangePhasePending:
			if c.inSpec(e) && e.st.InvalidReason == "" && (c.allAcked(e) || seededBugPrematureActivation && c.anyAcked(e)) {
				c.setPhase(e, v1alpha1.RangePhaseActive)
				changed = true
			}
		case v1alpha1.RangePhaseDraining:
			if !c.frozen(e) && c.allAcked(e) && len(c.holders(e)) == 0 {
				c.setPhase(e, v1alpha1.RangePhaseReleased)
				changed = true
			}
		case v1alpha1.RangePhaseReleased:
			if c.allAcked(e) {
				c.record(e, "", false)
				delete(c.entries, name)
				changed = true
			}
		}
	}
	return changed
}

// allAcked reports whether every required consumer accepted the current phase
// of e.
func (c *computer) allAcked(e *entry) bool {
	for i := range c.consumers {
		if !c.consumers[i].Required {
			continue
		}
		if acked, _, _ := v1alpha1.AckState(c.consumers[i].Acks, &e.st); !acked {
			return false
		}
	}
	return true
}

// anyAcked reports whether some required consumer accepted the current
// phase of e: only the seeded bug seededBugPrematureActivation uses it.
func (c *computer) anyAcked(e *entry) bool {
	for i := range c.consumers {
		if c.consumers[i].Required {
			if acked, _, _ := v1alpha1.AckState(c.consumers[i].Acks, &e.st); acked {
				return true
			}
		}
	}
	return false
}

// coveredByOtherActive reports whether p lies inside an Active range other
// than the one named exclude.
func (c *computer) coveredByOtherActive(p netip.Prefix, exclude string) bool {
	for name, o := range c.entries {
		if name != exclude && o.ok && o.st.Phase == v1alpha1.RangePhaseActive &&
			o.prefix.Bits() <= p.Bits() && o.prefix.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

// frozen reports whether nothing tells which addresses e stands for, so
// it must never be released: its status was edited by hand.
func (c *computer) frozen(e *entry) bool {
	return e.garbage != "" || e.held
}

// holders returns the sorted names of the nodes that hold a pod CIDR
// overlapping e that is not inside another Active range, and of the nodes
// with a podCIDR that cannot be read, which may lie anywhere.
func (c *computer) holders(e *entry) []string {
	if !e.ok {
		return nil
	}
	var out []string
	for _, n := range c.nodes {
		if len(n.UnreadablePodCIDRs) > 0 {
			out = append(out, n.Name)
			continue
		}
		for _, p := range n.PodCIDRs {
			if p.Overlaps(e.prefix) && !c.coveredByOtherActive(p, e.st.Name) {
				out = append(out, n.Name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}
