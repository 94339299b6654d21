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

package declared

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func admin(name, cidr string, nms int32) v1alpha1.PodCIDRRange {
	return v1alpha1.PodCIDRRange{Name: name, CIDR: cidr, NodeMaskSize: nms}
}

func auto(name, pool, cidr string, nms int32) v1alpha1.AutoscaledRange {
	return v1alpha1.AutoscaledRange{Name: name, Pool: pool, CIDR: v1alpha1.CIDRString(cidr), NodeMaskSize: nms, AddedTime: &metav1.Time{}}
}

func rangeSet(rs ...v1alpha1.AutoscaledRange) *v1alpha1.AutoscaledRangeSet {
	return &v1alpha1.AutoscaledRangeSet{ObjectMeta: metav1.ObjectMeta{Name: "default", ResourceVersion: "7"}, Spec: &v1alpha1.AutoscaledRangeSetSpec{Ranges: rs}}
}

func TestUnion(t *testing.T) {
	sel := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}
	withSel := auto("p-2", "p", "10.64.16.0/20", 24)
	withSel.NodeSelector = sel
	tests := []struct {
		name         string
		spec         []v1alpha1.PodCIDRRange
		set          *v1alpha1.AutoscaledRangeSet
		wantRanges   []v1alpha1.PodCIDRRange
		wantPools    map[string]string
		wantAdopted  []string
		wantShadowed []string
	}{
		{
			name:       "no set: the spec alone",
			spec:       []v1alpha1.PodCIDRRange{admin("a", "10.0.0.0/16", 0)},
			wantRanges: []v1alpha1.PodCIDRRange{admin("a", "10.0.0.0/16", 0)},
			wantPools:  map[string]string{},
		},
		{
			name:       "a set without spec",
			spec:       []v1alpha1.PodCIDRRange{admin("a", "10.0.0.0/16", 0)},
			set:        &v1alpha1.AutoscaledRangeSet{},
			wantRanges: []v1alpha1.PodCIDRRange{admin("a", "10.0.0.0/16", 0)},
			wantPools:  map[string]string{},
		},
		{
			name: "the admin's first, then the autoscaler's, selector copied",
			spec: []v1alpha1.PodCIDRRange{admin("b", "10.1.0.0/16", 0), admin("a", "10.0.0.0/16", 0)},
			set:  rangeSet(auto("p-1", "p", "10.64.0.0/20", 24), withSel),
			wantRanges: []v1alpha1.PodCIDRRange{
				admin("b", "10.1.0.0/16", 0), admin("a", "10.0.0.0/16", 0),
				admin("p-1", "10.64.0.0/20", 24), {Name: "p-2", CIDR: "10.64.16.0/20", NodeMaskSize: 24, NodeSelector: sel},
			},
			wantPools: map[string]string{"p-1": "p", "p-2": "p"},
		},
		{
			name:        "adopted: same name, cidr and effective nodeMaskSize",
			spec:        []v1alpha1.PodCIDRRange{admin("p-1", "10.64.0.0/20", 24), admin("p-3", "10.65.0.0/16", 0)},
			set:         rangeSet(auto("p-1", "p", "10.64.0.0/20", 24), auto("p-3", "p", "10.65.0.0/16", 24)),
			wantRanges:  []v1alpha1.PodCIDRRange{admin("p-1", "10.64.0.0/20", 24), admin("p-3", "10.65.0.0/16", 0)},
			wantPools:   map[string]string{},
			wantAdopted: []string{"p-1", "p-3"},
		},
		{
			name:         "shadowed: same name, another cidr",
			spec:         []v1alpha1.PodCIDRRange{admin("p-1", "10.99.0.0/16", 0)},
			set:          rangeSet(auto("p-1", "p", "10.64.0.0/20", 24)),
			wantRanges:   []v1alpha1.PodCIDRRange{admin("p-1", "10.64.0.0/20", 24)},
			wantPools:    map[string]string{"p-1": "p"},
			wantShadowed: []string{"p-1"},
		},
		{
			name:         "shadowed: same name and cidr, another nodeMaskSize",
			spec:         []v1alpha1.PodCIDRRange{admin("p-1", "10.64.0.0/20", 26)},
			set:          rangeSet(auto("p-1", "p", "10.64.0.0/20", 24)),
			wantRanges:   []v1alpha1.PodCIDRRange{admin("p-1", "10.64.0.0/20", 24)},
			wantPools:    map[string]string{"p-1": "p"},
			wantShadowed: []string{"p-1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Union(tc.spec, tc.set)
			if d := cmp.Diff(tc.wantRanges, got.Ranges); d != "" {
				t.Errorf("ranges (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantPools, got.Pools); d != "" {
				t.Errorf("pools (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantAdopted, got.Adopted); d != "" {
				t.Errorf("adopted (-want +got):\n%s", d)
			}
			var shadowed []string
			for _, s := range got.Shadowed {
				shadowed = append(shadowed, s.Name)
				if s.Message == "" {
					t.Errorf("shadowed %q without a message", s.Name)
				}
			}
			if d := cmp.Diff(tc.wantShadowed, shadowed); d != "" {
				t.Errorf("shadowed (-want +got):\n%s", d)
			}
		})
	}
}

// TestUnionNeverLosesAnAutoscaledRange is the hard requirement as a
// property: whatever the admin's spec holds, every range of the set is
// declared, with its own cidr and nodeMaskSize.
func TestUnionNeverLosesAnAutoscaledRange(t *testing.T) {
	set := rangeSet(auto("p-1", "p", "10.64.0.0/20", 24), auto("p-2", "p", "10.64.0.0/19", 24), auto("q-1", "q", "fd00::/56", 64))
	specs := [][]v1alpha1.PodCIDRRange{
		nil,
		{admin("p-1", "10.64.0.0/20", 24)},
		{admin("p-1", "10.64.0.0/20", 25), admin("p-2", "10.1.0.0/16", 0), admin("q-1", "fd00::/56", 0)},
		{admin("x", "10.64.0.0/19", 24)},
	}
	for _, spec := range specs {
		got := Union(spec, set)
		for _, a := range set.Spec.Ranges {
			found := false
			for _, r := range got.Ranges {
				if r.Name == a.Name {
					found = true
					if r.CIDR != string(a.CIDR) || r.EffectiveNodeMaskSize() != a.NodeMaskSize {
						t.Errorf("spec %v: %s declared as %s/%d, want %s/%d", spec, a.Name, r.CIDR, r.EffectiveNodeMaskSize(), a.CIDR, a.NodeMaskSize)
					}
				}
			}
			if !found {
				t.Errorf("spec %v: autoscaled range %s is not declared", spec, a.Name)
			}
		}
	}
}

func TestView(t *testing.T) {
	pn := &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: "default", ResourceVersion: "41"}, Spec: v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{admin("a", "10.0.0.0/16", 0)}}}
	if View(nil, rangeSet()) != nil {
		t.Error("View(nil) is not nil")
	}
	v := View(pn, nil)
	if v.ResourceVersion != "41" || len(v.Spec.Ranges) != 1 {
		t.Errorf("view without a set: %q %v", v.ResourceVersion, v.Spec.Ranges)
	}
	v = View(pn, rangeSet(auto("p-1", "p", "10.64.0.0/20", 24)))
	if v.ResourceVersion != "41+7" {
		t.Errorf("resourceVersion %q, want both joined", v.ResourceVersion)
	}
	if len(v.Spec.Ranges) != 2 || len(pn.Spec.Ranges) != 1 {
		t.Errorf("view ranges %v, PodNetwork ranges %v: the view must not change the PodNetwork", v.Spec.Ranges, pn.Spec.Ranges)
	}
}
