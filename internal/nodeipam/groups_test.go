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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func usage(capacity, allocated, free, quarantined int64) func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus) {
	return func(_ *v1alpha1.PodCIDRRange, rs *v1alpha1.RangeStatus) {
		rs.Usage = v1alpha1.NewRangeUsage(capacity, allocated, free, quarantined)
	}
}

func TestSelectorGroups(t *testing.T) {
	gpu := terms(exprs(req("pool", corev1.NodeSelectorOpIn, "gpu")))
	tests := []struct {
		name string
		pn   *v1alpha1.PodNetwork
		want []SelectorGroup
	}{
		{
			name: "no PodNetwork ranges: no group",
			pn:   podNetwork().obj(),
			want: []SelectorGroup{},
		},
		{
			name: "catch-all ranges summed per family; the group joins as many nodes as its scarcest family has free blocks",
			pn: podNetwork().
				rng("a", "10.1.0.0/16", v1alpha1.RangePhaseActive, usage(256, 250, 4, 2)).
				rng("b", "10.2.0.0/16", v1alpha1.RangePhaseActive, usage(256, 0, 256, 0)).
				rng("v6", "fd99::/56", v1alpha1.RangePhaseActive, usage(256, 250, 6, 0)).
				obj(),
			want: []SelectorGroup{{
				Selector: AllNodes, Ranges: []string{"a", "b", "v6"}, Joinable: 6,
				Families: []FamilyBlocks{
					{Family: v1alpha1.IPv4, Capacity: 512, Allocated: 250, Free: 260, Quarantined: 2},
					{Family: v1alpha1.IPv6, Capacity: 256, Allocated: 250, Free: 6},
				},
			}},
		},
		{
			name: "a pool is its own group; Pending, Draining and covered ranges are no candidates",
			pn: podNetwork().
				rng("all", "10.1.0.0/16", v1alpha1.RangePhaseActive, usage(256, 6, 250, 0)).
				rng("all-sub", "10.1.0.0/17", v1alpha1.RangePhaseActive, usage(128, 6, 122, 0)).
				rng("gpu", "10.9.0.0/24", v1alpha1.RangePhaseActive, mask(28), selector(gpu), usage(16, 16, 0, 0)).
				rng("new", "10.3.0.0/16", v1alpha1.RangePhasePending).
				rng("old", "10.4.0.0/16", v1alpha1.RangePhaseDraining, usage(256, 3, 0, 0)).
				obj(),
			want: []SelectorGroup{
				{Selector: AllNodes, Ranges: []string{"all"}, Joinable: 250,
					Families: []FamilyBlocks{{Family: v1alpha1.IPv4, Capacity: 256, Allocated: 6, Free: 250}}},
				{Selector: "pool in (gpu)", Ranges: []string{"gpu"}, Joinable: 0,
					Families: []FamilyBlocks{{Family: v1alpha1.IPv4, Capacity: 16, Allocated: 16}}},
			},
		},
		{
			name: "an Active range NodeIPAM has not reported yet counts no blocks",
			pn:   podNetwork().rng("a", "10.1.0.0/16", v1alpha1.RangePhaseActive).obj(),
			want: []SelectorGroup{{Selector: AllNodes, Ranges: []string{"a"}, Families: []FamilyBlocks{{Family: v1alpha1.IPv4}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, SelectorGroups(tt.pn)); diff != "" {
				t.Errorf("SelectorGroups (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribeNodeSelector(t *testing.T) {
	tests := []struct {
		sel  *corev1.NodeSelector
		want string
	}{
		{nil, AllNodes},
		{&corev1.NodeSelector{}, "no nodes"},
		{terms(exprs(
			req("pool", corev1.NodeSelectorOpIn, "gpu", "tpu"),
			req("zone", corev1.NodeSelectorOpExists),
			req("spot", corev1.NodeSelectorOpDoesNotExist),
			req("cores", corev1.NodeSelectorOpGt, "8"),
		)), "pool in (gpu, tpu), zone, !spot, cores > 8"},
		{&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}}}},
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "cores", Operator: corev1.NodeSelectorOpLt, Values: []string{"4"}}}},
			{},
		}}, "metadata.name notin (a) or cores < 4 or (empty term)"},
	}
	for _, tt := range tests {
		if got := DescribeNodeSelector(tt.sel); got != tt.want {
			t.Errorf("DescribeNodeSelector(%v) = %q, want %q", tt.sel, got, tt.want)
		}
	}
}
