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

package lifecycle

import (
	"slices"
	"testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func TestSpecConflicts(t *testing.T) {
	r := func(name, cidr string, nms int32) v1alpha1.PodCIDRRange {
		return v1alpha1.PodCIDRRange{Name: name, CIDR: cidr, NodeMaskSize: nms}
	}
	for _, tc := range []struct {
		name   string
		ranges []v1alpha1.PodCIDRRange
		want   []string
	}{
		{name: "disjoint", ranges: []v1alpha1.PodCIDRRange{r("a", "10.0.0.0/16", 0), r("b", "10.1.0.0/16", 0)}},
		{name: "expansion in place (strict supernet, same nodeMaskSize)",
			ranges: []v1alpha1.PodCIDRRange{r("a", "10.0.0.0/16", 24), r("big", "10.0.0.0/15", 0)}},
		{name: "the same cidr", ranges: []v1alpha1.PodCIDRRange{r("a", "10.0.0.0/16", 0), r("b", "10.0.0.0/16", 0)},
			want: []string{`ranges "a" and "b" have the same cidr 10.0.0.0/16`}},
		{name: "nested with another nodeMaskSize", ranges: []v1alpha1.PodCIDRRange{r("a", "10.0.0.0/16", 0), r("x", "10.0.0.0/17", 26)},
			want: []string{`range "a" (10.0.0.0/16, nodeMaskSize 24) overlaps range "x" (10.0.0.0/17, nodeMaskSize 26); ranges that contain one another must have the same nodeMaskSize`}},
		{name: "every pair once, and unparsable cidrs left to the CRD",
			ranges: []v1alpha1.PodCIDRRange{r("a", "fd00::/48", 0), r("bad", "fd00::/x", 0), r("b", "fd00::/48", 0), r("c", "fd00::/48", 0)},
			want:   []string{`ranges "a" and "b" have the same cidr fd00::/48`, `ranges "a" and "c" have the same cidr fd00::/48`, `ranges "b" and "c" have the same cidr fd00::/48`}},
	} {
		if got := SpecConflicts(tc.ranges); !slices.Equal(got, tc.want) {
			t.Errorf("%s: SpecConflicts = %q, want %q", tc.name, got, tc.want)
		}
	}
}
