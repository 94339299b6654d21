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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// AllNodes describes the group of the ranges that set no nodeSelector.
const AllNodes = "all nodes"

// SelectorGroup is the candidate ranges (Active, not inside another Active
// range) that share one nodeSelector: the nodes that selector picks get
// their blocks from these ranges first (see the candidate order). It is how
// the kubectl plugin and the metrics report headroom: a pool runs out when
// its own ranges do, whatever the other pools have left.
type SelectorGroup struct {
	// Selector is the nodeSelector in words (DescribeNodeSelector), AllNodes
	// for the ranges without one.
	Selector string
	// Ranges are the names of the group's ranges, sorted.
	Ranges []string
	// Families are the block counts per IP family the group serves, IPv4
	// first, summed over its ranges as NodeIPAM reports them.
	Families []FamilyBlocks
	// Joinable is how many more nodes the group can give a block of every
	// family it serves now: the smallest free count over its families. A
	// node of a pool may still fall back to a catch-all range when its own
	// ranges are full, so for a pool this is a lower bound.
	Joinable int64
}

// FamilyBlocks counts the node blocks of one IP family of a group.
type FamilyBlocks struct {
	Family      v1alpha1.IPFamily `json:"family"`
	Capacity    int64             `json:"capacity"`
	Allocated   int64             `json:"allocated"`
	Free        int64             `json:"free"`
	Quarantined int64             `json:"quarantined"`
}

// SelectorGroups groups the candidate ranges of pn by nodeSelector, sorted
// by selector, AllNodes first. Ranges NodeIPAM has not reported usage for
// yet count no blocks.
func SelectorGroups(pn *v1alpha1.PodNetwork) []SelectorGroup {
	cfg := NewConfig(pn)
	byKey := map[string]*SelectorGroup{}
	var keys []string
	for _, c := range cfg.Candidates {
		i := slices.IndexFunc(pn.Spec.Ranges, func(s v1alpha1.PodCIDRRange) bool { return s.Name == c.Name })
		key := DescribeNodeSelector(pn.Spec.Ranges[i].NodeSelector)
		g := byKey[key]
		if g == nil {
			g = &SelectorGroup{Selector: key}
			byKey[key] = g
			keys = append(keys, key)
		}
		g.Ranges = append(g.Ranges, c.Name)
		fb := g.family(v1alpha1.FamilyOf(c.Prefix))
		if rs := pn.Status.FindRange(c.Name); rs != nil && !rs.Usage.IsZero() {
			fb.Capacity += rs.Usage.Capacity
			fb.Allocated += ptr.Deref(rs.Usage.Allocated, 0)
			fb.Free += ptr.Deref(rs.Usage.Free, 0)
			fb.Quarantined += ptr.Deref(rs.Usage.Quarantined, 0)
		}
	}
	slices.SortFunc(keys, func(x, y string) int {
		if (x == AllNodes) != (y == AllNodes) {
			if x == AllNodes {
				return -1
			}
			return 1
		}
		return cmp.Compare(x, y)
	})
	out := make([]SelectorGroup, 0, len(keys))
	for _, k := range keys {
		g := byKey[k]
		slices.Sort(g.Ranges)
		for i, f := range g.Families {
			if i == 0 || f.Free < g.Joinable {
				g.Joinable = f.Free
			}
		}
		out = append(out, *g)
	}
	return out
}

// family returns the counts of family f, adding them in order (IPv4 first).
func (g *SelectorGroup) family(f v1alpha1.IPFamily) *FamilyBlocks {
	for i := range g.Families {
		if g.Families[i].Family == f {
			return &g.Families[i]
		}
	}
	g.Families = append(g.Families, FamilyBlocks{Family: f})
	slices.SortFunc(g.Families, func(x, y FamilyBlocks) int { return cmp.Compare(x.Family, y.Family) })
	return g.family(f)
}

// DescribeNodeSelector says in one line which nodes sel selects: AllNodes
// when it is nil, "no nodes" without terms, otherwise its terms joined by
// " or ", each a comma-separated list of requirements such as
// "pool in (gpu)", "zone", "!spot", "cores > 8" or "metadata.name notin (a)".
func DescribeNodeSelector(sel *corev1.NodeSelector) string {
	if sel == nil {
		return AllNodes
	}
	if len(sel.NodeSelectorTerms) == 0 {
		return "no nodes"
	}
	terms := make([]string, 0, len(sel.NodeSelectorTerms))
	for _, t := range sel.NodeSelectorTerms {
		var reqs []string
		for _, e := range t.MatchExpressions {
			reqs = append(reqs, describeRequirement(e))
		}
		for _, f := range t.MatchFields {
			reqs = append(reqs, describeRequirement(f))
		}
		if len(reqs) == 0 {
			reqs = append(reqs, "(empty term)")
		}
		terms = append(terms, strings.Join(reqs, ", "))
	}
	return strings.Join(terms, " or ")
}

func describeRequirement(r corev1.NodeSelectorRequirement) string {
	switch r.Operator {
	case corev1.NodeSelectorOpExists:
		return r.Key
	case corev1.NodeSelectorOpDoesNotExist:
		return "!" + r.Key
	case corev1.NodeSelectorOpGt:
		return fmt.Sprintf("%s > %s", r.Key, strings.Join(r.Values, ","))
	case corev1.NodeSelectorOpLt:
		return fmt.Sprintf("%s < %s", r.Key, strings.Join(r.Values, ","))
	default:
		return fmt.Sprintf("%s %s (%s)", r.Key, strings.ToLower(string(r.Operator)), strings.Join(r.Values, ", "))
	}
}
