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
	"runtime"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"go4.org/netipx"
)

// ipRange parses "from-to" for expectations.
func ipRange(s string) netipx.IPRange {
	r, err := netipx.ParseIPRange(s)
	if err != nil {
		panic(err)
	}
	return r
}

// heldBackState returns the held-back time, the held-back block count of
// each named pool, and whether a held-back time runs, without expiring.
func (a *Allocator) heldBackState(names ...string) (time.Time, []int, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var n []int
	for _, name := range names {
		n = append(n, a.pools[name].heldN)
	}
	return a.heldBackAt, n, a.heldBackLive
}

func TestHoldBack(t *testing.T) {
	g := NewWithT(t)
	a := newTestAllocator(t, Options{RecycleDelay: time.Minute},
		spec("r", "10.0.0.0/21", 24), spec("sub", "10.0.4.0/22", 24), spec("v6", "fd00::/62", 64))
	g.Expect(a.Reserve("held", mp("10.0.1.0/24"))).To(Succeed())
	a.RestoreQuarantine([]QuarantineEntry{{mp("10.0.2.0/24"), t0.Add(-time.Hour)}})
	tm, rs := a.HeldBack(t0)
	g.Expect(tm.IsZero()).To(BeTrue())
	g.Expect(rs).To(BeNil())

	// A monotonic clock reading is stripped.
	at := time.Now()
	added := a.HoldBack([]netip.Prefix{
		mp("10.0.0.0/22"),     // .0 and .3 new; .1 held; .2 freed before at joins
		mp("10.0.5.128/25"),   // narrower than a block: its block, in both nested ranges, counted once
		mp("192.0.2.0/24"),    // in no range
		mp("fd00:0:0:3::/64"), // other family
		{},                    // invalid
	}, at)
	mustInvariants(t, a)
	g.Expect(added).To(Equal(5))
	// The per-block entry is gone: held-back blocks are not listed.
	g.Expect(a.Quarantine()).To(BeEmpty())
	tm, rs = a.HeldBack(at)
	g.Expect(tm).To(Equal(at.Round(0)))
	g.Expect(rs).To(Equal([]netipx.IPRange{
		ipRange("10.0.0.0-10.0.0.255"), ipRange("10.0.2.0-10.0.3.255"), ipRange("10.0.5.0-10.0.5.255"),
		ipRange("fd00:0:0:3::-fd00:0:0:3:ffff:ffff:ffff:ffff"),
	}))
	g.Expect(mustUsage(t, a, "r", at)).To(Equal(Usage{Capacity: 8, Allocated: 1, Free: 3, Quarantined: 4}))
	g.Expect(mustUsage(t, a, "sub", at)).To(Equal(Usage{Capacity: 4, Free: 3, Quarantined: 1}))
	// Busy lists holdings and per-block entries only.
	g.Expect(a.Busy(at)).To(ConsistOf(mp("10.0.1.0/24")))
	// Held-back blocks go after every never-used block.
	g.Expect(mustAssign(t, a, "n", "r", at)).To(Equal(mp("10.0.4.0/24")))
	// Only the blocks not held back yet count: .6 and .7.
	g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/21")}, at)).To(Equal(2))
	mustInvariants(t, a)
	_, err := a.Assign("m", "r", at)
	var qe *QuarantinedError
	g.Expect(errors.As(err, &qe)).To(BeTrue(), "got %v", err)
	g.Expect(*qe).To(Equal(QuarantinedError{Range: "r", Quarantined: 6, ReusableAt: at.Round(0).Add(time.Minute), RetryIn: time.Minute}))
}

