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

package bench

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"go4.org/netipx"
	"k8s.io/kubernetes/pkg/controller/nodeipam/ipam/cidrset"

	"podnetwork.io/operator/internal/allocator"
)

// benchRange is a cluster range split into node blocks.
type benchRange struct {
	name   string
	prefix netip.Prefix
	mask   int
	// scattered says how the held blocks are laid out: at random (as after
	// long node churn), or as the lowest blocks, reserved in a few
	// aggregate prefixes so a 16M-block range fills in milliseconds.
	scattered bool
	// kcm says whether cidrset can hold the range at all: it refuses more
	// than 2^16 blocks for IPv6 (clusterSubnetMaxDiff).
	kcm bool
}

var ranges = []benchRange{
	{name: "v4-8-24", prefix: netip.MustParsePrefix("10.0.0.0/8"), mask: 24, scattered: true, kcm: true},
	{name: "v6-40-64", prefix: netip.MustParsePrefix("fd00::/40"), mask: 64},
}

var fills = []float64{0.10, 0.90, 0.999}

// blockAllocator is the common shape of the two allocators: take the next
// block, give one back. A handle is whatever the implementation needs to
// release the block.
type blockAllocator interface {
	allocate(i int) (handle any, err error)
	release(i int, handle any)
	// nextBatch runs, untimed, between two batches (ours moves its clock past
	// the recycle delay so released blocks are reusable, as in a cluster).
	nextBatch()
}

// ours wraps the operator's allocator. Owners are node names, as in the
// controller; Assign is what NodeIPAM calls per node (the Reserve that
// confirms the block after the PATCH is not timed, as cidrset's Occupy on
// the same update is not).
type ours struct {
	a      *allocator.Allocator
	owners []string
	now    time.Time
}

// allocate returns no handle: release needs only the owner, and boxing the
// returned prefix into an interface would time an allocation of the
// harness, not of the allocator.
func (o *ours) allocate(i int) (any, error) {
	_, err := o.a.Assign(o.owners[i], "r", o.now)
	return nil, err
}
func (o *ours) release(i int, _ any) { o.a.Release(o.owners[i], o.now) }
func (o *ours) nextBatch()           { o.now = o.now.Add(time.Hour) }

// kcm wraps cidrset.CidrSet, kube-controller-manager v1.37.2's
// RangeAllocator bitmap (a big.Int scanned linearly from the last
// allocation).
type kcm struct{ s *cidrset.CidrSet }

func (k *kcm) allocate(int) (any, error) { return k.s.AllocateNext() }
func (k *kcm) release(_ int, h any) {
	if err := k.s.Release(h.(*net.IPNet)); err != nil {
		panic(err)
	}
}
func (k *kcm) nextBatch() {}

// heldBlocks returns the indices of the blocks held before the benchmark:
// frac of n, scattered at random (fixed seed, so both implementations hold
// the same blocks) or the lowest ones.
func heldBlocks(n int, frac float64, scattered bool) []int {
	k := int(frac * float64(n))
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if scattered {
		rng := rand.New(rand.NewPCG(1, 2))
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	}
	return idx[:k]
}

func newOurs(b *testing.B, r benchRange, frac float64) (*ours, int) {
	b.Helper()
	a := allocator.New(allocator.Options{RecycleDelay: time.Minute})
	if err := a.SetRanges([]allocator.RangeSpec{{Name: "r", Prefix: r.prefix, NodeMaskSize: r.mask, Active: true}}); err != nil {
		b.Fatal(err)
	}
	geo, err := allocator.NewRange(r.prefix, r.mask)
	if err != nil {
		b.Fatal(err)
	}
	n := geo.Capacity()
	k := int(frac * float64(n))
	if r.scattered {
		for j, i := range heldBlocks(n, frac, true) {
			if err := a.Reserve("held-"+strconv.Itoa(j), geo.Block(i)); err != nil {
				b.Fatal(err)
			}
		}
	} else if k > 0 {
		span := netipx.IPRangeFrom(geo.Block(0).Addr(), netipx.PrefixLastIP(geo.Block(k-1)))
		for j, p := range span.Prefixes() {
			if err := a.Reserve("held-"+strconv.Itoa(j), p); err != nil {
				b.Fatal(err)
			}
		}
	}
	free := n - k
	owners := make([]string, batchSize(free))
	for i := range owners {
		owners[i] = "node-" + strconv.Itoa(i)
	}
	return &ours{a: a, owners: owners, now: time.Unix(1_700_000_000, 0)}, free
}

