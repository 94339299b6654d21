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

package lifecycle

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/text"
)

type problem struct {
	reason  v1alpha1.RangeInvalidReason
	message string
}

// heldMessage is the invalidMessage of a range held Draining because
// another client changed its cidr or nodeMaskSize while it was not in the
// spec (repair).
const heldMessage = "another client changed its cidr or nodeMaskSize in status while it was not in the spec, " +
	"so nothing tells which prefix nodes and consumers use; it is held Draining and never released. " +
	"Once no node uses its original prefix, remove its entry from status by hand; or add it back to the spec under its name"

// validate recomputes invalidReason and invalidMessage of every tracked range.
// A range whose status was edited by hand into something unusable (repair)
// says so in any phase. Otherwise Pending ranges are checked fully; Active
// ranges only for conflicts that can appear after activation (ServiceCIDRs
// and node addresses), which are reported but never demote them; other
// phases carry no invalidReason.
func (c *computer) validate() {
	for _, name := range c.sortedNames() {
		e := c.entries[name]
		var ps []problem
		switch {
		case e.held:
			ps = []problem{{v1alpha1.RangeInvalidStatusEdited, heldMessage}}
		case e.garbage != "":
			ps = []problem{{v1alpha1.RangeInvalidCIDR, e.garbage + "; the status was edited by hand, so nothing tells which nodes hold blocks in the range and it is never released"}}
		case c.inSpec(e):
			switch e.st.Phase {
			case v1alpha1.RangePhasePending:
				ps = c.problems(e, true)
			case v1alpha1.RangePhaseActive:
				ps = c.problems(e, false)
			}
		}
		e.st.InvalidReason, e.st.InvalidMessage = "", ""
		if len(ps) > 0 {
			msgs := make([]string, 0, len(ps))
			for _, p := range ps {
				msgs = append(msgs, p.message)
			}
			e.st.InvalidReason = ps[0].reason
			e.st.InvalidMessage = text.Message(strings.Join(msgs, "; "))
		}
	}
}

func (c *computer) problems(e *entry, pending bool) []problem {
	var ps []problem
	if pending {
		if msg := nodeMaskProblem(e.prefix, e.st.NodeMaskSize); msg != "" {
			ps = append(ps, problem{v1alpha1.RangeInvalidCIDR, msg})
		}
		for _, name := range c.sortedNames() {
			o := c.entries[name]
			if name == e.st.Name || !o.ok {
				continue
			}
			if msg := c.rangeConflict(e, o); msg != "" {
				ps = append(ps, problem{v1alpha1.RangeInvalidRangeConflict, msg})
			}
		}
	}
	svcs := append([]ServiceCIDR(nil), c.in.ServiceCIDRs...)
	sort.Slice(svcs, func(i, j int) bool { return svcs[i].Name < svcs[j].Name })
	for _, svc := range svcs {
		for _, p := range svc.CIDRs {
			if p.IsValid() && p.Masked().Overlaps(e.prefix) {
				msg := fmt.Sprintf("overlaps ServiceCIDR %q (%s)", svc.Name, p.Masked())
				if svc.Deleting {
					msg += ", which is being deleted but may still hold service addresses"
				}
				ps = append(ps, problem{v1alpha1.RangeInvalidServiceCIDROverlap, msg})
			}
		}
	}
	type hit struct{ node, text string }
	var hits []hit
	for _, n := range c.nodes {
		for _, a := range n.Addresses {
			if a.IsValid() && e.prefix.Contains(a.Unmap()) {
				hits = append(hits, hit{n.Name, fmt.Sprintf("%s of node %q", a.Unmap(), n.Name)})
			}
		}
	}
	if len(hits) > 0 {
		// Nodes by name (c.nodes has no order), each node's addresses in
		// its order.
		slices.SortStableFunc(hits, func(a, b hit) int { return strings.Compare(a.node, b.node) })
		texts := make([]string, len(hits))
		for i, h := range hits {
			texts[i] = h.text
		}
		ps = append(ps, problem{v1alpha1.RangeInvalidNodeAddressOverlap, "contains the address " + listWords(texts, 3)})
	}
	return ps
}

// rangeConflict explains why e may not coexist with o, or returns "". Two
// ranges may overlap only when one strictly contains the other and both have
// the same nodeMaskSize.
func (c *computer) rangeConflict(e, o *entry) string {
	switch overlapConflict(e.prefix, e.st.NodeMaskSize, o.prefix, o.st.NodeMaskSize) {
	case conflictSameCIDR:
		if c.inSpec(o) {
			return fmt.Sprintf("has the same cidr as range %q", o.st.Name)
		}
		return fmt.Sprintf("cidr %s is still tracked as range %q (%s); it can be used under another name once %q has been purged",
			e.st.CIDR, o.st.Name, o.st.Phase, o.st.Name)
	case conflictNodeMaskSize:
		return fmt.Sprintf("overlaps range %q (%s, %s) but has nodeMaskSize %d instead of %d; ranges that contain one another must have the same nodeMaskSize",
			o.st.Name, o.st.CIDR, o.st.Phase, e.st.NodeMaskSize, o.st.NodeMaskSize)
	}
	return ""
}

// conflict is how two ranges break the overlap rule.
type conflict int

const (
	conflictNone conflict = iota
	conflictSameCIDR
	conflictNodeMaskSize
)

// overlapConflict is the overlap rule, the one the CRD's CEL rule on
// spec.ranges enforces at admission: ranges may overlap only when one
// strictly contains the other and both have the same nodeMaskSize
// (expansion in place). Two overlapping prefixes of one length are equal.
func overlapConflict(a netip.Prefix, aNMS int32, b netip.Prefix, bNMS int32) conflict {
	switch {
	case !a.Overlaps(b):
		return conflictNone
	case a == b:
		return conflictSameCIDR
	case aNMS != bNMS:
		return conflictNodeMaskSize
	}
	return conflictNone
}

// SpecConflicts names every pair of ranges that break the overlap rule,
// once per pair in the order of the list: the CRD's CEL rule refuses such
// a spec with one message for all of them (naming the ranges would exceed
// its cost budget), so the kubectl plugin says which they are. Ranges
// whose cidr does not parse are left to the CRD's other rules.
func SpecConflicts(ranges []v1alpha1.PodCIDRRange) []string {
	var out []string
	for i := range ranges {
		a := &ranges[i]
		ap, err := a.Prefix()
		ap = ap.Masked()
		if err != nil {
			continue
		}
		for j := i + 1; j < len(ranges); j++ {
			b := &ranges[j]
			bp, err := b.Prefix()
			bp = bp.Masked()
			if err != nil {
				continue
			}
			switch overlapConflict(ap, a.EffectiveNodeMaskSize(), bp, b.EffectiveNodeMaskSize()) {
			case conflictSameCIDR:
				out = append(out, fmt.Sprintf("ranges %q and %q have the same cidr %s", a.Name, b.Name, ap))
			case conflictNodeMaskSize:
				out = append(out, fmt.Sprintf("range %q (%s, nodeMaskSize %d) overlaps range %q (%s, nodeMaskSize %d); ranges that contain one another must have the same nodeMaskSize",
					a.Name, ap, a.EffectiveNodeMaskSize(), b.Name, bp, b.EffectiveNodeMaskSize()))
			}
		}
	}
	return out
}

// nodeMaskProblem applies the one range rule (cidr.ValidateRange, which the
// CRD's CEL bounds mirror) to a tracked range.
func nodeMaskProblem(p netip.Prefix, nms int32) string {
	if err := cidr.ValidateRange(p, int(nms)); err != nil {
		return err.Error()
	}
	return ""
}
