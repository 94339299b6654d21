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
	"cmp"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// AnyOverlap finds a pair of distinct nodes with overlapping podCIDRs by
// sorting every podCIDR and comparing neighbours, for node counts where
// Overlaps, which compares every pair, takes too long (a benchmark's
// 100,000 nodes: 5·10⁹ pairs). Two prefixes either nest or are disjoint,
// so if a prefix overlaps any later one in (address, length) order it
// contains it, and with it the start of its next neighbour: checking
// neighbours finds an overlap whenever there is one. That holds for nodes
// Shape accepts; a node with two podCIDRs of one family may hide one.
func AnyOverlap(nodes []corev1.Node) (Overlap, bool) {
	type owned struct {
		p    netip.Prefix
		node string
	}
	var all []owned
	for i := range nodes {
		for _, p := range PodCIDRs(&nodes[i]) {
			all = append(all, owned{p: p, node: nodes[i].Name})
		}
	}
	slices.SortFunc(all, func(x, y owned) int {
		if c := x.p.Addr().Compare(y.p.Addr()); c != 0 {
			return c
		}
		return cmp.Compare(x.p.Bits(), y.p.Bits())
	})
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if a.node != b.node && a.p.Overlaps(b.p) {
			return Overlap{Node: a.node, NodePodCIDR: a.p, Other: b.node, OtherPodCIDR: b.p}, true
		}
	}
	return Overlap{}, false
}
