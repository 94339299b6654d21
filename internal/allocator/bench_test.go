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

package allocator

import (
	"fmt"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"go4.org/netipx"
)

// benchRanges are the two sizes from the design brief: an IPv4 /8 split into
// /24 (65,536 blocks) and an IPv6 /40 split into /64 (16,777,216 blocks, the
// maximum; kube-controller-manager refuses more than 65,536 for IPv6).
var benchRanges = []struct {
	name string
	spec RangeSpec
}{
	{"v4-8-24", RangeSpec{Name: "r", Prefix: mp("10.0.0.0/8"), NodeMaskSize: 24, Active: true}},
	{"v6-40-64", RangeSpec{Name: "r", Prefix: mp("fd00::/40"), NodeMaskSize: 64, Active: true}},
}

var benchFills = []struct {
	name string
	frac float64
}{{"10pct", 0.10}, {"90pct", 0.90}, {"99.9pct", 0.999}}

// benchAllocator returns an allocator whose range has its lowest frac of
// blocks held. The held blocks are reserved as a few aggregate prefixes (one
// owner each) so a 16M-block range fills in milliseconds; the free blocks are
// all at the top of the range, the worst case for the lowest-free search. It
// returns the number of free blocks.
func benchAllocator(b *testing.B, s RangeSpec, frac float64) (*Allocator, int) {
	b.Helper()
	a := New(Options{RecycleDelay: time.Minute})
	if err := a.SetRanges([]RangeSpec{s}); err != nil {
		b.Fatal(err)
	}
	r, _ := NewRange(s.Prefix, s.NodeMaskSize)
	k := int(frac * float64(r.n))
	if k > 0 {
		span := netipx.IPRangeFrom(r.Block(0).Addr(), netipx.PrefixLastIP(r.Block(k-1)))
		for i, p := range span.Prefixes() {
			if err := a.Reserve("fill-"+strconv.Itoa(i), p); err != nil {
				b.Fatal(err)
			}
		}
	}
	return a, r.n - k
}

func benchOwners(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "node-" + strconv.Itoa(i)
	}
	return out
}

// BenchmarkAssign measures one Assign at a steady fill level: a batch of
// owners is assigned (timed), then released with the clock moved past the
// recycle delay (untimed), so later batches mix never-used and recycled
// blocks.
func BenchmarkAssign(b *testing.B) {
	for _, rc := range benchRanges {
		for _, fc := range benchFills {
			b.Run(fmt.Sprintf("%s/%s", rc.name, fc.name), func(b *testing.B) {
				a, free := benchAllocator(b, rc.spec, fc.frac)
				owners := benchOwners(max(1, min(1024, free/2)))
				now := t0
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					j := i % len(owners)
					if j == 0 && i > 0 {
						b.StopTimer()
						for _, o := range owners {
							a.Release(o, now)
						}
						now = now.Add(time.Hour)
						b.StartTimer()
					}
					if _, err := a.Assign(owners[j], "r", now); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRelease measures one Release (which quarantines the block) at a
// steady fill level, with the matching Assigns untimed.
func BenchmarkRelease(b *testing.B) {
	for _, rc := range benchRanges {
		for _, fc := range benchFills {
			b.Run(fmt.Sprintf("%s/%s", rc.name, fc.name), func(b *testing.B) {
				a, free := benchAllocator(b, rc.spec, fc.frac)
				owners := benchOwners(max(1, min(1024, free/2)))
				now := t0
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					j := i % len(owners)
					if j == 0 {
						b.StopTimer()
						now = now.Add(time.Hour)
						for _, o := range owners {
							if _, err := a.Assign(o, "r", now); err != nil {
								b.Fatal(err)
							}
						}
						b.StartTimer()
					}
					a.Release(owners[j], now)
				}
			})
		}
	}
}

// BenchmarkRebuild measures a controller restart with 65,000 Nodes: a fresh
// allocator, the range configuration, and one Reserve per Node.
func BenchmarkRebuild(b *testing.B) {
	const nodes = 65000
	s := RangeSpec{Name: "r", Prefix: mp("10.0.0.0/8"), NodeMaskSize: 24, Active: true}
	r, _ := NewRange(s.Prefix, s.NodeMaskSize)
	owners := benchOwners(nodes)
	blocks := make([]netip.Prefix, nodes)
	for i := range blocks {
		blocks[i] = r.Block(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a := New(Options{RecycleDelay: time.Minute})
		if err := a.SetRanges([]RangeSpec{s}); err != nil {
			b.Fatal(err)
		}
		for j, o := range owners {
			if err := a.Reserve(o, blocks[j]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
