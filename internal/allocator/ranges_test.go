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
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"go4.org/netipx"

	"podnetwork.io/operator/internal/cidr"
)

func TestSetRangesValidation(t *testing.T) {
	tests := []struct {
		name    string
		specs   []RangeSpec
		wantErr error
		errText string
	}{
		{name: "empty is fine", specs: nil},
		{name: "disjoint with different masks", specs: []RangeSpec{spec("a", "10.0.0.0/16", 24), spec("b", "10.1.0.0/16", 26), spec("c", "fd00::/48", 64)}},
		{name: "nested with same mask", specs: []RangeSpec{spec("a", "10.0.0.0/16", 24), spec("b", "10.0.4.0/22", 24)}},
		{name: "identical prefixes", specs: []RangeSpec{spec("a", "10.0.0.0/16", 24), spec("b", "10.0.0.0/16", 24)}},
		{name: "nested with different masks", specs: []RangeSpec{spec("a", "10.0.0.0/16", 24), spec("b", "10.0.4.0/22", 26)}, wantErr: ErrInvalidRanges, errText: "nested ranges must use the same nodeMaskSize"},
		{name: "duplicate name", specs: []RangeSpec{spec("a", "10.0.0.0/16", 24), spec("a", "10.1.0.0/16", 24)}, wantErr: ErrInvalidRanges, errText: "used twice"},
		{name: "no name", specs: []RangeSpec{spec("", "10.0.0.0/16", 24)}, wantErr: ErrInvalidRanges, errText: "no name"},
		{name: "reserved block", specs: []RangeSpec{spec("lo", "127.0.0.0/16", 24)}, wantErr: cidr.ErrReservedRange, errText: "loopback"},
		{name: "too many blocks", specs: []RangeSpec{spec("big", "fd00::/32", 64)}, wantErr: cidr.ErrInvalidRange, errText: "2^32 blocks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			a := newTestAllocator(t, Options{}, spec("keep", "192.168.0.0/16", 24))
			mustAssign(t, a, "n", "keep", t0)
			err := a.SetRanges(tt.specs)
			if tt.wantErr == nil {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(errors.Is(err, tt.wantErr)).To(BeTrue(), "got %v", err)
			g.Expect(errors.Is(err, ErrInvalidRanges)).To(BeTrue(), "got %v", err)
			g.Expect(err.Error()).To(ContainSubstring(tt.errText))
			// A rejected configuration changes nothing.
			g.Expect(mustUsage(t, a, "keep", t0).Allocated).To(Equal(1))
		})
	}
}

func TestSupernetConsistency(t *testing.T) {
	g := NewWithT(t)
	opts := Options{RecycleDelay: time.Minute}
	small := spec("small", "10.0.4.0/22", 24)
	big := spec("big", "10.0.0.0/20", 24)

	// Start with the small range only and use part of it.
	a := newTestAllocator(t, opts, small)
	g.Expect(mustAssign(t, a, "s1", "small", t0)).To(Equal(mp("10.0.4.0/24")))
	g.Expect(mustAssign(t, a, "s2", "small", t0)).To(Equal(mp("10.0.5.0/24")))
	a.Release("s1", t0)

	// Add the supernet: it sees the holding and the quarantined block.
	g.Expect(a.SetRanges([]RangeSpec{small, big})).To(Succeed())
	mustInvariants(t, a)
	g.Expect(mustUsage(t, a, "big", t0)).To(Equal(Usage{Capacity: 16, Allocated: 1, Free: 14, Quarantined: 1}))
	g.Expect(a.Holders("big")).To(Equal([]string{"s2"}))

	// Allocating from the supernet skips blocks held or quarantined in the
	// nested range, and vice versa.
	for i, want := range []string{"10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24", "10.0.6.0/24"} {
		g.Expect(mustAssign(t, a, "b"+string(rune('0'+i)), "big", t0)).To(Equal(mp(want)))
	}
	g.Expect(mustUsage(t, a, "small", t0)).To(Equal(Usage{Capacity: 4, Allocated: 2, Free: 1, Quarantined: 1}))
	g.Expect(mustAssign(t, a, "s3", "small", t0)).To(Equal(mp("10.0.7.0/24")))
	_, err := a.Assign("s4", "small", t0)
	g.Expect(errors.Is(err, ErrQuarantined)).To(BeTrue(), "got %v", err)
	mustInvariants(t, a)

	// A block in both ranges is freed in both at once.
	a.Release("s2", t0.Add(time.Second))
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{{mp("10.0.4.0/24"), t0}, {mp("10.0.5.0/24"), t0.Add(time.Second)}}))
	g.Expect(mustUsage(t, a, "big", t0).Quarantined).To(Equal(2))
	g.Expect(mustUsage(t, a, "small", t0).Quarantined).To(Equal(2))

	// Reusing a quarantined block through the supernet takes it out of the
	// nested range's FIFO too.
	g.Expect(mustAssign(t, a, "b9", "big", t0)).To(Equal(mp("10.0.8.0/24")))
	g.Expect(mustAssign(t, a, "s5", "small", t0.Add(time.Minute))).To(Equal(mp("10.0.4.0/24")))
	g.Expect(a.Holders("big")).To(ContainElement("s5"))
	mustInvariants(t, a)

	// Removing the supernet leaves the nested range intact.
	before := mustUsage(t, a, "small", t0.Add(time.Minute))
	g.Expect(a.SetRanges([]RangeSpec{small})).To(Succeed())
	mustInvariants(t, a)
	g.Expect(mustUsage(t, a, "small", t0.Add(time.Minute))).To(Equal(before))
	// Supernet holders outside the remaining range are kept, as unmanaged.
	g.Expect(a.Unmanaged()).To(HaveLen(5)) // b0-b3 and b9; b4 (10.0.6.0/24) is inside small
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{{mp("10.0.5.0/24"), t0.Add(time.Second)}}))
}

