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
	"net/netip"
	"slices"
	"testing"
	"time"

	"go4.org/netipx"
)

// The fuzz universe: small ranges so every invariant can be brute-forced.
// "a-sub" nests in "a" and is switched on and off; the reserve prefixes have
// every size relation to the blocks (exact, smaller, larger, wider than a
// range, outside every range).
var (
	fuzzRanges = []RangeSpec{
		{Name: "a", Prefix: mp("10.0.0.0/26"), NodeMaskSize: 29},      // 8 blocks
		{Name: "a-sub", Prefix: mp("10.0.0.16/28"), NodeMaskSize: 29}, // 2 blocks inside a
		{Name: "b", Prefix: mp("10.0.1.0/27"), NodeMaskSize: 29},      // 4 blocks
		{Name: "v6", Prefix: mp("fd00::/122"), NodeMaskSize: 125},     // 8 blocks
	}
	fuzzNames    = []string{"a", "a-sub", "b", "v6"}
	fuzzPairs    = [][]string{{"a", "v6"}, {"b", "v6"}, {"a-sub", "b"}, {"a", "a-sub"}}
	fuzzReserves = []netip.Prefix{
		mp("10.0.0.0/29"), mp("10.0.0.8/30"), mp("10.0.0.16/28"), mp("10.0.0.32/27"),
		mp("10.0.1.0/26"), mp("10.0.2.0/24"), mp("10.0.0.0/22"), mp("10.0.1.24/29"),
		mp("fd00::/124"), mp("fd00::8/127"), mp("fd00::40/122"), mp("fd00::38/125"),
	}
	fuzzOwners = []string{"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"}
)

const fuzzDelay = 5 * time.Second

type fuzzHarness struct {
	t      *testing.T
	opts   Options
	a      *Allocator
	now    time.Time
	subOn  bool
	active map[string]bool
	// trimmedAt is the time of the last step's Release, which applies the
	// MaxQuarantine bound; lastQuarantine is the quarantine after the last
	// step.
	trimmedAt      *time.Time
	lastQuarantine []QuarantineEntry
	// lastHeldAt and lastHeld are the held-back time and blocks after the
	// last step.
	lastHeldAt time.Time
	lastHeld   *netipx.IPSet
}

func overlapsHolding(p netip.Prefix, hs []Holding) bool {
	return slices.ContainsFunc(hs, func(h Holding) bool { return h.Prefix.Overlaps(p) })
}

func (h *fuzzHarness) specs() []RangeSpec {
	var out []RangeSpec
	for _, s := range fuzzRanges {
		if s.Name == "a-sub" && !h.subOn {
			continue
		}
		s.Active = h.active[s.Name]
		out = append(out, s)
	}
	return out
}

// FuzzAllocator interprets the input as a sequence of operations and checks
// the allocator's invariants after every step. Byte 0 picks the exhaustion
// policy and the quarantine bound; then each pair of bytes is (op, arg), op
// taken modulo 11 (so ops 0 to 9 of older seeds keep their meaning).
func FuzzAllocator(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 400 {
			return
		}
		cfg := data[0]
		h := &fuzzHarness{
			t: t,
			opts: Options{
				RecycleDelay:  fuzzDelay,
				WhenExhausted: ExhaustedPolicy(cfg & 1),
				MaxQuarantine: 1 + int(cfg>>1)%8,
			},
			now:    t0,
			subOn:  cfg&0x80 != 0,
			active: map[string]bool{"a": true, "a-sub": true, "b": true, "v6": true},
		}
		h.a = New(h.opts)
		if err := h.a.SetRanges(h.specs()); err != nil {
			t.Fatal(err)
		}
		for i := 1; i+1 < len(data); i += 2 {
			h.step(data[i], data[i+1])
			h.check()
		}
	})
}