// TestHoldBackKeepsLaterFreed checks which per-block entries HoldBack keeps,
// that the held-back time only grows, and the reuse order that follows.
func TestHoldBackKeepsLaterFreed(t *testing.T) {
	g := NewWithT(t)
	const delay = time.Minute
	a := newTestAllocator(t, Options{RecycleDelay: delay}, spec("r", "10.0.0.0/22", 24), spec("sub", "10.0.0.0/23", 24))
	a.RestoreQuarantine([]QuarantineEntry{
		{mp("10.0.0.0/24"), t0.Add(-time.Hour)},       // before at: held back
		{mp("10.0.1.0/24"), t0},                       // exactly at: kept
		{mp("10.0.2.0/24"), t0.Add(10 * time.Second)}, // after at: kept
		{mp("10.0.3.0/24"), t0.Add(-time.Hour)},       // not in the prefixes: kept
	})
	// 10.0.0.0/24 lies in both nested ranges: it is counted once.
	g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/23"), mp("10.0.2.0/24")}, t0)).To(Equal(1))
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{
		{mp("10.0.3.0/24"), t0.Add(-time.Hour)},
		{mp("10.0.1.0/24"), t0},
		{mp("10.0.2.0/24"), t0.Add(10 * time.Second)},
	}))
	tm, rs := a.HeldBack(t0)
	g.Expect(tm).To(Equal(t0))
	g.Expect(rs).To(Equal([]netipx.IPRange{ipRange("10.0.0.0-10.0.0.255")}))

	// An earlier at keeps the later held-back time; .3, freed before it,
	// joins; .0 is held back already.
	g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/22")}, t0.Add(-time.Second))).To(Equal(1))
	mustInvariants(t, a)
	tm, rs = a.HeldBack(t0)
	g.Expect(tm).To(Equal(t0))
	g.Expect(rs).To(Equal([]netipx.IPRange{ipRange("10.0.0.0-10.0.0.255"), ipRange("10.0.3.0-10.0.3.255")}))
	g.Expect(mustUsage(t, a, "r", t0.Add(30*time.Second))).To(Equal(Usage{Capacity: 4, Quarantined: 4}))
	g.Expect(mustUsage(t, a, "sub", t0.Add(30*time.Second))).To(Equal(Usage{Capacity: 2, Quarantined: 2}))

	// Under Wait: the held-back set and the freed .1 are as old; the lower
	// index (.0, held back) decides, and every waiting block is counted.
	_, err := a.Assign("w", "r", t0.Add(30*time.Second))
	var qe *QuarantinedError
	g.Expect(errors.As(err, &qe)).To(BeTrue(), "got %v", err)
	g.Expect(qe.ReusableAt).To(Equal(t0.Add(delay)))
	g.Expect(qe.Quarantined).To(Equal(4))

	// At t0+delay the held-back blocks expire and are never-used, so they
	// go before the freed .1, reusable at the same time.
	now := t0.Add(delay)
	g.Expect(mustAssign(t, a, "x", "r", now)).To(Equal(mp("10.0.0.0/24")))
	g.Expect(mustAssign(t, a, "y", "r", now)).To(Equal(mp("10.0.3.0/24")))
	g.Expect(mustAssign(t, a, "z", "r", now)).To(Equal(mp("10.0.1.0/24")))
	_, err = a.Assign("v", "r", now)
	g.Expect(errors.As(err, &qe)).To(BeTrue(), "got %v", err)
	g.Expect(qe.ReusableAt).To(Equal(t0.Add(10*time.Second + delay)))
	g.Expect(qe.Quarantined).To(Equal(1))
	mustInvariants(t, a)
}

