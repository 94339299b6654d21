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

package cli

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/netpolicy"
)

// ResourceNetworkPolicies is what plan lists to find the NetworkPolicies a
// change leaves its new ranges out of.
const ResourceNetworkPolicies = "networkpolicies"

// NetworkPolicyPlan is what the NetworkPolicies make of the ranges a change
// adds: the policies whose ipBlock rules cover every range in use today
// but not a new one, so pods on the nodes of the new range would not be
// allowed (or denied) as today's pods are. The rule is netpolicy's, the
// continuous audit's.
type NetworkPolicyPlan struct {
	// NewRanges are the ranges checked: not in use today (Active or
	// Draining), in use once the change is through, and valid.
	NewRanges []string `json:"newRanges"`
	// Checked is how many NetworkPolicies were read; none when Unreadable.
	Checked int `json:"checked"`
	// LeftOut are the policies with a rule that leaves a new range out, by
	// namespace and name.
	LeftOut []NetworkPolicyLeftOut `json:"leftOut"`
	// Unreadable says why the NetworkPolicies could not be read (the user
	// may not list them): then nothing was checked, and the rest of the
	// plan stands.
	Unreadable *Unreadable `json:"unreadable,omitempty"`
}

// NetworkPolicyLeftOut is one NetworkPolicy that leaves a new range out.
type NetworkPolicyLeftOut struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Rules are its rules that leave a new range out.
	Rules []NetworkPolicyRuleLeftOut `json:"rules"`
}

// NetworkPolicyRuleLeftOut is one rule of a policy and the new ranges its
// ipBlocks leave out.
type NetworkPolicyRuleLeftOut struct {
	// Rule is "ingress rule N" or "egress rule N", counted from 1.
	Rule string `json:"rule"`
	// Allows are the CIDRs of its ipBlocks.
	Allows []string `json:"allows"`
	// LeavesOut are the new ranges it does not cover, "NAME (CIDR)".
	LeavesOut []string `json:"leavesOut"`
}

// PlanNewRanges returns the ranges of p whose addresses pods would get
// only after the change: not in use today (Active or Draining), valid, and
// Pending or Active once it is through (added by it, or Pending already).
// Empty for a --remove alone while no range is Pending.
func PlanNewRanges(p *PlanReport) []netpolicy.Range {
	var out []netpolicy.Range
	for i := range p.Ranges {
		r := &p.Ranges[i]
		if podsMayHold(r.Now) || r.Invalid != "" || (r.Eventually != v1alpha1.RangePhaseActive && r.Eventually != v1alpha1.RangePhasePending) {
			continue
		}
		if pr, err := netip.ParsePrefix(r.CIDR); err == nil {
			out = append(out, netpolicy.Range{Name: r.Name, Prefix: pr.Masked()})
		}
	}
	return out
}

// PlanNetworkPolicies sets p.NetworkPolicies from the cluster's
// NetworkPolicies (policies), or, when they could not be read, says so
// (unreadable): a policy leaves a new range out when a rule's ipBlocks
// cover every range in use today (netpolicy's rule, with today's ranges
// as the ones it was written for). Nothing is set when the change adds no
// range.
func PlanNetworkPolicies(p *PlanReport, policies []networkingv1.NetworkPolicy, unreadable *Unreadable) {
	newer := PlanNewRanges(p)
	if len(newer) == 0 {
		return
	}
	var known []netpolicy.Range
	for i := range p.Ranges {
		r := &p.Ranges[i]
		if pr, err := netip.ParsePrefix(r.CIDR); err == nil && podsMayHold(r.Now) {
			known = append(known, netpolicy.Range{Name: r.Name, Prefix: pr.Masked()})
		}
	}
	np := &NetworkPolicyPlan{LeftOut: []NetworkPolicyLeftOut{}}
	for _, r := range newer {
		np.NewRanges = append(np.NewRanges, r.Name)
	}
	p.NetworkPolicies = np
	if unreadable != nil {
		np.Unreadable = unreadable
		return
	}
	np.Checked = len(policies)
	for i := range policies {
		pol := &policies[i]
		var rules []NetworkPolicyRuleLeftOut
		for _, rule := range netpolicy.Rules(pol) {
			left := rule.LeavesOut(known, newer)
			if len(left) == 0 {
				continue
			}
			out := NetworkPolicyRuleLeftOut{Rule: rule.Name}
			for _, a := range rule.Allows {
				out.Allows = append(out.Allows, a.String())
			}
			for _, j := range left {
				out.LeavesOut = append(out.LeavesOut, fmt.Sprintf("%s (%s)", newer[j].Name, newer[j].Prefix))
			}
			rules = append(rules, out)
		}
		if len(rules) > 0 {
			np.LeftOut = append(np.LeftOut, NetworkPolicyLeftOut{Namespace: pol.Namespace, Name: pol.Name, Rules: rules})
		}
	}
	slices.SortFunc(np.LeftOut, func(a, b NetworkPolicyLeftOut) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
}

// podsMayHold reports whether pods may hold addresses of a range in phase p.
func podsMayHold(p v1alpha1.RangePhase) bool {
	return p == v1alpha1.RangePhaseActive || p == v1alpha1.RangePhaseDraining
}
