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
