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
	"cmp"
	"net/netip"
	"slices"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/nodeipam"
)

// held is one Draining range a node holds a block in or, with lacks, an
// Active range of a family the node holds no block of that would give it
// one (familyPolicy AllOrWait).
type held struct {
	name   string
	prefix netip.Prefix
	lacks  bool
}

// ranges is what status.ranges says about where blocks may lie.
type ranges struct {
	draining []held
	active   []netip.Prefix
	// selecting are the Active ranges of the spec with their
	// nodeSelector, sorted by name; read only under familyPolicy
	// AllOrWait.
	selecting []selecting
}

// selecting is an Active range and the nodes it selects.
type selecting struct {
	name   string
	prefix netip.Prefix
	sel    *nodeipam.NodeSelector
}

// readRanges sorts the tracked ranges. A Draining range with an
// invalidReason is left out: the lifecycle never releases it (its status
// was edited, or its cidr cannot be read), so replacing its nodes would
// disrupt them for nothing. Under familyPolicy AllOrWait it also reads
// which nodes each Active range of the declared ranges selects.
func readRanges(in *Input) ranges {
	rs := in.Ranges
	var out ranges
	for i := range rs {
		p, err := netip.ParsePrefix(rs[i].CIDR)
		if err != nil || p != p.Masked() {
			continue
		}
		switch {
		case rs[i].Phase == v1alpha1.RangePhaseActive:
			out.active = append(out.active, p)
			if in.FamilyPolicy == v1alpha1.FamilyPolicyAllOrWait && rs[i].InvalidReason == "" {
				if d := declaredRange(in.Declared, &rs[i]); d != nil {
					// Invalid terms match no node, as in NodeIPAM.
					sel, _ := nodeipam.CompileNodeSelector(d.NodeSelector)
					out.selecting = append(out.selecting, selecting{name: rs[i].Name, prefix: p, sel: sel})
				}
			}
		case rs[i].Phase == v1alpha1.RangePhaseDraining && rs[i].InvalidReason == "":
			out.draining = append(out.draining, held{name: rs[i].Name, prefix: p})
		}
	}
	slices.SortFunc(out.selecting, func(a, b selecting) int { return cmp.Compare(a.name, b.name) })
	return out
}

// declaredRange returns the declared range of a tracked one, with the same
// cidr, or nil.
func declaredRange(declared []v1alpha1.PodCIDRRange, rs *v1alpha1.RangeStatus) *v1alpha1.PodCIDRRange {
	for i := range declared {
		if declared[i].Name == rs.Name && declared[i].CIDR == rs.CIDR {
			return &declared[i]
		}
	}
	return nil
}

// holdings returns the Draining ranges n holds a block in, as the
// lifecycle counts holders: a podCIDR overlapping the range and not inside
// another, Active, range. Under familyPolicy AllOrWait it adds, for each
// family n holds no podCIDR of, the first Active range of that family that
// selects n: NodeIPAM would give a node joining now both families, so n
// is replaced like a holder. A node with a podCIDR that cannot be read
// holds none here: drain assist never starts it; nor does a node without
// podCIDRs, which waits for NodeIPAM.
func (r ranges) holdings(n *Node) []held {
	if n.Unreadable {
		return nil
	}
	var out []held
	for _, d := range r.draining {
		for _, p := range n.PodCIDRs {
			if p.Overlaps(d.prefix) && !r.covered(p) {
				out = append(out, d)
				break
			}
		}
	}
	if len(r.selecting) == 0 || len(n.PodCIDRs) == 0 {
		return out
	}
	for _, is4 := range []bool{true, false} {
		if slices.ContainsFunc(n.PodCIDRs, func(p netip.Prefix) bool { return p.Addr().Is4() == is4 }) {
			continue
		}
		for _, s := range r.selecting {
			if ok, _ := s.sel.Match(n.Name, n.Labels); ok && s.prefix.Addr().Is4() == is4 {
				out = append(out, held{name: s.name, prefix: s.prefix, lacks: true})
				break
			}
		}
	}
	return out
}

// covered reports whether p lies inside an Active range.
func (r ranges) covered(p netip.Prefix) bool {
	return slices.ContainsFunc(r.active, func(a netip.Prefix) bool {
		return a.Bits() <= p.Bits() && a.Contains(p.Addr())
	})
}

// replaceable reports whether an Active range of the family of every
// range in hs could give a replacement node its block; it returns the
// family that has none otherwise.
func (r ranges) replaceable(hs []held) (string, bool) {
	for _, h := range hs {
		if !slices.ContainsFunc(r.active, func(a netip.Prefix) bool { return a.Addr().Is4() == h.prefix.Addr().Is4() }) {
			return familyName(h.prefix), false
		}
	}
	return "", true
}

func familyName(p netip.Prefix) string {
	if p.Addr().Is4() {
		return string(v1alpha1.IPv4)
	}
	return string(v1alpha1.IPv6)
}

// names returns the Draining ranges of hs.
func names(hs []held) []string {
	var out []string
	for _, h := range hs {
		if !h.lacks {
			out = append(out, h.name)
		}
	}
	return out
}

// lacked returns the families of hs the node lacks, with the Active
// range that selects it for each.
func lacked(hs []held) []Lack {
	var out []Lack
	for _, h := range hs {
		if h.lacks {
			out = append(out, Lack{Family: v1alpha1.IPFamily(familyName(h.prefix)), Range: h.name})
		}
	}
	return out
}
