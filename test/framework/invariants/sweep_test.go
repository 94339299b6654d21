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

package invariants

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestAnyOverlapExamples(t *testing.T) {
	tests := []struct {
		name  string
		nodes []corev1.Node
		want  bool
	}{
		{"none", nil, false},
		{"disjoint", []corev1.Node{node("a", "", "10.0.0.0/24"), node("b", "", "10.0.1.0/24")}, false},
		{"equal", []corev1.Node{node("a", "", "10.0.0.0/24"), node("b", "", "10.0.0.0/24")}, true},
		{"nested, other nodes between", []corev1.Node{
			node("a", "", "10.0.0.0/16"), node("b", "", "10.1.0.0/24"), node("c", "", "10.0.200.0/24"),
		}, true},
		{"dual-stack, no overlap across families", []corev1.Node{
			node("a", "", "10.0.0.0/24", "fd99::/64"), node("b", "", "10.0.1.0/24", "fd99:0:0:1::/64"),
		}, false},
		{"dual-stack, IPv6 overlap", []corev1.Node{
			node("a", "", "10.0.0.0/24", "fd99::/64"), node("b", "", "10.0.1.0/24", "fd99::/48"),
		}, true},
		{"a node's own two families", []corev1.Node{node("a", "", "10.0.0.0/24", "fd99::/64")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, got := AnyOverlap(tc.nodes)
			if got != tc.want {
				t.Fatalf("AnyOverlap = %v (%s), want %v", got, o, tc.want)
			}
		})
	}
}

// TestAnyOverlapAgreesWithOverlaps checks the sweep against the pairwise
// comparison on random node sets of nested and disjoint prefixes.
func TestAnyOverlapAgreesWithOverlaps(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var found [2]int
	for round := range 500 {
		var nodes []corev1.Node
		for i := range 2 + rng.IntN(12) {
			// A prefix of 16 to 24 bits around a random /24 of 198.18.0.0/15.
			addr := netip.AddrFrom4([4]byte{198, 18 + byte(rng.IntN(2)), byte(rng.IntN(256)), 0})
			p := netip.PrefixFrom(addr, 16+rng.IntN(9)).Masked()
			nodes = append(nodes, node(fmt.Sprintf("n%d", i), "", p.String()))
		}
		_, got := AnyOverlap(nodes)
		if want := len(Overlaps(nodes)) > 0; got != want {
			t.Fatalf("round %d (seed %d): AnyOverlap = %v, Overlaps found %v: %v", round, seed, got, want, Overlaps(nodes))
		}
		if got {
			found[1]++
		} else {
			found[0]++
		}
	}
	if found[0] == 0 || found[1] == 0 {
		t.Errorf("the random sets were %d without and %d with overlaps: the test compared only one kind", found[0], found[1])
	}
}
