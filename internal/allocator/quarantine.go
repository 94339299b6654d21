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
	"net/netip"
	"slices"
	"time"
)

// QuarantineEntry is a remembered freed block and when it was freed, in the
// form the controller persists in the API.
type QuarantineEntry struct {
	Prefix  netip.Prefix
	FreedAt time.Time
}

// Quarantine returns every remembered freed block, ordered by FreedAt then
// prefix: the per-block entries only, at most Options.MaxQuarantine once
// their delay has passed; held-back blocks are not listed (HeldBack reports
// them as address ranges, however many there are). It includes blocks whose
// recycle delay has passed: they still order reuse, and keeping them makes
// RestoreQuarantine reproduce the state exactly. Callers that only care about
// safety may drop entries with FreedAt+RecycleDelay <= now.
func (a *Allocator) Quarantine() []QuarantineEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.quarantineLocked()
}

func (a *Allocator) quarantineLocked() []QuarantineEntry {
	out := make([]QuarantineEntry, 0, len(a.freed))
	for b, at := range a.freed {
		out = append(out, QuarantineEntry{Prefix: b, FreedAt: at})
	}
	slices.SortFunc(out, compareQuarantineEntries)
	return out
}

// compareQuarantineEntries orders entries by FreedAt, then prefix.
func compareQuarantineEntries(x, y QuarantineEntry) int {
	if c := x.FreedAt.Compare(y.FreedAt); c != 0 {
		return c
	}
	return comparePrefix(x.Prefix, y.Prefix)
}

// RestoreQuarantine reloads persisted freed blocks, normally right after the
// Reserve calls of a rebuild. An entry marks every unallocated block it
// overlaps in every range; allocated blocks (the API says they are in use)
// and blocks in no range are skipped; a block already remembered keeps the
// later of the two times. A held-back block stays held back unless the entry
// is later than heldBackAt: then it leaves the held-back set and is
// remembered as freed at the entry's time, so it never becomes reusable
// earlier than either says (and the held-back time of the other blocks does
// not move). Nothing is trimmed: the next Release applies the MaxQuarantine
// bound. Monotonic clock readings are stripped.
func (a *Allocator) RestoreQuarantine(entries []QuarantineEntry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.restoreLocked(entries)
}

func (a *Allocator) restoreLocked(entries []QuarantineEntry) {
	cands := map[netip.Prefix]time.Time{}
	for _, e := range entries {
		if !e.Prefix.IsValid() {
			continue
		}
		at := e.FreedAt.Round(0)
		a.eachUnallocated(e.Prefix, func(b netip.Prefix) {
			if old, ok := cands[b]; !ok || at.After(old) {
				cands[b] = at
			}
		})
	}
	// In reuse order, so each pool's queue is built by appending.
	sorted := make([]QuarantineEntry, 0, len(cands))
	for b, at := range cands {
		sorted = append(sorted, QuarantineEntry{Prefix: b, FreedAt: at})
	}
	slices.SortFunc(sorted, compareQuarantineEntries)
	for _, e := range sorted {
		if a.heldBackBlockLocked(e.Prefix) {
			if !e.FreedAt.After(a.heldBackAt) {
				continue
			}
			a.unholdBackLocked(e.Prefix)
		}
		a.freeBlockLocked(e.Prefix, e.FreedAt)
	}
}

// eachUnallocated calls fn for every block that pfx overlaps, in every range,
// that no owner holds (never-used, freed or held back); a block shared by
// nested ranges may be reported once per range. It visits every block of
// pfx: only for the per-block entries of RestoreQuarantine.
func (a *Allocator) eachUnallocated(pfx netip.Prefix, fn func(b netip.Prefix)) {
	for _, p := range a.order {
		lo, hi, ok := p.rng.Overlapping(pfx)
		if !ok {
			continue
		}
		for i := lo; i <= hi; i++ {
			if !a.allocatedIn(p, i) {
				fn(p.rng.block(i))
			}
		}
	}
}

