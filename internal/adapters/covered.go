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
	"net/netip"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Covered is what a component's configuration currently treats as the pod
// network: the prefixes it holds per family, and, when its configuration
// does not depend on the ranges at all, why (then Prefixes is empty).
type Covered struct {
	Prefixes         []netip.Prefix
	RangeIndependent string
}

// InUse returns the ranges that nodes may hold blocks in, in status order:
// the Active and Draining ones. A component configured with a prefix that
// leaves one of them out breaks the nodes in it, which is what the drift
// guard (charts: the ValidatingAdmissionPolicy) refuses and what
// `kubectl podnetwork check` reports.
func InUse(pn *v1alpha1.PodNetwork) []v1alpha1.RangeStatus {
	var out []v1alpha1.RangeStatus
	if pn == nil {
		return nil
	}
	for _, rs := range pn.Status.Ranges {
		if rs.Phase == v1alpha1.RangePhaseActive || rs.Phase == v1alpha1.RangePhaseDraining {
			out = append(out, rs)
		}
	}
	return out
}

// Uncovered returns the ranges in use (InUse) that no prefix of c
// contains. A range-independent configuration covers everything.
func Uncovered(c Covered, pn *v1alpha1.PodNetwork) []v1alpha1.RangeStatus {
	if c.RangeIndependent != "" {
		return nil
	}
	var out []v1alpha1.RangeStatus
	for _, rs := range InUse(pn) {
		p, err := netip.ParsePrefix(rs.CIDR)
		if err != nil {
			continue
		}
		covered := false
		for _, q := range c.Prefixes {
			if q.Bits() <= p.Bits() && q.Contains(p.Addr()) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, rs)
		}
	}
	return out
}