func newKCM(b *testing.B, r benchRange, frac float64) (*kcm, int) {
	b.Helper()
	_, cluster, err := net.ParseCIDR(r.prefix.String())
	if err != nil {
		b.Fatal(err)
	}
	s, err := cidrset.NewCIDRSet(cluster, r.mask)
	if err != nil {
		b.Fatal(err)
	}
	geo, err := allocator.NewRange(r.prefix, r.mask)
	if err != nil {
		b.Fatal(err)
	}
	n := geo.Capacity()
	held := heldBlocks(n, frac, r.scattered)
	for _, i := range held {
		if err := s.Occupy(netipx.PrefixIPNet(geo.Block(i))); err != nil {
			b.Fatal(err)
		}
	}
	return &kcm{s: s}, n - len(held)
}

// batchSize is how many blocks one batch takes: half the free blocks, at
// most 1024, so the fill level stays where it was set.
func batchSize(free int) int { return max(1, min(1024, free/2)) }

// impls lists the implementations that can hold r.
func impls(b *testing.B, r benchRange, frac float64) map[string]func() (blockAllocator, int) {
	out := map[string]func() (blockAllocator, int){
		"ours": func() (blockAllocator, int) { return newOurs(b, r, frac) },
	}
	if r.kcm {
		out["kcm"] = func() (blockAllocator, int) { return newKCM(b, r, frac) }
	}
	return out
}

// forEach runs body for every range, fill level and implementation, with
// benchstat-friendly sub-benchmark names.
func forEach(b *testing.B, body func(b *testing.B, a blockAllocator, batch int)) {
	for _, r := range ranges {
		for _, f := range fills {
			for _, impl := range []string{"ours", "kcm"} {
				mk, ok := impls(b, r, f)[impl]
				if !ok {
					continue
				}
				name := fmt.Sprintf("range=%s/fill=%s/impl=%s", r.name, strconv.FormatFloat(f*100, 'f', -1, 64), impl)
				b.Run(name, func(b *testing.B) {
					a, free := mk()
					body(b, a, batchSize(free))
				})
			}
		}
	}
}

// BenchmarkAllocateNext measures taking the next free block at a steady fill
// level: a batch is allocated (timed), then released (untimed), and again,
// so the held fraction stays at the set level and later batches mix
// never-used and recycled blocks.
func BenchmarkAllocateNext(b *testing.B) {
	forEach(b, func(b *testing.B, a blockAllocator, batch int) {
		handles := make([]any, batch)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			j := i % batch
			if j == 0 && i > 0 {
				b.StopTimer()
				for k, h := range handles {
					a.release(k, h)
				}
				a.nextBatch()
				b.StartTimer()
			}
			h, err := a.allocate(j)
			if err != nil {
				b.Fatal(err)
			}
			handles[j] = h
		}
	})
}

// BenchmarkRelease measures giving a block back at a steady fill level, with
// the matching allocations untimed. Ours quarantines the block (remembers
// when it was freed); cidrset clears its bit.
func BenchmarkRelease(b *testing.B) {
	forEach(b, func(b *testing.B, a blockAllocator, batch int) {
		handles := make([]any, batch)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			j := i % batch
			if j == 0 {
				b.StopTimer()
				a.nextBatch()
				for k := range handles {
					h, err := a.allocate(k)
					if err != nil {
						b.Fatal(err)
					}
					handles[k] = h
				}
				b.StartTimer()
			}
			a.release(j, handles[j])
		}
	})
}