func (h *fuzzHarness) step(op, arg byte) {
	t, a := h.t, h.a
	owner := fuzzOwners[int(arg)%len(fuzzOwners)]
	switch op % 11 {
	case 0, 1: // assign
		name := fuzzNames[int(arg>>3)%len(fuzzNames)]
		want, wantErr := h.expectAssign(owner, name)
		others := h.othersHoldings(owner)
		got, err := a.Assign(owner, name, h.now)
		if wantErr != nil {
			if !errors.Is(err, wantErr) {
				t.Fatalf("Assign(%s, %s) error %v, want %v", owner, name, err, wantErr)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("Assign(%s, %s) = %v, %v; want %v", owner, name, got, err, want)
		}
		if p := a.pools[name]; !p.active && !slices.Contains(a.owners[owner], got) {
			t.Fatalf("Assign(%s, %s) = %v from an inactive range", owner, name, got)
		}
		if o, ok := overlapsAny(got, others); ok {
			t.Fatalf("Assign(%s, %s) = %v overlaps %v", owner, name, got, o)
		}
	case 2: // release
		if a.Release(owner, h.now) != nil {
			at := h.now
			h.trimmedAt = &at
		}
	case 3: // reserve (only prefixes that overlap no other owner)
		p := fuzzReserves[int(arg>>3)%len(fuzzReserves)]
		if _, ok := overlapsAny(p, h.othersHoldings(owner)); ok {
			return
		}
		if err := a.Reserve(owner, p); err != nil {
			t.Fatalf("Reserve(%s, %v): %v", owner, p, err)
		}
	case 4: // rebuild from holders: same occupancy
		b := h.rebuild(false)
		if d := diffSnapshots(a.snapshot(false), b.snapshot(false)); d != "" {
			t.Fatalf("rebuild from holdings differs: %s", d)
		}
	case 5: // restart with quarantine restore: same state, continue with it
		b := h.rebuild(true)
		if d := diffSnapshots(a.snapshot(true), b.snapshot(true)); d != "" {
			t.Fatalf("restart with restored quarantine differs: %s", d)
		}
		h.a = b
	case 6: // advance the clock, occasionally step it back a little
		if arg&0x80 != 0 {
			h.now = h.now.Add(-time.Second)
		} else {
			h.now = h.now.Add(time.Duration(arg%16) * time.Second)
		}
	case 7: // toggle a range's Active flag
		name := fuzzNames[int(arg)%len(fuzzNames)]
		h.active[name] = !h.active[name]
		h.setRanges()
	case 8: // add or remove the nested range
		h.subOn = !h.subOn
		h.setRanges()
	case 9: // dual-stack style all-or-nothing; with bit 7, undone by Unassign
		names := fuzzPairs[int(arg>>3)%len(fuzzPairs)]
		before := a.snapshot(true)
		others := h.othersHoldings(owner)
		_, provisional := a.provisional[owner]
		undo := arg&0x80 != 0 && !provisional
		got, err := a.AssignMany(owner, names, h.now)
		if err != nil {
			if d := diffSnapshots(before, a.snapshot(true)); d != "" {
				t.Fatalf("failed AssignMany(%s, %v) changed state (%v): %s", owner, names, err, d)
			}
			return
		}
		if undo {
			a.Unassign(owner)
			if d := diffSnapshots(before, a.snapshot(true)); d != "" {
				t.Fatalf("Unassign(%s) after AssignMany(%s, %v) = %v did not restore the state: %s", owner, owner, names, got, d)
			}
			return
		}
		for i, p := range got {
			r := a.pools[names[i]]
			if !r.rng.prefix.Overlaps(p) || !slices.Contains(a.owners[owner], p) {
				t.Fatalf("AssignMany(%s, %v)[%d] = %v not held in range", owner, names, i, p)
			}
			if o, ok := overlapsAny(p, others); ok {
				t.Fatalf("AssignMany(%s, %v) = %v overlaps %v", owner, names, p, o)
			}
		}
	case 10: // hold back a prefix, as the rebuild does with its record
		p := fuzzReserves[int(arg>>3)%len(fuzzReserves)]
		at := h.now.Add(-time.Duration(arg&7) * time.Second)
		want := h.expectHoldBack(p, at)
		if got := a.HoldBack([]netip.Prefix{p}, at); got != want {
			t.Fatalf("HoldBack(%v, %v) = %d, want %d", p, at, got, want)
		}
		// Every unallocated block of p waits at least until at+delay.
		for _, q := range a.order {
			lo, hi, ok := q.rng.Overlapping(p)
			for i := lo; ok && i <= hi; i++ {
				b := q.rng.block(i)
				freedAt, freed := a.freed[b]
				switch {
				case a.allocatedIn(q, i):
				case freed && !freedAt.Before(at):
				case q.isHeld(i) && !a.heldBackAt.Before(at):
				default:
					t.Fatalf("HoldBack(%v, %v) left %v of %s neither allocated nor quarantined from at (freed %v at %v, held back %v at %v)",
						p, at, b, q.name, freed, freedAt, q.isHeld(i), a.heldBackAt)
				}
			}
		}
	}
}

// expectHoldBack counts by brute force the distinct blocks HoldBack(p, at)
// must add to the held-back set: in a range, unallocated, not held back yet,
// and never used or freed before at.
func (h *fuzzHarness) expectHoldBack(p netip.Prefix, at time.Time) int {
	a := h.a
	blocks := map[netip.Prefix]bool{}
	for _, q := range a.order {
		lo, hi, ok := q.rng.Overlapping(p)
		for i := lo; ok && i <= hi; i++ {
			b := q.rng.block(i)
			if a.allocatedIn(q, i) || q.isHeld(i) {
				continue
			}
			if freedAt, freed := a.freed[b]; freed && !freedAt.Before(at) {
				continue
			}
			blocks[b] = true
		}
	}
	return len(blocks)
}

func (h *fuzzHarness) setRanges() {
	if err := h.a.SetRanges(h.specs()); err != nil {
		h.t.Fatalf("SetRanges: %v", err)
	}
}

// rebuild replays the holdings (and optionally the quarantine) into a fresh
// allocator, as the controller does on start.
func (h *fuzzHarness) rebuild(withQuarantine bool) *Allocator {
	b := New(h.opts)
	if err := b.SetRanges(h.specs()); err != nil {
		h.t.Fatal(err)
	}
	for _, hd := range h.a.Holdings() {
		if err := b.Reserve(hd.Owner, hd.Prefix); err != nil {
			h.t.Fatal(err)
		}
	}
	if withQuarantine {
		b.RestoreQuarantine(h.a.Quarantine())
		// The held-back blocks as the controller persists them: a time and
		// address ranges.
		if at, rs := h.a.HeldBack(h.now); rs != nil {
			var ps []netip.Prefix
			for _, r := range rs {
				ps = append(ps, r.Prefixes()...)
			}
			b.HoldBack(ps, at)
		}
	}
	return b
}

// expectAssign is the reference policy, computed by brute force from the
// internal state.
func (h *fuzzHarness) expectAssign(owner, name string) (netip.Prefix, error) {
	a := h.a
	p, ok := a.pools[name]
	if !ok {
		return netip.Prefix{}, ErrUnknownRange
	}
	if held, ok := a.heldIn(owner, p); ok {
		return held, nil
	}
	if !p.active {
		return netip.Prefix{}, ErrRangeInactive
	}
	for i := 0; i < p.rng.n; i++ {
		if !p.taken.get(i) {
			return p.rng.block(i), nil
		}
	}
	// The oldest freed block or, as if freed at heldBackAt, held-back block;
	// ties go to the lower index.
	var cands []freedEntry
	cands = append(cands, p.freed.entries()...)
	for i := 0; i < p.rng.n; i++ {
		if p.isHeld(i) {
			cands = append(cands, freedEntry{at: a.heldBackAt, idx: i})
		}
	}
	if len(cands) == 0 {
		return netip.Prefix{}, ErrExhausted
	}
	oldest := cands[0]
	for _, e := range cands {
		if e.before(oldest) {
			oldest = e
		}
	}
	if oldest.at.Add(fuzzDelay).After(h.now) && h.opts.WhenExhausted == Wait {
		return netip.Prefix{}, ErrQuarantined
	}
	return p.rng.block(oldest.idx), nil
}

func (h *fuzzHarness) othersHoldings(owner string) []netip.Prefix {
	var out []netip.Prefix
	for o, hs := range h.a.owners {
		if o != owner {
			out = append(out, hs...)
		}
	}
	return out
}

func overlapsAny(p netip.Prefix, others []netip.Prefix) (netip.Prefix, bool) {
	for _, o := range others {
		if o.Overlaps(p) {
			return o, true
		}
	}
	return netip.Prefix{}, false
}

// check verifies the externally visible invariants by brute force, plus the
// internal ones.
func (h *fuzzHarness) check() {
	t, a := h.t, h.a
	mustInvariants(t, a)
	holdings := a.Holdings()
	for i, x := range holdings {
		for _, y := range holdings[i+1:] {
			if x.Owner != y.Owner && x.Prefix.Overlaps(y.Prefix) {
				t.Fatalf("owners %s (%v) and %s (%v) overlap", x.Owner, x.Prefix, y.Owner, y.Prefix)
			}
		}
	}
	quarantine := a.Quarantine()
	// Beyond the bound, only blocks still in their delay are remembered.
	if len(quarantine) > h.opts.MaxQuarantine && h.trimmedAt != nil && !quarantine[0].FreedAt.Add(fuzzDelay).After(*h.trimmedAt) {
		t.Fatalf("%d quarantine entries exceed %d though the oldest, %v, left its delay by %v", len(quarantine), h.opts.MaxQuarantine, quarantine[0], *h.trimmedAt)
	}
	h.trimmedAt = nil
	// No block is forgotten while its delay runs: it stays remembered (at
	// the same or a later time) or is held again.
	for _, e := range h.lastQuarantine {
		if !e.FreedAt.Add(fuzzDelay).After(h.now) || overlapsHolding(e.Prefix, holdings) {
			continue
		}
		i := slices.IndexFunc(quarantine, func(q QuarantineEntry) bool { return q.Prefix == e.Prefix })
		if i < 0 && a.isHeldBackAtLeast(e.Prefix, e.FreedAt) {
			continue // HoldBack moved it to the held-back set, at a later time
		}
		if i < 0 || quarantine[i].FreedAt.Before(e.FreedAt) {
			t.Fatalf("block %v freed at %v was forgotten within its delay (now %v)", e.Prefix, e.FreedAt, h.now)
		}
	}
	h.lastQuarantine = quarantine
	heldAt, heldRanges := a.HeldBack(h.now)
	var hb netipx.IPSetBuilder
	for _, r := range heldRanges {
		hb.AddRange(r)
	}
	heldSet, _ := hb.IPSet()
	if !slices.IsSortedFunc(heldRanges, func(x, y netipx.IPRange) int { return x.From().Compare(y.From()) }) {
		t.Fatalf("HeldBack ranges not sorted: %v", heldRanges)
	}
	if len(heldSet.Ranges()) != len(heldRanges) {
		t.Fatalf("HeldBack ranges not merged: %v", heldRanges)
	}
	if heldRanges != nil && !heldAt.Add(fuzzDelay).After(h.now) {
		t.Fatalf("HeldBack(%v) = %v, %v after its delay", h.now, heldAt, heldRanges)
	}
	for _, q := range quarantine {
		if heldSet.OverlapsPrefix(q.Prefix) {
			t.Fatalf("%v is both held back and in the quarantine", q.Prefix)
		}
	}
	for _, hd := range holdings {
		if heldSet.OverlapsPrefix(hd.Prefix) {
			t.Fatalf("%v is both held back and held by %s", hd.Prefix, hd.Owner)
		}
	}
	// Nor is a held-back block forgotten before its delay: it stays held
	// back (at the same or a later time), is remembered as freed at the
	// same or a later time, or is held again.
	if h.lastHeld != nil && h.lastHeldAt.Add(fuzzDelay).After(h.now) {
		for _, r := range h.lastHeld.Ranges() {
			for _, b := range r.Prefixes() {
				for _, s := range h.specs() {
					rng, _ := NewRange(s.Prefix, s.NodeMaskSize)
					lo, hi, ok := rng.Overlapping(b)
					for i := lo; ok && i <= hi; i++ {
						blk := rng.block(i)
						if overlapsHolding(blk, holdings) || (heldSet.ContainsPrefix(blk) && !heldAt.Before(h.lastHeldAt)) {
							continue
						}
						j := slices.IndexFunc(quarantine, func(q QuarantineEntry) bool { return q.Prefix == blk })
						if j < 0 || quarantine[j].FreedAt.Before(h.lastHeldAt) {
							t.Fatalf("block %v held back at %v was forgotten within its delay (now %v)", blk, h.lastHeldAt, h.now)
						}
					}
				}
			}
		}
	}
	h.lastHeldAt, h.lastHeld = heldAt, heldSet
	for _, s := range h.specs() {
		u, err := a.Usage(s.Name, h.now)
		if err != nil {
			t.Fatal(err)
		}
		if u.Allocated+u.Free+u.Quarantined != u.Capacity {
			t.Fatalf("range %s usage does not add up: %+v", s.Name, u)
		}
		r, _ := NewRange(s.Prefix, s.NodeMaskSize)
		allocated, quarantined := 0, 0
		holders := map[string]bool{}
		for i := 0; i < r.n; i++ {
			b := r.block(i)
			held := false
			for _, hd := range holdings {
				if hd.Prefix.Overlaps(b) {
					held = true
					holders[hd.Owner] = true
				}
			}
			if held {
				allocated++
			}
			for _, q := range quarantine {
				if q.Prefix == b && q.FreedAt.Add(fuzzDelay).After(h.now) {
					quarantined++
				}
			}
			if heldSet.ContainsPrefix(b) {
				quarantined++
			}
		}
		if u.Allocated != allocated || u.Quarantined != quarantined || u.Capacity != r.n {
			t.Fatalf("range %s usage %+v, brute force allocated=%d quarantined=%d capacity=%d", s.Name, u, allocated, quarantined, r.n)
		}
		got, _ := a.Holders(s.Name)
		var want []string
		for o := range holders {
			want = append(want, o)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("range %s holders %v, want %v", s.Name, got, want)
		}
	}
}

// isHeldBackAtLeast reports whether block b is held back from at or later.
func (a *Allocator) isHeldBackAtLeast(b netip.Prefix, at time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.heldBackBlockLocked(b) && !a.heldBackAt.Before(at)
}
