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
	"runtime"
	"testing"
	"time"

	"go4.org/netipx"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/nodeipam/blockstore"
)

// The rebuild's memory with a large store (issue #31, point 2): 64 IPv6
// /40 ranges of /64 blocks (2^24 blocks each, the most a range may have),
// one node each, after a fail-over. Before the block store, the rebuild
// quarantined every recorded unheld block one map entry each: 4,194,240
// entries and 815 MiB more heap for this store, and 3.4 GiB per range for
// a record that did not parse.

// wideIPv6Net is the PodNetwork of that cluster.
func wideIPv6Net() *v1alpha1.PodNetwork {
	b := podNetwork()
	for i := range 64 {
		b.rng(fmt.Sprint("v6-", i), fmt.Sprintf("fd00:0:%x00::/40", i), v1alpha1.RangePhaseActive, mask(64))
	}
	return b.policy(60, v1alpha1.WhenExhaustedWait).obj()
}

// wideIPv6Store is the block store its last leader left: every node's
// block issued with, per range, the two chunks of the write-ahead window
// (32,768 blocks each), and one freed block per range.
func wideIPv6Store(tb testing.TB, pn *v1alpha1.PodNetwork) []byte {
	tb.Helper()
	cfg := NewConfig(pn)
	c := newChunker(cfg.Ranges)
	var issued netipx.IPSetBuilder
	var freed []blockstore.Freed
	for _, r := range c.outer {
		first := netip.PrefixFrom(r.prefix.Addr(), r.chunkLen)
		issued.AddPrefix(first)
		issued.AddPrefix(c.following(first)[0])
		rng, err := allocator.NewRange(r.prefix, r.nodeMask)
		if err != nil {
			tb.Fatal(err)
		}
		freed = append(freed, blockstore.Freed{Range: netipx.RangeOfPrefix(rng.Block(1 << 20)), At: t0.Add(-10 * time.Second)})
	}
	set, _ := issued.IPSet()
	data, _, err := blockstore.Encode(blockstore.Content{Issued: set, Freed: freed}, c.sections(), t0, blockstore.DefaultBudget)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// rebuildWide rebuilds NodeIPAM's state for wideIPv6Net's cluster from
// store (nil: none) and opens it.
func rebuildWide(tb testing.TB, pn *v1alpha1.PodNetwork, store []byte) *State {
	tb.Helper()
	r, err := NewRebuild(pn)
	if err != nil {
		tb.Fatal(err)
	}
	for i, spec := range r.cfg.Ranges {
		rng, err := allocator.NewRange(spec.Prefix, spec.NodeMaskSize)
		if err != nil {
			tb.Fatal(err)
		}
		name := fmt.Sprint("node-", i)
		if err := r.AddNode(name, types.UID("uid-"+name), []string{rng.Block(0).String()}); err != nil {
			tb.Fatal(err)
		}
	}
	if store != nil {
		_ = r.ApplyStore(store, t0) // an unparsable store is the case measured
	}
	r.RecordClaimed()
	clk := clocktesting.NewFakeClock(t0)
	s := NewState(clk, NewBackoff(time.Minute, time.Minute, clk), v1alpha1.IPv6)
	s.Open(r)
	return s
}

// heapOf returns the heap the state rebuildWide makes retains and the
// bytes it allocated on the way, which bound its peak from above.
func heapOf(tb testing.TB, pn *v1alpha1.PodNetwork, store []byte) (retained, allocated int64) {
	tb.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := rebuildWide(tb, pn, store)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), int64(after.TotalAlloc - before.TotalAlloc)
}

// maxStoreHeap is what a store may cost a rebuild beyond the same rebuild
// with no store (the allocator's bitmaps, 128 MiB here, are in both).
const maxStoreHeap = 32 << 20

func TestRebuildMemoryDoesNotGrowWithBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 64 ranges of 2^24 blocks: about 400 MiB")
	}
	pn := wideIPv6Net()
	emptyRetained, emptyAllocated := heapOf(t, pn, nil)
	for name, store := range map[string][]byte{
		"after a fail-over":   wideIPv6Store(t, pn),
		"an unparsable store": []byte("10.0.0.0/24\n"),
	} {
		retained, allocated := heapOf(t, pn, store)
		t.Logf("%s: retained %d MiB more, allocated %d MiB more than with no store (%d MiB, %d MiB)",
			name, (retained-emptyRetained)>>20, (allocated-emptyAllocated)>>20, emptyRetained>>20, emptyAllocated>>20)
		if retained-emptyRetained > maxStoreHeap || allocated-emptyAllocated > maxStoreHeap {
			t.Errorf("%s: the rebuild retained %d and allocated %d bytes more than with no store; at most %d",
				name, retained-emptyRetained, allocated-emptyAllocated, maxStoreHeap)
		}
	}
}

// BenchmarkRebuildStore reports the same as the test, per case, as
// benchmark metrics (docs/performance.md).
func BenchmarkRebuildStore(b *testing.B) {
	pn := wideIPv6Net()
	for _, tc := range []struct {
		name  string
		store []byte
	}{
		{"store=none", nil},
		{"store=failover", wideIPv6Store(b, pn)},
		{"store=unparsable", []byte("10.0.0.0/24\n")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			retained, allocated := heapOf(b, pn, tc.store)
			for b.Loop() {
				rebuildWide(b, pn, tc.store)
			}
			b.ReportMetric(float64(retained)/(1<<20), "retained-MiB")
			b.ReportMetric(float64(allocated)/(1<<20), "allocated-MiB")
		})
	}
}
