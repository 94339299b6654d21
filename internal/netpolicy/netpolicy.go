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

// Package netpolicy is the one rule that tells whether a NetworkPolicy
// leaves out a range of the pod network: the continuous audit
// (internal/audit) applies it to the ranges that became Active after a
// policy was last written, `kubectl podnetwork plan` (internal/cli) to the
// ranges a change adds. It is pure: no API server, no logging.
//
// Nothing in a policy says it is meant for the pod network, so a rule
// counts as written for it when, per IP family, its ipBlocks (their CIDRs
// without their excepts) cover every range it is known to have been
// written for, and at least one there is; it leaves out a newer range of
// that family its ipBlocks do not cover. A rule that allows only part of
// the known ranges (one pool's) was not written for the whole pod network
// and leaves nothing out, and neither does a policy annotated
// IgnoreAnnotation or a rule without ipBlocks.
package netpolicy

import (
	"fmt"
	"net/netip"

	"go4.org/netipx"
	networkingv1 "k8s.io/api/networking/v1"
)

// IgnoreAnnotation, set to "true" on a NetworkPolicy, keeps it from being
// checked: a policy that means to allow only the ranges it lists.
const IgnoreAnnotation = "podnetwork.io/audit-ignore"

// Ignored reports whether the policy opted out with IgnoreAnnotation.
func Ignored(np *networkingv1.NetworkPolicy) bool { return np.Annotations[IgnoreAnnotation] == "true" }

// Range is a range of the pod network a rule is checked against.
type Range struct {
	Name   string
	Prefix netip.Prefix
}

// Rule is one ingress or egress rule of a policy that has ipBlocks.
type Rule struct {
	// Name is "ingress rule N" or "egress rule N", counted from 1 in the
	// policy's spec.
	Name string
	// Allows are the CIDRs of its ipBlocks (masked).
	Allows []netip.Prefix
	// set is what they allow: the CIDRs without their excepts.
	set *netipx.IPSet
}

// Rules returns the rules of np that have ipBlocks, ingress first, in
// order; none for a policy annotated IgnoreAnnotation.
func Rules(np *networkingv1.NetworkPolicy) []Rule {
	if Ignored(np) {
		return nil
	}
	var out []Rule
	for i := range np.Spec.Ingress {
		if set, allows := ipBlocks(np.Spec.Ingress[i].From); set != nil {
			out = append(out, Rule{Name: fmt.Sprintf("ingress rule %d", i+1), Allows: allows, set: set})
		}
	}
	for i := range np.Spec.Egress {
		if set, allows := ipBlocks(np.Spec.Egress[i].To); set != nil {
			out = append(out, Rule{Name: fmt.Sprintf("egress rule %d", i+1), Allows: allows, set: set})
		}
	}
	return out
}

// LeavesOut returns the ranges of newer the rule does not cover, in each IP
// family whose known ranges (the ones the rule was written for: at least
// one) it all covers; the indexes are into newer, in its order.
func (r *Rule) LeavesOut(known, newer []Range) []int {
	var out []int
	for _, v4 := range []bool{true, false} {
		n, covered := 0, true
		for _, k := range known {
			if k.Prefix.Addr().Is4() == v4 {
				n++
				covered = covered && r.set.ContainsPrefix(k.Prefix)
			}
		}
		if n == 0 || !covered {
			continue
		}
		for i, u := range newer {
			if u.Prefix.Addr().Is4() == v4 && !r.set.ContainsPrefix(u.Prefix) {
				out = append(out, i)
			}
		}
	}
	return out
}

// ipBlocks returns the addresses the ipBlocks of peers allow (their CIDRs
// without their excepts) and the CIDRs; nil when no peer is an ipBlock.
// A CIDR that does not parse is left out (the API server validates them).
func ipBlocks(peers []networkingv1.NetworkPolicyPeer) (*netipx.IPSet, []netip.Prefix) {
	var b netipx.IPSetBuilder
	var allows []netip.Prefix
	for i := range peers {
		blk := peers[i].IPBlock
		if blk == nil {
			continue
		}
		p, err := netip.ParsePrefix(blk.CIDR)
		if err != nil {
			continue
		}
		allows = append(allows, p.Masked())
		var one netipx.IPSetBuilder
		one.AddPrefix(p.Masked())
		for _, e := range blk.Except {
			if q, err := netip.ParsePrefix(e); err == nil {
				one.RemovePrefix(q.Masked())
			}
		}
		if s, err := one.IPSet(); err == nil {
			b.AddSet(s)
		}
	}
	if len(allows) == 0 {
		return nil, nil
	}
	set, err := b.IPSet()
	if err != nil {
		return nil, nil
	}
	return set, allows
}