// TestHoldBackLargeIPv6 holds back a whole /40 of /64 blocks (2^24) with
// three holders: the intervals cost a few bytes, not 200 per block.
func TestHoldBackLargeIPv6(t *testing.T) {
	g := NewWithT(t)
	const delay = time.Minute
	a := newTestAllocator(t, Options{RecycleDelay: delay}, spec("v6", "fd00::/40", 64))
	r, _ := NewRange(mp("fd00::/40"), 64)
	for i, idx := range []int{1, 1 << 23, 1<<24 - 1} {
		g.Expect(a.Reserve(fmt.Sprintf("n%d", i), r.Block(idx))).To(Succeed())
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	added := a.HoldBack([]netip.Prefix{mp("fd00::/40")}, t0)
	runtime.ReadMemStats(&after)
	g.Expect(added).To(Equal(1<<24 - 3))
	// Everything HoldBack allocated, garbage included, beyond the range's
	// own bitmap (allocated by SetRanges, before).
	g.Expect(after.TotalAlloc - before.TotalAlloc).To(BeNumerically("<", 1<<20))
	g.Expect(a.pools["v6"].held).To(Equal([]span{{0, 0}, {2, 1<<23 - 1}, {1<<23 + 1, 1<<24 - 2}}))
	mustInvariants(t, a)

	now := t0.Add(30 * time.Second)
	_, err := a.Assign("x", "v6", now)
	var qe *QuarantinedError
	g.Expect(errors.As(err, &qe)).To(BeTrue(), "got %v", err)
	g.Expect(*qe).To(Equal(QuarantinedError{Range: "v6", Quarantined: 1<<24 - 3, ReusableAt: t0.Add(delay), RetryIn: 30 * time.Second}))
	g.Expect(mustUsage(t, a, "v6", now)).To(Equal(Usage{Capacity: 1 << 24, Allocated: 3, Quarantined: 1<<24 - 3}))
	tm, rs := a.HeldBack(now)
	g.Expect(tm).To(Equal(t0))
	g.Expect(rs).To(HaveLen(3))

	// Expired: the lowest blocks, never-used again, come first.
	now = t0.Add(delay)
	g.Expect(mustAssign(t, a, "x", "v6", now)).To(Equal(r.Block(0)))
	g.Expect(mustAssign(t, a, "y", "v6", now)).To(Equal(r.Block(2)))
	g.Expect(mustUsage(t, a, "v6", now)).To(Equal(Usage{Capacity: 1 << 24, Allocated: 5, Free: 1<<24 - 5}))
	tm, rs = a.HeldBack(now)
	g.Expect(tm.IsZero()).To(BeTrue())
	g.Expect(rs).To(BeNil())
	mustInvariants(t, a)
}

// TestHoldBackAssignOrder: held-back blocks come after never-used ones and
// compete with freed ones by time (heldBackAt, lowest index first).
func TestHoldBackAssignOrder(t *testing.T) {
	const delay = time.Minute
	type assignStep struct {
		at         time.Duration // from t0
		want       string        // the block, or "" for a QuarantinedError
		reusableAt time.Duration // from t0, with want ""
		waiting    int           // Quarantined, with want ""
	}
	// 10.0.0.0/24 split into /26: .0 .64 .128 .192.
	fill := func(g Gomega, a *Allocator) {
		for _, o := range []string{"n1", "n2", "n3", "n4"} {
			_, err := a.Assign(o, "r", t0)
			g.Expect(err).NotTo(HaveOccurred())
		}
	}
	tests := []struct {
		name   string
		policy ExhaustedPolicy
		setup  func(g Gomega, a *Allocator)
		steps  []assignStep
	}{
		{
			name:   "ReuseOldest takes the lowest held-back block",
			policy: ReuseOldest,
			setup: func(g Gomega, a *Allocator) {
				fill(g, a)
				a.Release("n4", t0)
				a.Release("n2", t0)
				g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/24")}, t0.Add(time.Second))).To(Equal(2))
			},
			steps: []assignStep{{at: 2 * time.Second, want: "10.0.0.64/26"}, {at: 2 * time.Second, want: "10.0.0.192/26"}},
		},
		{
			name:   "a block freed before heldBackAt goes first",
			policy: ReuseOldest,
			setup: func(g Gomega, a *Allocator) {
				fill(g, a)
				a.Release("n3", t0)
				a.Release("n2", t0.Add(5*time.Second))
				g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.64/26")}, t0.Add(10*time.Second))).To(Equal(1))
			},
			steps: []assignStep{{at: 20 * time.Second, want: "10.0.0.128/26"}, {at: 20 * time.Second, want: "10.0.0.64/26"}},
		},
		{
			name:   "under Wait the older one decides when to retry, both count",
			policy: Wait,
			setup: func(g Gomega, a *Allocator) {
				fill(g, a)
				a.Release("n3", t0)
				a.Release("n2", t0.Add(5*time.Second))
				g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.64/26")}, t0.Add(10*time.Second))).To(Equal(1))
			},
			steps: []assignStep{
				{at: 20 * time.Second, reusableAt: delay, waiting: 2},
				{at: delay, want: "10.0.0.128/26"},
				{at: delay, reusableAt: 10*time.Second + delay, waiting: 1},
				{at: 10*time.Second + delay, want: "10.0.0.64/26"},
			},
		},
		{
			name:   "a block freed after heldBackAt goes after the held-back ones",
			policy: ReuseOldest,
			setup: func(g Gomega, a *Allocator) {
				fill(g, a)
				a.Release("n2", t0)
				g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.64/26")}, t0.Add(time.Second))).To(Equal(1))
				a.Release("n3", t0.Add(5*time.Second))
			},
			steps: []assignStep{{at: 10 * time.Second, want: "10.0.0.64/26"}, {at: 10 * time.Second, want: "10.0.0.128/26"}},
		},
		{
			name:   "at expiry held-back blocks are never-used and go before a reusable freed block",
			policy: Wait,
			setup: func(g Gomega, a *Allocator) {
				fill(g, a)
				a.Release("n3", t0)
				a.Release("n2", t0)
				g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.64/26")}, t0.Add(time.Second))).To(Equal(1))
			},
			steps: []assignStep{
				{at: 10 * time.Second, reusableAt: delay, waiting: 2},
				{at: delay + time.Second, want: "10.0.0.64/26"},
				{at: delay + time.Second, want: "10.0.0.128/26"},
			},
		},
		{
			name:   "held-back blocks go after never-used ones",
			policy: Wait,
			setup: func(g Gomega, a *Allocator) {
				_, err := a.Assign("n1", "r", t0)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/25")}, t0)).To(Equal(1))
			},
			steps: []assignStep{
				{want: "10.0.0.128/26"},
				{want: "10.0.0.192/26"},
				{at: time.Second, reusableAt: delay, waiting: 1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			a := newTestAllocator(t, Options{RecycleDelay: delay, WhenExhausted: tt.policy}, spec("r", "10.0.0.0/24", 26))
			tt.setup(g, a)
			mustInvariants(t, a)
			for i, s := range tt.steps {
				now := t0.Add(s.at)
				got, err := a.Assign(fmt.Sprintf("x%d", i), "r", now)
				if s.want != "" {
					g.Expect(err).NotTo(HaveOccurred(), "step %d", i)
					g.Expect(got).To(Equal(mp(s.want)), "step %d", i)
				} else {
					var qe *QuarantinedError
					g.Expect(errors.As(err, &qe)).To(BeTrue(), "step %d: got %v, %v", i, got, err)
					g.Expect(qe.ReusableAt).To(Equal(t0.Add(s.reusableAt)), "step %d", i)
					g.Expect(qe.RetryIn).To(Equal(s.reusableAt-s.at), "step %d", i)
					g.Expect(qe.Quarantined).To(Equal(s.waiting), "step %d", i)
				}
				mustInvariants(t, a)
			}
		})
	}
}

// TestHoldBackNested: a supernet and a range nested in it agree on every
// held-back block, and Assign from either takes the block out of both.
func TestHoldBackNested(t *testing.T) {
	g := NewWithT(t)
	const delay = time.Minute
	a := newTestAllocator(t, Options{RecycleDelay: delay, WhenExhausted: ReuseOldest},
		spec("inner", "10.0.16.0/20", 24), spec("super", "10.0.0.0/16", 24))
	g.Expect(a.Reserve("h1", mp("10.0.0.0/24"))).To(Succeed())  // super only
	g.Expect(a.Reserve("h2", mp("10.0.17.0/24"))).To(Succeed()) // both
	// Every block once, though the inner ones are in two ranges.
	g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/16")}, t0)).To(Equal(254))
	mustInvariants(t, a)
	_, n, _ := a.heldBackState("super", "inner")
	g.Expect(n).To(Equal([]int{254, 15}))
	g.Expect(mustUsage(t, a, "super", t0)).To(Equal(Usage{Capacity: 256, Allocated: 2, Quarantined: 254}))
	g.Expect(mustUsage(t, a, "inner", t0)).To(Equal(Usage{Capacity: 16, Allocated: 1, Quarantined: 15}))

	// Holding back the inner range again adds nothing but moves the time
	// of every held-back block, the supernet's own included.
	g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.16.0/20")}, t0.Add(5*time.Second))).To(Equal(0))
	tm, _ := a.HeldBack(t0)
	g.Expect(tm).To(Equal(t0.Add(5 * time.Second)))

	g.Expect(mustAssign(t, a, "x", "inner", t0.Add(10*time.Second))).To(Equal(mp("10.0.16.0/24")))
	mustInvariants(t, a)
	g.Expect(mustAssign(t, a, "y", "super", t0.Add(10*time.Second))).To(Equal(mp("10.0.1.0/24")))
	mustInvariants(t, a)
	g.Expect(mustUsage(t, a, "super", t0.Add(10*time.Second))).To(Equal(Usage{Capacity: 256, Allocated: 4, Quarantined: 252}))
	g.Expect(mustUsage(t, a, "inner", t0.Add(10*time.Second))).To(Equal(Usage{Capacity: 16, Allocated: 2, Quarantined: 14}))
	_, rs := a.HeldBack(t0.Add(10 * time.Second))
	g.Expect(rs).To(Equal([]netipx.IPRange{ipRange("10.0.2.0-10.0.15.255"), ipRange("10.0.18.0-10.0.255.255")}))

	// Released, the block is a per-block entry in both ranges.
	a.Release("x", t0.Add(20*time.Second))
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{{mp("10.0.16.0/24"), t0.Add(20 * time.Second)}}))
}