// freeBlockLocked remembers unallocated block b as freed at at in every pool
// that contains it, keeping the later time if it is already remembered. b
// must not be held back.
func (a *Allocator) freeBlockLocked(b netip.Prefix, at time.Time) {
	old, had := a.freed[b]
	if had && !at.After(old) {
		return
	}
	a.freed[b] = at
	for _, p := range a.order {
		if p.rng.nodeMask != b.Bits() {
			continue
		}
		if idx, ok := p.rng.Index(b.Addr()); ok {
			p.markFreed(idx, at, old, had)
		}
	}
}

// forgetBlockLocked turns remembered freed block b into a never-used block in
// every pool.
func (a *Allocator) forgetBlockLocked(b netip.Prefix) {
	if at, ok := a.freed[b]; ok {
		a.forgetFreedLocked(b, at)
	}
}

// forgetFreedLocked is forgetBlockLocked for a block known to be remembered
// as freed at at.
func (a *Allocator) forgetFreedLocked(b netip.Prefix, at time.Time) {
	delete(a.freed, b)
	for _, p := range a.order {
		if p.rng.nodeMask != b.Bits() {
			continue
		}
		if idx, ok := p.rng.Index(b.Addr()); ok {
			p.forget(idx, at)
		}
	}
}

// allocatedIn reports whether block idx of pool p is held by an owner: taken
// and neither held back nor remembered as freed.
func (a *Allocator) allocatedIn(p *pool, idx int) bool {
	if !p.taken.get(idx) || p.isHeld(idx) {
		return false
	}
	_, freed := a.freed[p.rng.block(idx)]
	return !freed
}

// unfreeOverlapping forgets every remembered freed block that pfx overlaps,
// before pfx is held. The common case (pfx no larger than a block) is one map
// lookup; a larger pfx scans the bounded freed set.
func (a *Allocator) unfreeOverlapping(pfx netip.Prefix) {
	if len(a.freed) == 0 {
		return
	}
	for _, p := range a.order {
		if !p.rng.prefix.Overlaps(pfx) {
			continue
		}
		if pfx.Bits() >= p.rng.nodeMask {
			// Every pool overlapping pfx overlaps this one, so shares its mask.
			a.forgetBlockLocked(netip.PrefixFrom(pfx.Addr(), p.rng.nodeMask).Masked())
			return
		}
		break
	}
	var drop []netip.Prefix
	for b := range a.freed {
		if b.Overlaps(pfx) {
			drop = append(drop, b)
		}
	}
	for _, b := range drop {
		a.forgetBlockLocked(b)
	}
}

// trimLocked enforces MaxQuarantine at now by forgetting the blocks freed
// longest ago (ties: lowest prefix first) whose recycle delay has passed: a
// forgotten block becomes never-used, which only changes the order free
// blocks are reused in. A block still in its delay is never forgotten, so
// more than MaxQuarantine blocks freed within one delay stay quarantined, at
// the cost of their memory (see the package documentation). Held-back blocks
// are not per-block entries: they never count toward the bound and are never
// trimmed.
func (a *Allocator) trimLocked(now time.Time) {
	for len(a.freed) > a.opts.MaxQuarantine {
		var oldest QuarantineEntry
		found := false
		for _, p := range a.order {
			e, ok := p.freed.min()
			if !ok {
				continue
			}
			b := p.rng.block(e.idx)
			if !found || e.at.Before(oldest.FreedAt) || (e.at.Equal(oldest.FreedAt) && comparePrefix(b, oldest.Prefix) < 0) {
				oldest, found = QuarantineEntry{Prefix: b, FreedAt: e.at}, true
			}
		}
		if !found || oldest.FreedAt.Add(a.opts.RecycleDelay).After(now) {
			return // every remembered block is still in its delay
		}
		a.forgetFreedLocked(oldest.Prefix, oldest.FreedAt)
	}
}
