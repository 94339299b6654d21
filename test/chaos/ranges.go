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

package chaos

import (
	"slices"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

// The ranges of a run. "ab" is the supernet that expands "a" and "b" in
// place; "c" is drained by deleting its nodes.
var rangeCIDRs = map[string]string{
	"a":  "10.128.0.0/16",
	"b":  "10.129.0.0/16",
	"ab": "10.128.0.0/15",
	"c":  "10.130.0.0/16",
}

// initialRanges are in the spec when the run starts.
var initialRanges = []string{"a", "c"}

// RangeEdit is one change of spec.ranges, as an admin would make it.
type RangeEdit string

// The edits, in the order the script makes them.
const (
	AddB    RangeEdit = "add b"
	Expand  RangeEdit = "expand a and b into ab"
	RemoveC RangeEdit = "remove c"
	RemoveA RangeEdit = "remove a (covered by ab)"
	ReaddA  RangeEdit = "re-add a"
	ReaddC  RangeEdit = "re-add c"
)

// rangeScript places the edits in the fault window: every range lifecycle
// path (added, activated, expanded by a supernet, drained by replacing
// nodes, released without replacing any because a supernet covers it,
// re-added while draining or after being purged) happens under faults.
var rangeScript = []struct {
	fraction float64
	edit     RangeEdit
}{
	{0.12, AddB},
	{0.25, Expand},
	{0.40, RemoveC},
	{0.50, RemoveA},
	{0.65, ReaddA},
	{0.78, ReaddC},
}

// edited returns the spec ranges after edit.
func edited(ranges []v1alpha1.PodCIDRRange, edit RangeEdit, mask int32) []v1alpha1.PodCIDRRange {
	add := func(name string) {
		if !slices.ContainsFunc(ranges, func(r v1alpha1.PodCIDRRange) bool { return r.Name == name }) {
			ranges = append(ranges, specRange(name, mask))
		}
	}
	remove := func(name string) {
		ranges = slices.DeleteFunc(ranges, func(r v1alpha1.PodCIDRRange) bool { return r.Name == name })
	}
	switch edit {
	case AddB:
		add("b")
	case Expand:
		add("ab")
	case RemoveC:
		remove("c")
	case RemoveA:
		remove("a")
	case ReaddA:
		add("a")
	case ReaddC:
		add("c")
	}
	return ranges
}

func specRange(name string, mask int32) v1alpha1.PodCIDRRange {
	return framework.Range(name, rangeCIDRs[name]).NodeMaskSize(mask).Obj()
}

// finalRangeNames are the spec ranges once the script has run.
func finalRangeNames() []string {
	ranges := make([]v1alpha1.PodCIDRRange, 0, len(initialRanges))
	for _, n := range initialRanges {
		ranges = append(ranges, specRange(n, 24))
	}
	for _, s := range rangeScript {
		ranges = edited(ranges, s.edit, 24)
	}
	names := make([]string, 0, len(ranges))
	for _, r := range ranges {
		names = append(names, r.Name)
	}
	return names
}
