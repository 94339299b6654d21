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
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"
)

// bruteLimit caps the per-block brute-force checks so large-range tests stay
// fast; the fuzz target uses small ranges and always checks everything.
const bruteLimit = 1 << 14

// checkInvariants verifies the allocator's internal consistency: bitmap
// bookkeeping, reference counts against the holdings, the freed heaps against
// the global freed map, the held-back intervals, every block in exactly one
// state (never used, allocated, freed, held back), and nested pools agreeing
// block by block.
func (a *Allocator) checkInvariants() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for owner, hs := range a.owners {
		if len(hs) == 0 {
			return fmt.Errorf("owner %q has an empty holding list", owner)
		}
		for i, h := range hs {
			if h != h.Masked() {
				return fmt.Errorf("owner %q holds unmasked %v", owner, h)
			}
			if i > 0 && comparePrefix(hs[i-1], h) >= 0 {
				return fmt.Errorf("owner %q holdings not sorted/unique: %v", owner, hs)
			}
		}
	}
	for owner, l := range a.provisional {
		if l.more != nil && len(l.more) == 0 {
			return fmt.Errorf("owner %q has an empty extra provisional list", owner)
		}
		for _, pb := range l.blocks() {
			if !slices.Contains(a.owners[owner], pb.block) {
				return fmt.Errorf("owner %q has provisional block %v it does not hold", owner, pb.block)
			}
		}
	}
	for i, p := range a.order {
		if a.pools[p.name] != p {
			return fmt.Errorf("pool %q not indexed", p.name)
		}
		if i > 0 && a.order[i-1].name >= p.name {
			return fmt.Errorf("pools not sorted")
		}
		if err := p.taken.check(); err != nil {
			return fmt.Errorf("pool %q bitmap: %w", p.name, err)
		}
		if err := p.freed.check(); err != nil {
			return fmt.Errorf("pool %q freed queue: %w", p.name, err)
		}
		for _, e := range p.freed.entries() {
			b := p.rng.block(e.idx)
			at, ok := a.freed[b]
			if !ok || !at.Equal(e.at) {
				return fmt.Errorf("pool %q freed block %v at %v not in global freed map (%v, %v)", p.name, b, e.at, at, ok)
			}
			if !p.taken.get(e.idx) {
				return fmt.Errorf("pool %q freed block %v not taken", p.name, b)
			}
		}
		for k, c := range p.extra {
			if c == 0 || !a.allocatedIn(p, k) {
				return fmt.Errorf("pool %q extra[%d]=%d on a block that is not allocated", p.name, k, c)
			}
		}
		if err := a.checkHeld(p); err != nil {
			return fmt.Errorf("pool %q held back: %w", p.name, err)
		}
		if p.rng.n > bruteLimit {
			continue
		}
		allocated := 0
		for idx := 0; idx < p.rng.n; idx++ {
			b := p.rng.block(idx)
			count := 0
			for _, hs := range a.owners {
				for _, h := range hs {
					if h.Overlaps(b) {
						count++
					}
				}
			}
			_, freed := p.freed.lookup(idx)
			held := p.isHeld(idx)
			switch {
			case count > 0:
				if !p.taken.get(idx) || freed || held {
					return fmt.Errorf("pool %q block %v has %d holders but taken=%v freed=%v held back=%v", p.name, b, count, p.taken.get(idx), freed, held)
				}
				if got := 1 + int(p.extra[idx]); got != count {
					return fmt.Errorf("pool %q block %v refcount %d, want %d", p.name, b, got, count)
				}
				allocated++
			case freed:
				if held {
					return fmt.Errorf("pool %q block %v is both freed and held back", p.name, b)
				}
			case held:
			default:
				if p.taken.get(idx) {
					return fmt.Errorf("pool %q block %v is taken with no holder, not freed and not held back", p.name, b)
				}
			}
		}
		if allocated != p.allocated() {
			return fmt.Errorf("pool %q allocated()=%d, counted %d", p.name, p.allocated(), allocated)
		}
	}
	for b, at := range a.freed {
		in := 0
		for _, p := range a.order {
			if p.rng.nodeMask != b.Bits() {
				continue
			}
			idx, ok := p.rng.Index(b.Addr())
			if !ok {
				continue
			}
			in++
			got, ok := p.freed.lookup(idx)
			if !ok || !got.Equal(at) {
				return fmt.Errorf("freed block %v at %v missing from pool %q (%v, %v)", b, at, p.name, got, ok)
			}
		}
		if in == 0 {
			return fmt.Errorf("freed block %v is in no pool", b)
		}
	}
	// Nested pools agree on every shared block.
	for i, p := range a.order {
		for _, q := range a.order[i+1:] {
			if !p.rng.prefix.Overlaps(q.rng.prefix) {
				continue
			}
			inner, outer := p, q
			if inner.rng.prefix.Bits() < outer.rng.prefix.Bits() {
				inner, outer = outer, inner
			}
			if inner.rng.n > bruteLimit {
				continue
			}
			for idx := 0; idx < inner.rng.n; idx++ {
				b := inner.rng.block(idx)
				oidx, ok := outer.rng.Index(b.Addr())
				if !ok || outer.rng.block(oidx) != b {
					return fmt.Errorf("block %v of %q is not a block of %q", b, inner.name, outer.name)
				}
				if inner.taken.get(idx) != outer.taken.get(oidx) || inner.extra[idx] != outer.extra[oidx] || inner.isHeld(idx) != outer.isHeld(oidx) {
					return fmt.Errorf("nested pools %q and %q disagree on %v", inner.name, outer.name, b)
				}
			}
		}
	}
	return nil
}

