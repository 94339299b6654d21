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
	"net/netip"
	"testing"
)

// BenchmarkFindOverlaps measures the start-up overlap check over the
// podCIDRs of 65,000 dual-stack nodes (130,000 holdings, two of them
// conflicting).
func BenchmarkFindOverlaps(b *testing.B) {
	const nodes = 65_000
	hs := make([]Holding, 0, 2*nodes)
	for i := range nodes {
		name := fmt.Sprintf("node-%05d", i)
		v4 := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 0}), 24)
		v6 := netip.MustParsePrefix(fmt.Sprintf("fd00:0:%x:%x::/64", i>>16, i&0xffff))
		hs = append(hs, Holding{Node: name, Prefix: v4}, Holding{Node: name, Prefix: v6})
	}
	hs = append(hs, Holding{Node: "intruder", Prefix: hs[0].Prefix})
	b.ReportAllocs()
	for b.Loop() {
		if got := FindOverlaps(hs); len(got) != 1 {
			b.Fatalf("FindOverlaps found %d conflicts, want 1", len(got))
		}
	}
}