func TestSetRangesChangedRangeIsRebuilt(t *testing.T) {
	g := NewWithT(t)
	a := newTestAllocator(t, Options{RecycleDelay: time.Minute}, spec("r", "10.0.0.0/22", 24))
	mustAssign(t, a, "n1", "r", t0)
	mustAssign(t, a, "n2", "r", t0)
	a.Release("n1", t0)

	// Same name, bigger prefix: a new pool built from holdings and freed blocks.
	g.Expect(a.SetRanges([]RangeSpec{spec("r", "10.0.0.0/21", 24)})).To(Succeed())
	mustInvariants(t, a)
	g.Expect(mustUsage(t, a, "r", t0)).To(Equal(Usage{Capacity: 8, Allocated: 1, Free: 6, Quarantined: 1}))

	// Same name, different block size over the same addresses: the freed /24
	// becomes four quarantined /26 blocks, the held /24 four allocated ones.
	g.Expect(a.SetRanges([]RangeSpec{spec("r", "10.0.0.0/22", 26)})).To(Succeed())
	mustInvariants(t, a)
	g.Expect(mustUsage(t, a, "r", t0)).To(Equal(Usage{Capacity: 16, Allocated: 4, Free: 8, Quarantined: 4}))
	g.Expect(mustAssign(t, a, "n3", "r", t0)).To(Equal(mp("10.0.2.0/26")))
}

func TestRestoreQuarantine(t *testing.T) {
	g := NewWithT(t)
	opts := Options{RecycleDelay: time.Minute}
	specs := []RangeSpec{spec("v4", "10.0.0.0/22", 24), spec("v6", "fd00::/62", 64)}
	a := newTestAllocator(t, opts, specs...)
	for _, o := range []string{"a", "b", "c", "d"} {
		mustAssign(t, a, o, "v4", t0)
		mustAssign(t, a, o, "v6", t0)
	}
	a.Release("c", t0.Add(1*time.Second))
	a.Release("a", t0.Add(2*time.Second))
	exported := a.Quarantine()
	g.Expect(exported).To(Equal([]QuarantineEntry{
		{mp("10.0.2.0/24"), t0.Add(time.Second)}, {mp("fd00:0:0:2::/64"), t0.Add(time.Second)},
		{mp("10.0.0.0/24"), t0.Add(2 * time.Second)}, {mp("fd00::/64"), t0.Add(2 * time.Second)},
	}))

	// Restart: rebuild from holdings, then restore the persisted quarantine.
	b := newTestAllocator(t, opts, specs...)
	for _, h := range a.Holdings() {
		g.Expect(b.Reserve(h.Owner, h.Prefix)).To(Succeed())
	}
	g.Expect(diffSnapshots(a.snapshot(false), b.snapshot(false))).To(BeEmpty(), "rebuild must reproduce occupancy")
	b.RestoreQuarantine(exported)
	mustInvariants(t, b)
	g.Expect(diffSnapshots(a.snapshot(true), b.snapshot(true))).To(BeEmpty(), "restore must reproduce the full state")

	// Both hand out the same blocks from now on.
	for _, now := range []time.Time{t0.Add(3 * time.Second), t0.Add(time.Hour), t0.Add(time.Hour)} {
		for _, o := range []string{"x" + now.String(), "y" + now.String()} {
			pa, ea := a.Assign(o, "v4", now)
			pb, eb := b.Assign(o, "v4", now)
			g.Expect(pb).To(Equal(pa))
			g.Expect(eb == nil).To(Equal(ea == nil))
		}
	}
}