// checkHeld verifies the held-back intervals of p: sorted, disjoint and
// merged (so equal sets compare equal), inside the range, counted by heldN,
// taken, and neither freed nor allocated; and that a held-back block implies
// a running held-back time.
func (a *Allocator) checkHeld(p *pool) error {
	n := 0
	for i, s := range p.held {
		if s.lo < 0 || s.lo > s.hi || int(s.hi) >= p.rng.n {
			return fmt.Errorf("interval %d %v out of range", i, s)
		}
		if i > 0 && p.held[i-1].hi+1 >= s.lo {
			return fmt.Errorf("intervals %v and %v overlap or touch", p.held[i-1], s)
		}
		n += int(s.hi-s.lo) + 1
	}
	if n != p.heldN {
		return fmt.Errorf("heldN=%d, intervals cover %d", p.heldN, n)
	}
	if n > 0 && !a.heldBackLive {
		return fmt.Errorf("%d blocks held back with no held-back time", n)
	}
	if n > bruteLimit {
		if p.taken.ones < n+p.freed.Len() {
			return fmt.Errorf("%d taken bits for %d held back and %d freed", p.taken.ones, n, p.freed.Len())
		}
		return nil
	}
	for _, s := range p.held {
		for idx := int(s.lo); idx <= int(s.hi); idx++ {
			if !p.taken.get(idx) {
				return fmt.Errorf("block %d not taken", idx)
			}
			if _, ok := a.freed[p.rng.block(idx)]; ok {
				return fmt.Errorf("block %d also freed", idx)
			}
			if _, ok := p.extra[idx]; ok {
				return fmt.Errorf("block %d has extra holders", idx)
			}
		}
	}
	return nil
}

// check verifies the bitmap's counters, padding and summary level.
func (b *bitmap) check() error {
	ones := 0
	for i := 0; i < b.n; i++ {
		if b.get(i) {
			ones++
		}
	}
	if ones != b.ones {
		return fmt.Errorf("ones=%d, counted %d", b.ones, ones)
	}
	for i := b.n; i < len(b.words)*64; i++ {
		if !b.get(i) {
			return fmt.Errorf("padding bit %d clear", i)
		}
	}
	for w := range b.words {
		got := b.nonFull[w>>6]>>(uint(w)&63)&1 == 1
		if want := b.words[w] != ^uint64(0); got != want {
			return fmt.Errorf("summary bit for word %d = %v, want %v", w, got, want)
		}
	}
	for j := 0; j < min(b.low, len(b.nonFull)); j++ {
		if b.nonFull[j] != 0 {
			return fmt.Errorf("summary word %d below low=%d is not zero", j, b.low)
		}
	}
	for w := len(b.words); w < len(b.nonFull)*64; w++ {
		if b.nonFull[w>>6]>>(uint(w)&63)&1 == 1 {
			return fmt.Errorf("summary bit %d past the last word is set", w)
		}
	}
	return nil
}

