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

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/text"
)

// rejection explains why Pending range rs cannot be added and suggests what
// would work. accepted are the prefixes of its family the component takes
// already; candidate is their covering prefix together with rs, which breaks
// a rule for the reason why.
//
// The suggestion is the widest prefix W that contains every accepted prefix
// and breaks no rule: any range inside W would be accepted, and because the
// API allows a range that strictly contains others with the same
// nodeMaskSize, W itself can be added to grow the existing ranges in place.
func (in *Input) rejection(rs v1alpha1.RangeStatus, accepted []netip.Prefix, candidate netip.Prefix, why, family string, rules Rules) string {
	head := fmt.Sprintf("%s takes one prefix per IP family; with range %q (%s) the %s prefix would be %s, which %s",
		rules.Subject, rs.Name, rs.CIDR, family, candidate, why)
	base, ok := cidr.CoveringPrefix(accepted)
	if !ok {
		return text.Message(fmt.Sprintf("%s. Choose an %s range of prefix length /%d or longer that overlaps no ServiceCIDR and no node address",
			head, family, in.Limits.For(family)))
	}
	wide, ok := in.widest(base, family)
	if !ok {
		return text.Message(fmt.Sprintf("%s. The %s prefixes already in use need %s, which already %s; fix that before adding %s ranges",
			head, family, base, in.violation(base, family), family))
	}
	if wide == base {
		return text.Message(fmt.Sprintf("%s. The %s prefixes already in use span %s and no wider prefix is allowed; choose a range inside %s that overlaps no existing range",
			head, family, base, base))
	}
	return text.Message(fmt.Sprintf("%s. Choose a range inside %s, or expand in place: add the range %s (with the nodeMaskSize of the ranges it contains), which contains the existing %s ranges (%s)",
		head, wide, wide, family, base))
}