func TestRestoreQuarantineEdgeCases(t *testing.T) {
	g := NewWithT(t)
	a := newTestAllocator(t, Options{RecycleDelay: time.Minute}, spec("r", "10.0.0.0/22", 24))
	g.Expect(a.Reserve("held", mp("10.0.1.0/24"))).To(Succeed())
	a.RestoreQuarantine([]QuarantineEntry{
		{mp("10.0.1.0/24"), t0},                   // allocated: skipped
		{mp("192.168.0.0/24"), t0},                // in no range: skipped
		{netip.Prefix{}, t0},                      // invalid: skipped
		{mp("10.0.2.0/23"), t0},                   // wider than a block: both blocks
		{mp("10.0.3.0/24"), t0.Add(time.Second)},  // later time wins ...
		{mp("10.0.3.0/24"), t0.Add(-time.Second)}, // ... over an earlier one
		{mp("10.0.0.128/25"), t0.Add(-time.Hour)}, // narrower than a block: its block
	})
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{
		{mp("10.0.0.0/24"), t0.Add(-time.Hour)},
		{mp("10.0.2.0/24"), t0},
		{mp("10.0.3.0/24"), t0.Add(time.Second)},
	}))
	// Monotonic readings are stripped so persisted and live times compare.
	a.RestoreQuarantine([]QuarantineEntry{{mp("10.0.2.0/24"), time.Now()}})
	for _, e := range a.Quarantine() {
		g.Expect(e.FreedAt).To(Equal(e.FreedAt.Round(0)))
	}
}

func TestQuarantineBound(t *testing.T) {
	g := NewWithT(t)
	a := newTestAllocator(t, Options{RecycleDelay: time.Hour, MaxQuarantine: 3}, spec("r", "10.0.0.0/21", 24))
	for i := range 8 {
		mustAssign(t, a, string(rune('a'+i)), "r", t0)
	}
	// Release five blocks in order .4 .0 .6 .2 .1 within one delay: the bound
	// forgets none of them.
	for i, o := range []string{"e", "a", "g", "c", "b"} {
		a.Release(o, t0.Add(time.Duration(i)*time.Second))
		mustInvariants(t, a)
	}
	g.Expect(a.Quarantine()).To(HaveLen(5))
	_, err := a.Assign("x", "r", t0.Add(5*time.Second))
	g.Expect(errors.Is(err, ErrQuarantined)).To(BeTrue(), "got %v", err)

	// Once the delays of the two oldest have passed, the next release
	// forgets them (never-used again, reused lowest first) and keeps the
	// rest, which is still in its delay.
	later := t0.Add(time.Hour + time.Second)
	a.Release("d", later) // 10.0.3.0/24
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{
		{mp("10.0.6.0/24"), t0.Add(2 * time.Second)},
		{mp("10.0.2.0/24"), t0.Add(3 * time.Second)},
		{mp("10.0.1.0/24"), t0.Add(4 * time.Second)},
		{mp("10.0.3.0/24"), later},
	}))
	g.Expect(mustAssign(t, a, "x", "r", later)).To(Equal(mp("10.0.0.0/24")))
	g.Expect(mustAssign(t, a, "y", "r", later)).To(Equal(mp("10.0.4.0/24")))
	_, err = a.Assign("z", "r", later)
	g.Expect(errors.Is(err, ErrQuarantined)).To(BeTrue(), "got %v", err)

	// A single release larger than the bound keeps every block.
	b := newTestAllocator(t, Options{RecycleDelay: time.Hour, MaxQuarantine: 3}, spec("r", "10.0.0.0/21", 24))
	g.Expect(b.Reserve("wide", mp("10.0.0.0/21"))).To(Succeed())
	b.Release("wide", t0)
	mustInvariants(t, b)
	g.Expect(b.Quarantine()).To(HaveLen(8))
	g.Expect(mustUsage(t, b, "r", t0)).To(Equal(Usage{Capacity: 8, Quarantined: 8}))
}