// check verifies that the entries are sorted without duplicates, that no
// block appears twice, and that the slice stays within its bound.
func (q *freedQueue) check() error {
	es := q.entries()
	seen := make(map[int]bool, len(es))
	for i, e := range es {
		if seen[e.idx] {
			return fmt.Errorf("block %d queued twice", e.idx)
		}
		seen[e.idx] = true
		if i > 0 && !es[i-1].before(e) {
			return fmt.Errorf("entries %d and %d out of order", i-1, i)
		}
	}
	if c := cap(q.items); c > minCompactCap && c > 4*len(es) {
		return fmt.Errorf("capacity %d for %d entries", c, len(es))
	}
	for _, e := range q.items[:q.head] {
		if e != (freedEntry{}) {
			return fmt.Errorf("consumed slot keeps %v", e)
		}
	}
	return nil
}

// lookup returns the freed time of block idx by a linear scan (tests only:
// the allocator finds it in its freed map).
func (q *freedQueue) lookup(idx int) (time.Time, bool) {
	for _, e := range q.entries() {
		if e.idx == idx {
			return e.at, true
		}
	}
	return time.Time{}, false
}

func mustInvariants(t testing.TB, a *Allocator) {
	t.Helper()
	if err := a.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}

// snapshot is a comparable copy of the allocator state, independent of map
// iteration and heap layout.
type snapshot struct {
	Pools  []poolSnapshot
	Owners map[string][]netip.Prefix
	Freed  map[netip.Prefix]int64
	// HeldBackAt is heldBackAt in ns while a block is held back, else 0.
	HeldBackAt int64
}

type poolSnapshot struct {
	Name   string
	Active bool
	Range  Range
	Taken  []uint64
	Extra  map[int]uint32
	Freed  [][2]int64 // (freed-at ns, index) in heap order
	Held   []span
}

func (a *Allocator) snapshot(withFreed bool) snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := snapshot{Owners: map[string][]netip.Prefix{}, Freed: map[netip.Prefix]int64{}}
	for o, hs := range a.owners {
		s.Owners[o] = slices.Clone(hs)
	}
	if withFreed {
		for b, at := range a.freed {
			s.Freed[b] = at.UnixNano()
		}
	}
	for _, p := range a.order {
		ps := poolSnapshot{Name: p.name, Active: p.active, Range: p.rng, Taken: slices.Clone(p.taken.words)}
		if len(p.extra) > 0 {
			ps.Extra = maps.Clone(p.extra)
		}
		entries := slices.Clone(p.freed.entries())
		slices.SortFunc(entries, func(x, y freedEntry) int {
			if x.before(y) {
				return -1
			}
			if y.before(x) {
				return 1
			}
			return 0
		})
		for _, e := range entries {
			if withFreed {
				ps.Freed = append(ps.Freed, [2]int64{e.at.UnixNano(), int64(e.idx)})
			} else {
				// Occupancy only: a freed block counts as not allocated.
				ps.Taken[e.idx>>6] &^= 1 << (uint(e.idx) & 63)
			}
		}
		if withFreed {
			if len(p.held) > 0 { // nil when empty, so empty sets compare equal
				ps.Held = slices.Clone(p.held)
			}
			if p.heldN > 0 {
				s.HeldBackAt = a.heldBackAt.UnixNano()
			}
		} else {
			// Occupancy only: so is a held-back block.
			for _, h := range p.held {
				for idx := int(h.lo); idx <= int(h.hi); idx++ {
					ps.Taken[idx>>6] &^= 1 << (uint(idx) & 63)
				}
			}
		}
		s.Pools = append(s.Pools, ps)
	}
	return s
}

func diffSnapshots(x, y snapshot) string {
	if reflect.DeepEqual(x, y) {
		return ""
	}
	if !reflect.DeepEqual(x.Owners, y.Owners) {
		return fmt.Sprintf("owners differ:\n%v\n%v", x.Owners, y.Owners)
	}
	if !reflect.DeepEqual(x.Freed, y.Freed) {
		return fmt.Sprintf("freed differ:\n%v\n%v", x.Freed, y.Freed)
	}
	if x.HeldBackAt != y.HeldBackAt {
		return fmt.Sprintf("held-back time differs: %v vs %v", time.Unix(0, x.HeldBackAt).UTC(), time.Unix(0, y.HeldBackAt).UTC())
	}
	if len(x.Pools) != len(y.Pools) {
		return fmt.Sprintf("pool count %d vs %d", len(x.Pools), len(y.Pools))
	}
	for i := range x.Pools {
		if !reflect.DeepEqual(x.Pools[i], y.Pools[i]) {
			return fmt.Sprintf("pool %q differs:\n%+v\n%+v", x.Pools[i].Name, x.Pools[i], y.Pools[i])
		}
	}
	return "differ"
}
