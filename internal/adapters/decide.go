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

package adapters

import (
	"fmt"
	"net/netip"
	"slices"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
)

// Rules describe the component an adapter configures.
type Rules struct {
	// Subject names the setting in messages, for example
	// "kube-proxy's clusterCIDR".
	Subject string
	// CoverNodePodCIDRs makes the covering prefix contain every node podCIDR
	// of its family too. flanneld refuses to start on a node whose podCIDR
	// lies outside Network, so flannel's Network must never shrink below a
	// podCIDR in use, whatever the ranges say.
	CoverNodePodCIDRs bool
	// Disabled maps a family the component has switched off to the message
	// that rejects the Pending ranges of that family.
	Disabled map[string]string
}

// Decision is what an adapter writes and answers.
type Decision struct {
	// Covering is, per family ("IPv4", "IPv6"), the smallest prefix that
	// contains every desired range the component accepts (and every node
	// podCIDR of that family when Rules.CoverNodePodCIDRs). A family with
	// nothing to cover is absent.
	Covering map[string]netip.Prefix
	// Rejected maps the name of every Pending range the component cannot
	// take to the message the admin sees.
	Rejected map[string]string
	// Problems describe covering prefixes that break a rule but must be
	// written anyway, because they only hold ranges already in use (Active,
	// Draining) or podCIDRs of nodes. They block every new range of their
	// family until the admin fixes them.
	Problems []string
}

// Decide computes, per family, the covering prefix of the desired ranges
// (v1alpha1.DesiredRanges) and rejects each Pending range that would make it
// break a rule: overlap a ServiceCIDR, contain a node address, or be shorter
// than the limit. Active and Draining ranges are never rejected: they are
// already in use and must stay covered.
//
// Pending ranges are added one at a time, the ones this adapter already
// accepted first and then in status order, so an accepted range is never
// displaced by a later one; a rejected range does not widen the prefix.
// Released ranges are not desired, so the covering prefix shrinks only once
// the lifecycle has released a range.
func Decide(in Input, rules Rules) Decision {
	out := Decision{Covering: map[string]netip.Prefix{}, Rejected: map[string]string{}}
	desired := v1alpha1.DesiredRanges(in.PodNetwork)
	for _, family := range []string{cidr.IPv4, cidr.IPv6} {
		var committed []netip.Prefix
		var pending []v1alpha1.RangeStatus
		for _, rs := range desired {
			p, err := netip.ParsePrefix(rs.CIDR)
			if err != nil || cidr.Family(p) != family {
				continue
			}
			if rs.Phase == v1alpha1.RangePhasePending {
				pending = append(pending, rs)
			} else {
				committed = append(committed, p.Masked())
			}
		}
		if rules.CoverNodePodCIDRs {
			for _, np := range in.NodePodCIDRs {
				if cidr.Family(np.Prefix) == family {
					committed = append(committed, np.Prefix.Masked())
				}
			}
		}
		if base, ok := cidr.CoveringPrefix(committed); ok {
			if why := in.violation(base, family); why != "" {
				out.Problems = append(out.Problems, fmt.Sprintf(
					"the %s prefixes already in use (Active and Draining ranges%s) need %s as %s, which %s; no %s range can be added until that is fixed",
					family, nodePodCIDRsNote(rules), base, rules.Subject, why, family))
			}
		}

		accepted := committed
		for _, rs := range in.prioritise(pending) {
			if msg, off := rules.Disabled[family]; off {
				out.Rejected[rs.Name] = msg
				continue
			}
			p, _ := netip.ParsePrefix(rs.CIDR)
			candidate, _ := cidr.CoveringPrefix(append(slices.Clip(accepted), p.Masked()))
			if why := in.violation(candidate, family); why != "" {
				out.Rejected[rs.Name] = in.rejection(rs, accepted, candidate, why, family, rules)
				continue
			}
			accepted = append(accepted, p.Masked())
		}
		if c, ok := cidr.CoveringPrefix(accepted); ok {
			out.Covering[family] = c
		}
	}
	return out
}

// prioritise orders Pending ranges: the ones this adapter has accepted
// already first, then the others, each group in status order.
func (in *Input) prioritise(pending []v1alpha1.RangeStatus) []v1alpha1.RangeStatus {
	var first, rest []v1alpha1.RangeStatus
	for _, rs := range pending {
		if acked, _, _ := v1alpha1.AckState(in.Previous, &rs); acked {
			first = append(first, rs)
		} else {
			rest = append(rest, rs)
		}
	}
	return append(first, rest...)
}

// violation says which rule covering prefix p of family breaks, or "" when it
// breaks none. Every rule is monotone: if p breaks one, so does every prefix
// that contains p.
func (in *Input) violation(p netip.Prefix, family string) string {
	if limit := in.Limits.For(family); p.Bits() < limit {
		return fmt.Sprintf("is shorter than /%d, the shortest covering prefix the adapter writes (flag --adapter-min-covering-prefix-%s)",
			limit, lowerFamily(family))
	}
	for _, s := range in.ServiceCIDRs {
		if cidr.Overlaps(p, s.Prefix) {
			return fmt.Sprintf("overlaps ServiceCIDR %q (%s)", s.Name, s.Prefix)
		}
	}
	addrs := make([]netip.Addr, len(in.NodeAddresses))
	for i, a := range in.NodeAddresses {
		addrs[i] = a.Addr
	}
	if a, hit := cidr.OverlapsAnyAddr(p, addrs); hit {
		for _, na := range in.NodeAddresses {
			if na.Addr == a {
				return fmt.Sprintf("contains the address %s of node %q", a, na.Node)
			}
		}
	}
	return ""
}

// widest returns the shortest prefix that contains base and breaks no rule,
// or false when base itself breaks one. Rules are monotone, so a binary search
// over the prefix length finds it.
func (in *Input) widest(base netip.Prefix, family string) (netip.Prefix, bool) {
	if in.violation(base, family) != "" {
		return netip.Prefix{}, false
	}
	lo, hi := 0, base.Bits() // hi always breaks no rule
	for lo < hi {
		mid := (lo + hi) / 2
		if in.violation(netip.PrefixFrom(base.Addr(), mid).Masked(), family) == "" {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return netip.PrefixFrom(base.Addr(), hi).Masked(), true
}

func nodePodCIDRsNote(rules Rules) string {
	if rules.CoverNodePodCIDRs {
		return " and node podCIDRs"
	}
	return ""
}

func lowerFamily(family string) string {
	if family == cidr.IPv4 {
		return "ipv4"
	}
	return "ipv6"
}