// TestHoldBackReserveAndRelease: Reserve takes held-back blocks out of the
// set with the right reference counts; Release then quarantines them per
// block as usual.
func TestHoldBackReserveAndRelease(t *testing.T) {
	g := NewWithT(t)
	const delay = time.Minute
	a := newTestAllocator(t, Options{RecycleDelay: delay}, spec("r", "10.0.0.0/22", 24), spec("sub", "10.0.0.0/23", 24))
	g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/22")}, t0)).To(Equal(4))
	g.Expect(a.Reserve("a", mp("10.0.1.0/24"))).To(Succeed())
	mustInvariants(t, a)
	// An overlapping adoption across a held-back and an allocated block:
	// .0 gets one holder, .1 two (checked by the invariants).
	g.Expect(a.Reserve("b", mp("10.0.0.0/23"))).To(Succeed())
	mustInvariants(t, a)
	g.Expect(a.pools["r"].extra).To(Equal(map[int]uint32{1: 1}))
	g.Expect(mustUsage(t, a, "r", t0)).To(Equal(Usage{Capacity: 4, Allocated: 2, Quarantined: 2}))
	g.Expect(mustUsage(t, a, "sub", t0)).To(Equal(Usage{Capacity: 2, Allocated: 2}))
	_, rs := a.HeldBack(t0)
	g.Expect(rs).To(Equal([]netipx.IPRange{ipRange("10.0.2.0-10.0.3.255")}))

	a.Release("b", t0.Add(10*time.Second))
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{{mp("10.0.0.0/24"), t0.Add(10 * time.Second)}}))
	a.Release("a", t0.Add(20*time.Second))
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{
		{mp("10.0.0.0/24"), t0.Add(10 * time.Second)}, {mp("10.0.1.0/24"), t0.Add(20 * time.Second)},
	}))
	g.Expect(mustUsage(t, a, "r", t0.Add(30*time.Second))).To(Equal(Usage{Capacity: 4, Quarantined: 4}))
	// The held-back blocks, older, decide when to retry.
	_, err := a.Assign("x", "r", t0.Add(30*time.Second))
	var qe *QuarantinedError
	g.Expect(errors.As(err, &qe)).To(BeTrue(), "got %v", err)
	g.Expect(qe.ReusableAt).To(Equal(t0.Add(delay)))
	g.Expect(mustAssign(t, a, "x", "r", t0.Add(delay))).To(Equal(mp("10.0.2.0/24")))
}

