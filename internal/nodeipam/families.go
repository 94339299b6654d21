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

package nodeipam

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/cidr"
)

// This file holds spec.allocation.familyPolicy: under AllOrWait a node gets
// every IP family that a Pending or Active range selecting it has, at once,
// or waits. A network plugin that enables a family for every node at once
// (flannel's EnableIPv6) exits on a node whose podCIDRs lack it, and
// podCIDRs never change: a node that joined with IPv4 alone while the IPv6
// range was still Pending would have to be replaced.

// AwaitedRange is a Pending range NodeIPAM tracks that hands out no block
// yet: under AllOrWait, a node it selects waits for it when no Active
// candidate of its family selects the node.
type AwaitedRange struct {
	Candidate
	// Why says in words what its phase waits for ("awaiting flannel",
	// "rejected by flannel"), "" when status says nothing.
	Why string
}

// awaitedRanges returns the tracked Pending ranges (the lifecycle offers
// them to consumers and NodeIPAM can use them) that are declared in the
// spec with the cidr status tracks, sorted by name. A Pending range inside
// an Active one is left out: it will never hand out blocks of its own.
func (c *Config) awaitedRanges(pn *v1alpha1.PodNetwork) []AwaitedRange {
	var out []AwaitedRange
	for _, r := range c.Ranges {
		if c.Phases[r.Name] != v1alpha1.RangePhasePending {
			continue
		}
		if slices.ContainsFunc(c.Ranges, func(o allocator.RangeSpec) bool {
			return o.Active && o.Prefix.Bits() <= r.Prefix.Bits() && o.Prefix.Contains(r.Prefix.Addr())
		}) {
			continue
		}
		i := slices.IndexFunc(pn.Spec.Ranges, func(s v1alpha1.PodCIDRRange) bool { return s.Name == r.Name })
		if i < 0 {
			continue
		}
		if sp, err := pn.Spec.Ranges[i].Prefix(); err != nil || sp.Masked() != r.Prefix {
			continue
		}
		rs := pn.Status.FindRange(r.Name)
		if rs == nil || rs.InvalidReason != "" {
			// Never activated: nothing to wait for.
			continue
		}
		// Invalid terms match no node, as for an Active range; the
		// candidate's SelectorErrors report them once it is Active.
		sel, _ := CompileNodeSelector(pn.Spec.Ranges[i].NodeSelector)
		out = append(out, AwaitedRange{Candidate: Candidate{Name: r.Name, Prefix: r.Prefix, Selector: sel}, Why: pendingWhy(rs)})
	}
	slices.SortFunc(out, func(x, y AwaitedRange) int { return cmp.Compare(x.Name, y.Name) })
	return out
}

// pendingWhy says what a Pending range waits for, from its status.
func pendingWhy(rs *v1alpha1.RangeStatus) string {
	var parts []string
	if len(rs.Rejections) > 0 {
		names := make([]string, len(rs.Rejections))
		for i, r := range rs.Rejections {
			names[i] = r.Consumer
		}
		parts = append(parts, "rejected by "+strings.Join(names, ", "))
	}
	if len(rs.Awaiting) > 0 {
		parts = append(parts, "awaiting "+strings.Join(rs.Awaiting, ", "))
	}
	return strings.Join(parts, "; ")
}

// FamilyWait returns, under AllOrWait, the Pending ranges a node waits
// for: those selecting it of every family that no Active candidate
// selecting it has (families is what Choose returned for the node). It
// returns nil under Independent, or when the node may be given its
// families now.
func (c *Config) FamilyWait(nodeName string, nodeLabels map[string]string, families [][]string) []AwaitedRange {
	if c.FamilyPolicy != v1alpha1.FamilyPolicyAllOrWait {
		return nil
	}
	served := map[v1alpha1.IPFamily]bool{}
	for _, names := range families {
		if len(names) == 0 {
			continue
		}
		if cand, ok := c.candidate(names[0]); ok {
			served[v1alpha1.FamilyOf(cand.Prefix)] = true
		}
	}
	var out []AwaitedRange
	for _, a := range c.Awaited {
		if served[v1alpha1.FamilyOf(a.Prefix)] {
			continue
		}
		if ok, _ := a.Selector.Match(nodeName, nodeLabels); ok {
			out = append(out, a)
		}
	}
	return out
}

// candidate returns the candidate range with the given name.
func (c *Config) candidate(name string) (Candidate, bool) {
	i := slices.IndexFunc(c.Candidates, func(x Candidate) bool { return x.Name == name })
	if i < 0 {
		return Candidate{}, false
	}
	return c.Candidates[i], true
}

// FamilyWaitReason says in words why a node waits for the awaited ranges
// (FamilyWait), as its CIDRNotAvailable event does.
func FamilyWaitReason(awaited []AwaitedRange) string {
	return strings.Join(familyWaitError(awaited).Reasons, "; ")
}

// familyWaitError says why a node waits under AllOrWait, in the words of
// the CIDRNotAvailable event: it waits like a node whose ranges are
// exhausted, and is counted the same way.
func familyWaitError(awaited []AwaitedRange) *UnavailableError {
	e := &UnavailableError{FamilyWait: true}
	for _, a := range awaited {
		why := ""
		if a.Why != "" {
			why = " (" + a.Why + ")"
		}
		e.Reasons = append(e.Reasons, fmt.Sprintf(
			"spec.allocation.familyPolicy is AllOrWait and %s range %q (%s) selects the node but is Pending%s: "+
				"the node gets a block of every family at once when it is Active, never one family alone",
			cidr.Family(a.Prefix), a.Name, a.Prefix, why))
	}
	return e
}