// TestNoEarlyReuseBeyondDefaultBound frees more blocks than
// DefaultMaxQuarantine within one delay, then asks for blocks: none may come
// back before its delay has passed.
func TestNoEarlyReuseBeyondDefaultBound(t *testing.T) {
	g := NewWithT(t)
	const n = DefaultMaxQuarantine + 100
	a := newTestAllocator(t, Options{RecycleDelay: time.Hour}, spec("r", "10.0.0.0/11", 24)) // 8192 blocks
	// Blocks n and above are held, so only the n freed blocks are left.
	r, err := NewRange(mp("10.0.0.0/11"), 24)
	g.Expect(err).NotTo(HaveOccurred())
	for i, p := range netipx.IPRangeFrom(r.Block(n).Addr(), netipx.PrefixLastIP(r.Prefix())).Prefixes() {
		g.Expect(a.Reserve(fmt.Sprintf("filler%d", i), p)).To(Succeed())
	}
	for i := range n {
		g.Expect(mustAssign(t, a, fmt.Sprintf("n%d", i), "r", t0)).To(Equal(r.Block(i)))
	}
	for i := range n {
		a.Release(fmt.Sprintf("n%d", i), t0.Add(time.Duration(i)*time.Millisecond))
	}
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(HaveLen(n))

	now := t0.Add(30 * time.Minute)
	_, err = a.Assign("new", "r", now)
	g.Expect(errors.Is(err, ErrQuarantined)).To(BeTrue(), "got %v", err)
	g.Expect(mustUsage(t, a, "r", now)).To(Equal(Usage{Capacity: 8192, Allocated: 8192 - n, Quarantined: n}))

	// Once the first delay has passed, the block freed first comes back.
	g.Expect(mustAssign(t, a, "new", "r", t0.Add(time.Hour))).To(Equal(r.Block(0)))
}

func TestAssignManyIsAtomic(t *testing.T) {
	g := NewWithT(t)
	opts := Options{RecycleDelay: time.Minute}
	a := newTestAllocator(t, opts, spec("v4", "10.0.0.0/23", 24), spec("v6", "fd00::/64", 64))

	got, err := a.AssignMany("n1", []string{"v4", "v6"}, t0)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal([]netip.Prefix{mp("10.0.0.0/24"), mp("fd00::/64")}))
	// Idempotent.
	g.Expect(a.AssignMany("n1", []string{"v4", "v6"}, t0)).To(Equal(got))

	// v6 is exhausted: v4 must not leak, however often the caller retries.
	before := a.snapshot(true)
	for range 3 {
		_, err = a.AssignMany("n2", []string{"v4", "v6"}, t0)
		g.Expect(errors.Is(err, ErrExhausted)).To(BeTrue(), "got %v", err)
		g.Expect(diffSnapshots(before, a.snapshot(true))).To(BeEmpty())
	}
	mustInvariants(t, a)

	// A block reused from quarantine goes back to quarantine with its
	// original time when the second family fails.
	mustAssign(t, a, "n3", "v4", t0) // 10.0.1.0/24, the last never-used block
	a.Release("n3", t0.Add(time.Second))
	before = a.snapshot(true)
	_, err = a.AssignMany("n2", []string{"v4", "v6"}, t0.Add(time.Hour))
	g.Expect(errors.Is(err, ErrExhausted)).To(BeTrue(), "got %v", err)
	g.Expect(diffSnapshots(before, a.snapshot(true))).To(BeEmpty())
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{{mp("10.0.1.0/24"), t0.Add(time.Second)}}))

	// An unknown or inactive range fails before anything is touched.
	_, err = a.AssignMany("n2", []string{"v4", "nope"}, t0)
	g.Expect(errors.Is(err, ErrUnknownRange)).To(BeTrue(), "got %v", err)
	g.Expect(diffSnapshots(before, a.snapshot(true))).To(BeEmpty())

	// Once v6 has room, the same call succeeds.
	a.Release("n1", t0)
	got, err = a.AssignMany("n2", []string{"v4", "v6"}, t0.Add(2*time.Hour))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal([]netip.Prefix{mp("10.0.0.0/24"), mp("fd00::/64")}))
	mustInvariants(t, a)
}

func TestBusyAndNextNeverUsed(t *testing.T) {
	g := NewWithT(t)
	a := newTestAllocator(t, Options{RecycleDelay: time.Minute}, spec("r", "10.0.0.0/22", 24), spec("full", "10.0.8.0/24", 24))
	g.Expect(a.Reserve("wide", mp("10.0.8.0/23"))).To(Succeed()) // covers "full" and beyond
	mustAssign(t, a, "a", "r", t0)                               // .0, provisional
	mustAssign(t, a, "b", "r", t0)                               // .1
	mustAssign(t, a, "c", "r", t0)                               // .2
	a.Release("b", t0)
	a.Release("c", t0.Add(-time.Hour))

	g.Expect(a.Busy(t0.Add(time.Second))).To(ConsistOf(mp("10.0.8.0/23"), mp("10.0.0.0/24"), mp("10.0.1.0/24")))
	g.Expect(a.Busy(t0.Add(time.Minute))).To(ConsistOf(mp("10.0.8.0/23"), mp("10.0.0.0/24")))
	g.Expect(a.NextNeverUsed()).To(Equal([]netip.Prefix{mp("10.0.3.0/24")}))
}