// TestHoldBackUndo: a failed AssignMany and Unassign put a held-back block
// back into the held-back set.
func TestHoldBackUndo(t *testing.T) {
	const delay = time.Minute
	tests := []struct {
		name string
		// run gets an allocator whose v4 block .0 is held back from t0+1s
		// (.64 is n2's) and whose v6 range has one never-used block left.
		run func(g Gomega, a *Allocator)
		// wantHeld is the held-back time (from t0) and ranges afterwards.
		wantAt   time.Duration
		wantHeld []netipx.IPRange
	}{
		{
			name: "AssignMany failing on its second range restores the state exactly",
			run: func(g Gomega, a *Allocator) {
				g.Expect(a.Reserve("x2", mp("fd00::4/126"))).To(Succeed())
				before := a.snapshot(true)
				_, err := a.AssignMany("y", []string{"v4", "v6"}, t0.Add(2*time.Second))
				g.Expect(errors.Is(err, ErrExhausted)).To(BeTrue(), "got %v", err)
				g.Expect(diffSnapshots(before, a.snapshot(true))).To(BeEmpty())
			},
			wantAt:   time.Second,
			wantHeld: []netipx.IPRange{ipRange("10.0.0.0-10.0.0.63")},
		},
		{
			name: "Unassign restores the state exactly",
			run: func(g Gomega, a *Allocator) {
				before := a.snapshot(true)
				got, err := a.AssignMany("y", []string{"v4", "v6"}, t0.Add(2*time.Second))
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(got).To(Equal([]netip.Prefix{mp("10.0.0.0/26"), mp("fd00::4/126")}))
				g.Expect(a.Unassign("y")).To(Equal([]netip.Prefix{mp("10.0.0.0/26"), mp("fd00::4/126")}))
				g.Expect(diffSnapshots(before, a.snapshot(true))).To(BeEmpty())
			},
			wantAt:   time.Second,
			wantHeld: []netipx.IPRange{ipRange("10.0.0.0-10.0.0.63")},
		},
		{
			name: "Unassign after a later HoldBack: held back at the later time",
			run: func(g Gomega, a *Allocator) {
				g.Expect(mustAssign(t, a, "y", "v4", t0.Add(2*time.Second))).To(Equal(mp("10.0.0.0/26")))
				a.Release("n2", t0.Add(3*time.Second))
				g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.64/26")}, t0.Add(30*time.Second))).To(Equal(1))
				g.Expect(a.Unassign("y")).To(Equal([]netip.Prefix{mp("10.0.0.0/26")}))
			},
			wantAt:   30 * time.Second,
			wantHeld: []netipx.IPRange{ipRange("10.0.0.0-10.0.0.127")},
		},
		{
			name: "Unassign after the held-back set expired: never-used, its delay is over",
			run: func(g Gomega, a *Allocator) {
				g.Expect(mustAssign(t, a, "y", "v4", t0.Add(2*time.Second))).To(Equal(mp("10.0.0.0/26")))
				g.Expect(mustUsage(t, a, "v4", t0.Add(time.Second+delay))).To(Equal(Usage{Capacity: 2, Allocated: 2}))
				g.Expect(a.Unassign("y")).To(Equal([]netip.Prefix{mp("10.0.0.0/26")}))
				g.Expect(mustUsage(t, a, "v4", t0.Add(time.Second+delay))).To(Equal(Usage{Capacity: 2, Allocated: 1, Free: 1}))
				g.Expect(a.NextNeverUsed()).To(ContainElement(mp("10.0.0.0/26")))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			a := newTestAllocator(t, Options{RecycleDelay: delay, WhenExhausted: ReuseOldest},
				spec("v4", "10.0.0.0/25", 26), spec("v6", "fd00::/125", 126))
			mustAssign(t, a, "n1", "v4", t0)
			mustAssign(t, a, "n2", "v4", t0)
			g.Expect(a.Reserve("x1", mp("fd00::/126"))).To(Succeed())
			a.Release("n1", t0)
			g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/25")}, t0.Add(time.Second))).To(Equal(1))
			g.Expect(a.Quarantine()).To(BeEmpty())
			tt.run(g, a)
			mustInvariants(t, a)
			g.Expect(a.Quarantine()).To(BeEmpty())
			tm, rs := a.HeldBack(t0.Add(2 * time.Second))
			g.Expect(rs).To(Equal(tt.wantHeld))
			if tt.wantHeld != nil {
				g.Expect(tm).To(Equal(t0.Add(tt.wantAt)))
			}
		})
	}
}

