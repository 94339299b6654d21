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
	"slices"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Choose returns the candidate ranges a node may get its blocks from: one
// list of range names per IP family that has a matching candidate, the
// primary family first, each list best first (see the package documentation
// for the order). The node gets one block from each family, or none.
func Choose(cands []Candidate, nodeName string, nodeLabels map[string]string, primary v1alpha1.IPFamily) [][]string {
	type match struct {
		c           *Candidate
		specificity int
	}
	byFamily := map[v1alpha1.IPFamily][]match{}
	for i := range cands {
		c := &cands[i]
		if ok, spec := c.Selector.Match(nodeName, nodeLabels); ok {
			f := v1alpha1.FamilyOf(c.Prefix)
			byFamily[f] = append(byFamily[f], match{c: c, specificity: spec})
		}
	}
	families := []v1alpha1.IPFamily{v1alpha1.IPv4, v1alpha1.IPv6}
	if primary == v1alpha1.IPv6 {
		families = []v1alpha1.IPFamily{v1alpha1.IPv6, v1alpha1.IPv4}
	}
	var out [][]string
	for _, f := range families {
		ms := byFamily[f]
		if len(ms) == 0 {
			continue
		}
		slices.SortFunc(ms, func(x, y match) int {
			if c := cmp.Compare(y.specificity, x.specificity); c != 0 {
				return c
			}
			if c := cmp.Compare(y.c.Prefix.Bits(), x.c.Prefix.Bits()); c != 0 {
				return c
			}
			return cmp.Compare(x.c.Name, y.c.Name)
		})
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.c.Name
		}
		out = append(out, names)
	}
	return out
}
