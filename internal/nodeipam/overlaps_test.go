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
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestFindOverlaps(t *testing.T) {
	h := func(node, p string) Holding { return Holding{Node: node, Prefix: mp(p)} }
	c := func(a, pa, b, pb string) Conflict {
		return Conflict{Node: a, Prefix: mp(pa), Other: b, OtherPrefix: mp(pb)}
	}
	tests := []struct {
		name string
		hs   []Holding
		want []Conflict
	}{
		{name: "none", hs: nil, want: nil},
		{
			name: "disjoint blocks and dual-stack nodes",
			hs:   []Holding{h("a", "10.0.0.0/24"), h("a", "fd00::/64"), h("b", "10.0.1.0/24"), h("b", "fd00:0:0:1::/64")},
			want: nil,
		},
		{
			name: "the same block twice",
			hs:   []Holding{h("b", "10.0.1.0/24"), h("a", "10.0.1.0/24"), h("c", "10.0.2.0/24")},
			want: []Conflict{c("a", "10.0.1.0/24", "b", "10.0.1.0/24")},
		},
		{
			name: "a larger podCIDR over two blocks",
			hs:   []Holding{h("a", "10.0.0.0/24"), h("b", "10.0.1.0/24"), h("c", "10.0.2.0/24"), h("wide", "10.0.0.0/23")},
			want: []Conflict{c("a", "10.0.0.0/24", "wide", "10.0.0.0/23"), c("b", "10.0.1.0/24", "wide", "10.0.0.0/23")},
		},
		{
			name: "nesting three deep, after a sibling closed",
			hs:   []Holding{h("x", "10.0.0.0/16"), h("y", "10.0.0.0/24"), h("z", "10.0.0.128/25"), h("w", "10.0.1.0/24")},
			want: []Conflict{
				c("w", "10.0.1.0/24", "x", "10.0.0.0/16"),
				c("x", "10.0.0.0/16", "y", "10.0.0.0/24"),
				c("x", "10.0.0.0/16", "z", "10.0.0.128/25"),
				c("y", "10.0.0.0/24", "z", "10.0.0.128/25"),
			},
		},
		{
			name: "one node overlapping itself is no conflict",
			hs:   []Holding{h("a", "10.0.0.0/23"), h("a", "10.0.0.0/24")},
			want: nil,
		},
		{
			name: "unmasked input",
			hs:   []Holding{h("a", "10.0.0.7/24"), h("b", "10.0.0.0/24")},
			want: []Conflict{c("a", "10.0.0.0/24", "b", "10.0.0.0/24")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FindOverlaps(tt.hs); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("FindOverlaps = %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestFindOverlapsMatchesBruteForce compares the sweep with comparing every
// pair on random prefixes of mixed sizes.
func TestFindOverlapsMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 200 {
		var hs []Holding
		for i := range 40 {
			bits := 20 + r.IntN(8)
			p := mp(fmt.Sprintf("10.%d.%d.0/%d", r.IntN(2), r.IntN(16), bits)).Masked()
			hs = append(hs, Holding{Node: fmt.Sprintf("n%d", i%25), Prefix: p})
		}
		var want []Conflict
		for i := range hs {
			for j := i + 1; j < len(hs); j++ {
				if hs[i].Node != hs[j].Node && hs[i].Prefix.Overlaps(hs[j].Prefix) {
					want = append(want, NewConflict(hs[i], hs[j]))
				}
			}
		}
		slices.SortFunc(want, compareConflicts)
		want = slices.Compact(want)
		if got := FindOverlaps(hs); !reflect.DeepEqual(got, want) {
			t.Fatalf("iteration %d: FindOverlaps = %v\nbrute force %v", iter, got, want)
		}
	}
}