func TestHeldBackRanges(t *testing.T) {
	g := NewWithT(t)
	const delay = time.Minute
	a := newTestAllocator(t, Options{RecycleDelay: delay},
		spec("super", "10.0.0.0/16", 24), spec("inner", "10.0.16.0/20", 24), spec("v6", "fd00::/120", 124))
	g.Expect(a.Reserve("h", mp("10.0.17.0/24"))).To(Succeed())
	g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.16.0/21"), mp("10.0.32.0/24"), mp("10.0.33.0/24"), mp("fd00::/121")}, t0)).To(Equal(7 + 2 + 8))
	mustInvariants(t, a)
	// The inner blocks are in both pools but listed once; adjacent blocks
	// merge into one range.
	tm, rs := a.HeldBack(t0)
	g.Expect(tm).To(Equal(t0))
	g.Expect(rs).To(Equal([]netipx.IPRange{
		ipRange("10.0.16.0-10.0.16.255"), ipRange("10.0.18.0-10.0.23.255"), ipRange("10.0.32.0-10.0.33.255"),
		ipRange("fd00::-fd00::7f"),
	}))
	// Persisted and passed back to a fresh allocator, they give the same
	// state.
	b := newTestAllocator(t, Options{RecycleDelay: delay},
		spec("super", "10.0.0.0/16", 24), spec("inner", "10.0.16.0/20", 24), spec("v6", "fd00::/120", 124))
	g.Expect(b.Reserve("h", mp("10.0.17.0/24"))).To(Succeed())
	var ps []netip.Prefix
	for _, r := range rs {
		ps = append(ps, r.Prefixes()...)
	}
	g.Expect(b.HoldBack(ps, tm)).To(Equal(17))
	g.Expect(diffSnapshots(a.snapshot(true), b.snapshot(true))).To(BeEmpty())

	tm, rs = a.HeldBack(t0.Add(delay))
	g.Expect(tm.IsZero()).To(BeTrue())
	g.Expect(rs).To(BeNil())
	mustInvariants(t, a)
}

