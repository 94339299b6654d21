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
	"slices"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// held is one Draining range a node holds a block in.
type held struct {
	name   string
	prefix netip.Prefix
}

// ranges is what status.ranges says about where blocks may lie.
type ranges struct {
	draining []held
	active   []netip.Prefix
}

// readRanges sorts the tracked ranges. A Draining range with an
// invalidReason is left out: the lifecycle never releases it (its status
// was edited, or its cidr cannot be read), so replacing its nodes would
// disrupt them for nothing.
func readRanges(rs []v1alpha1.RangeStatus) ranges {
	var out ranges
	for i := range rs {
		p, err := netip.ParsePrefix(rs[i].CIDR)
		if err != nil || p != p.Masked() {
			continue
		}
		switch {
		case rs[i].Phase == v1alpha1.RangePhaseActive:
			out.active = append(out.active, p)
		case rs[i].Phase == v1alpha1.RangePhaseDraining && rs[i].InvalidReason == "":
			out.draining = append(out.draining, held{name: rs[i].Name, prefix: p})
		}
	}
	return out
}

// holdings returns the Draining ranges n holds a block in, as the
// lifecycle counts holders: a podCIDR overlapping the range and not inside
// another, Active, range. A node with a podCIDR that cannot be read holds
// none here: drain assist never starts it.
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

func names(hs []held) []string {
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		out = append(out, h.name)
	}
	return out
}