// TestHoldBackExpiry: every call that takes the current time expires the
// held-back set once heldBackAt+RecycleDelay is not after it, and not
// before.
func TestHoldBackExpiry(t *testing.T) {
	const delay = time.Minute
	tests := []struct {
		name string
		call func(a *Allocator, now time.Time)
	}{
		{"Usage", func(a *Allocator, now time.Time) { _, _ = a.Usage("r", now) }},
		{"Busy", func(a *Allocator, now time.Time) { a.Busy(now) }},
		{"HeldBack", func(a *Allocator, now time.Time) { a.HeldBack(now) }},
		{"Assign", func(a *Allocator, now time.Time) { _, _ = a.Assign("n", "other", now) }},
		{"AssignMany", func(a *Allocator, now time.Time) { _, _ = a.AssignMany("n", []string{"other"}, now) }},
		{"HoldBack", func(a *Allocator, now time.Time) { a.HoldBack(nil, now) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			a := newTestAllocator(t, Options{RecycleDelay: delay}, spec("r", "10.0.0.0/24", 26), spec("other", "10.1.0.0/24", 26))
			g.Expect(a.Reserve("h", mp("10.0.0.0/26"))).To(Succeed())
			g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/24")}, t0)).To(Equal(3))

			tt.call(a, t0.Add(delay-time.Nanosecond))
			at, n, live := a.heldBackState("r")
			g.Expect(at).To(Equal(t0))
			g.Expect(n).To(Equal([]int{3}))
			g.Expect(live).To(BeTrue())

			tt.call(a, t0.Add(delay))
			at, n, live = a.heldBackState("r")
			g.Expect(at.IsZero()).To(BeTrue())
			g.Expect(n).To(Equal([]int{0}))
			g.Expect(live).To(BeFalse())
			mustInvariants(t, a)
			// Never-used again: the lowest goes first.
			g.Expect(mustAssign(t, a, "x", "r", t0.Add(delay))).To(Equal(mp("10.0.0.64/26")))
		})
	}
}

// TestHoldBackSetRanges: held-back blocks survive a range change in every
// range that contains them.
func TestHoldBackSetRanges(t *testing.T) {
	const delay = time.Minute
	tests := []struct {
		name      string
		before    []RangeSpec
		held      string // reserved by owner "a" before HoldBack
		after     []RangeSpec
		wantUsage map[string]Usage
		wantHeld  []netipx.IPRange
	}{
		{
			name:      "an unchanged range keeps them and a new nested range gets them",
			before:    []RangeSpec{spec("r", "10.0.0.0/22", 24)},
			held:      "10.0.1.0/24",
			after:     []RangeSpec{spec("r", "10.0.0.0/22", 24), spec("sub", "10.0.2.0/23", 24)},
			wantUsage: map[string]Usage{"r": {Capacity: 4, Allocated: 1, Quarantined: 3}, "sub": {Capacity: 2, Quarantined: 2}},
			wantHeld:  []netipx.IPRange{ipRange("10.0.0.0-10.0.0.255"), ipRange("10.0.2.0-10.0.3.255")},
		},
		{
			name:      "the nested range keeps them when the supernet goes",
			before:    []RangeSpec{spec("r", "10.0.0.0/22", 24), spec("sub", "10.0.0.0/23", 24)},
			held:      "10.0.1.0/24",
			after:     []RangeSpec{spec("sub", "10.0.0.0/23", 24)},
			wantUsage: map[string]Usage{"sub": {Capacity: 2, Allocated: 1, Quarantined: 1}},
			wantHeld:  []netipx.IPRange{ipRange("10.0.0.0-10.0.0.255")},
		},
		{
			name:      "a supernet replacing its nested range gets them",
			before:    []RangeSpec{spec("sub", "10.0.0.0/23", 24)},
			held:      "10.0.1.0/24",
			after:     []RangeSpec{spec("r", "10.0.0.0/22", 24)},
			wantUsage: map[string]Usage{"r": {Capacity: 4, Allocated: 1, Free: 2, Quarantined: 1}},
			wantHeld:  []netipx.IPRange{ipRange("10.0.0.0-10.0.0.255")},
		},
		{
			name:      "finer blocks over held-back addresses are held back",
			before:    []RangeSpec{spec("r", "10.0.0.0/22", 24)},
			held:      "10.0.1.0/24",
			after:     []RangeSpec{spec("r", "10.0.0.0/22", 25)},
			wantUsage: map[string]Usage{"r": {Capacity: 8, Allocated: 2, Quarantined: 6}},
			wantHeld:  []netipx.IPRange{ipRange("10.0.0.0-10.0.0.255"), ipRange("10.0.2.0-10.0.3.255")},
		},
		{
			// A coarser block that an owner holds part of is allocated,
			// which keeps it from being handed out at least as well.
			name:      "coarser blocks over held-back addresses are held back unless held",
			before:    []RangeSpec{spec("r", "10.0.0.0/22", 24)},
			held:      "10.0.1.0/24",
			after:     []RangeSpec{spec("r", "10.0.0.0/22", 23)},
			wantUsage: map[string]Usage{"r": {Capacity: 2, Allocated: 1, Quarantined: 1}},
			wantHeld:  []netipx.IPRange{ipRange("10.0.2.0-10.0.3.255")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			a := newTestAllocator(t, Options{RecycleDelay: delay}, tt.before...)
			g.Expect(a.Reserve("a", mp(tt.held))).To(Succeed())
			a.HoldBack([]netip.Prefix{mp("10.0.0.0/22")}, t0)
			g.Expect(a.SetRanges(tt.after)).To(Succeed())
			mustInvariants(t, a)
			for name, want := range tt.wantUsage {
				g.Expect(mustUsage(t, a, name, t0)).To(Equal(want), name)
			}
			tm, rs := a.HeldBack(t0)
			g.Expect(tm).To(Equal(t0))
			g.Expect(rs).To(Equal(tt.wantHeld))
		})
	}
}

// TestHoldBackRestoreQuarantine: a restored entry later than heldBackAt
// takes its block out of the held-back set; an earlier one leaves it there.
func TestHoldBackRestoreQuarantine(t *testing.T) {
	g := NewWithT(t)
	const delay = time.Minute
	a := newTestAllocator(t, Options{RecycleDelay: delay}, spec("r", "10.0.0.0/22", 24), spec("sub", "10.0.2.0/23", 24))
	g.Expect(a.HoldBack([]netip.Prefix{mp("10.0.0.0/22")}, t0)).To(Equal(4))
	a.RestoreQuarantine([]QuarantineEntry{
		{mp("10.0.0.0/24"), t0.Add(-time.Minute)},
		{mp("10.0.1.0/24"), t0},
		{mp("10.0.2.0/24"), t0.Add(time.Minute)},
	})
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{{mp("10.0.2.0/24"), t0.Add(time.Minute)}}))
	tm, rs := a.HeldBack(t0)
	g.Expect(tm).To(Equal(t0))
	g.Expect(rs).To(Equal([]netipx.IPRange{ipRange("10.0.0.0-10.0.1.255"), ipRange("10.0.3.0-10.0.3.255")}))
	g.Expect(mustUsage(t, a, "r", t0.Add(30*time.Second))).To(Equal(Usage{Capacity: 4, Quarantined: 4}))
	g.Expect(mustUsage(t, a, "sub", t0.Add(30*time.Second))).To(Equal(Usage{Capacity: 2, Quarantined: 2}))
	g.Expect(mustAssign(t, a, "x", "r", t0.Add(delay))).To(Equal(mp("10.0.0.0/24")))
	g.Expect(mustUsage(t, a, "r", t0.Add(delay))).To(Equal(Usage{Capacity: 4, Allocated: 1, Free: 2, Quarantined: 1}))
}

// BenchmarkHoldBackLargeIPv6 holds back 64 IPv6 /40 ranges of /64 blocks
// (2^30 blocks) with one holder each, as a rebuild whose record covers them
// all does; the held-back set is expired between iterations, untimed.
func BenchmarkHoldBackLargeIPv6(b *testing.B) {
	const ranges = 64
	specs := make([]RangeSpec, ranges)
	prefixes := make([]netip.Prefix, ranges)
	for i := range specs {
		p := netip.PrefixFrom(netip.AddrFrom16([16]byte{0: 0xfd, 4: byte(i)}), 40)
		specs[i] = RangeSpec{Name: fmt.Sprintf("r%02d", i), Prefix: p, NodeMaskSize: 64, Active: true}
		prefixes[i] = p
	}
	a := New(Options{RecycleDelay: time.Minute})
	if err := a.SetRanges(specs); err != nil {
		b.Fatal(err)
	}
	for i, p := range prefixes {
		r, _ := NewRange(p, 64)
		if err := a.Reserve(fmt.Sprintf("n%d", i), r.Block(r.Capacity()/2)); err != nil {
			b.Fatal(err)
		}
	}
	now := t0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n := a.HoldBack(prefixes, now); n != ranges*(1<<24-1) {
			b.Fatalf("HoldBack = %d", n)
		}
		b.StopTimer()
		now = now.Add(time.Hour)
		a.HeldBack(now) // expires
		b.StartTimer()
	}
}
