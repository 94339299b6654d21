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
	"math/bits"
	"net/netip"
	"slices"
	"sort"
	"time"

	"go4.org/netipx"
)

// Held-back blocks are the quarantine of a rebuild: every block of the
// issued-block record that no Node holds, which may have been freed just
// before the restart or while no leader ran, waits a full RecycleDelay from
// one time, heldBackAt. Remembering them one freed entry each costs about
// 200 bytes per block, GiBs for a few IPv6 ranges of 2^24 blocks, so they are
// kept apart from the freed blocks: per pool a sorted list of block-index
// intervals, and one time for the whole allocator. Their taken bits are set,
// so the lowest-never-used search skips them, and they all become never-used
// together when heldBackAt+RecycleDelay passes (expireHeldBackLocked).

// span is an inclusive interval of block indices; a range has at most 2^24
// blocks, so int32 halves the memory of a fragmented held-back set.
type span struct{ lo, hi int32 }

// HoldBack holds back, from at, every block that overlaps one of prefixes,
// lies in a range and that no owner holds, and returns how many blocks
// joined the held-back set (each counted once, however many nested ranges
// contain it). A held-back block waits until at+RecycleDelay like a freed
// one, but costs memory per interval of consecutive blocks, not per block:
// the start-up rebuild holds back every unheld block of the issued-block
// record, which may be whole IPv6 ranges.
//
// A block remembered as freed at at or later keeps its own entry: that time
// is recent enough to trust, and its delay ends no earlier than from at. One
// freed earlier, whose time no longer proves it stayed free since, leaves
// the freed set and is held back. Every block of the allocator is held back
// until the same time: the latest at given to a HoldBack that held back a
// block or found one held back already (monotonic clock readings are
// stripped). Blocks held back before this call, inside prefixes or not,
// wait for the new time too. That is conservative, they may wait longer than
// needed but never less, and it is what keeps the state one time plus
// intervals. A held-back set whose time has passed at at is expired first.
//
// Assign hands held-back blocks out after every never-used block, in the
// order of their time against the freed blocks' (lowest index first); Busy
// and Quarantine leave them out; HeldBack reports them for persistence, and
// MaxQuarantine does not count them.
func (a *Allocator) HoldBack(prefixes []netip.Prefix, at time.Time) int {
	if seededBugRebuildIgnoresRecord {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	at = at.Round(0)
	a.expireHeldBackLocked(at)
	rs := make([]netipx.IPRange, 0, len(prefixes))
	for _, pfx := range prefixes {
		if pfx.IsValid() {
			rs = append(rs, netipx.RangeOfPrefix(pfx.Masked()))
		}
	}
	keep := func(freedAt time.Time) bool { return !freedAt.Before(at) }
	if seededBugStaleRebuildFreedAt {
		keep = func(time.Time) bool { return true }
	}
	added, touched := a.holdBackLocked(a.order, rs, keep)
	if touched {
		if !a.heldBackLive || at.After(a.heldBackAt) {
			a.heldBackAt = at
		}
		a.heldBackLive = true
	}
	return added
}

// HeldBack expires the held-back blocks at now and returns the time they
// are held back from and their addresses as sorted, disjoint, merged ranges,
// each address once however many nested ranges contain it; the zero time
// and nil when no block is held back. The controller persists them as runs
// and, after a restart, passes them back to HoldBack with the time.
func (a *Allocator) HeldBack(now time.Time) (time.Time, []netipx.IPRange) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expireHeldBackLocked(now)
	rs := a.heldRangesLocked()
	if rs == nil {
		return time.Time{}, nil
	}
	return a.heldBackAt, rs
}

// heldRangesLocked returns the addresses of every held-back block, merged
// across pools, or nil.
func (a *Allocator) heldRangesLocked() []netipx.IPRange {
	var b netipx.IPSetBuilder
	found := false
	for _, p := range a.order {
		for _, s := range p.held {
			b.AddRange(p.spanRange(s))
			found = true
		}
	}
	if !found {
		return nil
	}
	set, _ := b.IPSet() // no error: every range added is valid
	return set.Ranges()
}

// spanRange returns the addresses of the blocks of s.
func (p *pool) spanRange(s span) netipx.IPRange {
	return netipx.IPRangeFrom(p.rng.block(int(s.lo)).Addr(), netipx.PrefixLastIP(p.rng.block(int(s.hi))))
}

// expireHeldBackLocked turns every held-back block into a never-used block,
// in every pool at once, when heldBackAt+RecycleDelay is not after now. The
// time is kept until then even when no block is left held back, so Unassign
// can put back a held-back block Assign handed out (see holdBackBlockLocked).
// Expiry forgets: a later call with an earlier now does not bring the
// blocks back, as for every time the allocator is given.
func (a *Allocator) expireHeldBackLocked(now time.Time) {
	if !a.heldBackLive || a.heldBackAt.Add(a.opts.RecycleDelay).After(now) {
		return
	}
	for _, p := range a.order {
		p.dropHeld()
	}
	a.heldBackAt, a.heldBackLive = time.Time{}, false
}

// holdBackLocked holds back every block overlapping rs, in pools and in every
// pool sharing blocks with them, that no owner holds and is not remembered as
// freed at a time keep accepts; a freed block whose time keep rejects leaves
// the freed set and is held back.
// It returns how many blocks joined the held-back set, each counted once,
// and whether any block of rs is held back now (joined or was already), i.e.
// whether the held-back time concerns rs. It costs O(words) time per pool
// for the blocks of rs and memory for the resulting intervals and the pool's
// freed entries, never per block.
func (a *Allocator) holdBackLocked(pools []*pool, rs []netipx.IPRange, keep func(freedAt time.Time) bool) (added int, touched bool) {
	if len(rs) == 0 {
		return 0, false
	}
	var q []span
	for _, p := range pools {
		q = q[:0]
		for _, r := range rs {
			if lo, hi, ok := p.rng.overlappingRange(r); ok {
				q = append(q, span{int32(lo), int32(hi)})
			}
		}
		if len(q) == 0 {
			continue
		}
		q = mergeSpans(q)
		runs, stale := a.holdBackCandidates(p, q, keep)
		for _, e := range stale {
			a.forgetFreedLocked(p.rng.block(e.idx), e.at)
		}
		// Only the pool the runs come from counts: the other pools sharing
		// the blocks agree and add the same blocks, and when their turn
		// comes the blocks are held back already.
		for _, s := range runs {
			added += p.addHeld(int(s.lo), int(s.hi))
			a.holdBackElsewhereLocked(p, s)
		}
		touched = touched || len(runs) > 0
	}
	return added, touched
}

// holdBackCandidates returns the blocks of the sorted, disjoint spans q of
// pool p that HoldBack holds back (never-used, held back already, or freed at
// a time keep rejects) as sorted runs, and the freed entries among them,
// which the caller forgets first. It reads the taken bitmap a word at a
// time and subtracts the held-back intervals and the freed entries, so a
// range full of held-back or never-used blocks costs O(words).
func (a *Allocator) holdBackCandidates(p *pool, q []span, keep func(time.Time) bool) (runs []span, stale []freedEntry) {
	// The freed entries inside q, by index: a taken bit that is neither
	// held back nor one of these is allocated.
	var fr []freedEntry
	for _, e := range p.freed.entries() {
		if spansContain(q, e.idx) {
			fr = append(fr, e)
		}
	}
	slices.SortFunc(fr, func(x, y freedEntry) int { return x.idx - y.idx })

	hc, fc := 0, 0 // cursors into p.held and fr; words only grow over q
	for _, s := range q {
		lo, hi := int(s.lo), int(s.hi)
		for w := lo >> 6; w <= hi>>6; w++ {
			m := wordMask(w, lo, hi)
			cand := m
			if t := p.taken.words[w] & m; t != 0 {
				base := w << 6
				var held, freed, kept uint64
				for hc < len(p.held) && int(p.held[hc].hi) < base {
					hc++
				}
				for k := hc; k < len(p.held) && int(p.held[k].lo) <= base+63; k++ {
					held |= wordMask(w, int(p.held[k].lo), int(p.held[k].hi))
				}
				for fc < len(fr) && fr[fc].idx < base {
					fc++
				}
				// Another span of q may share this word: only this one's
				// bits (m) are decided now.
				for k := fc; k < len(fr) && fr[k].idx <= base+63; k++ {
					bit := uint64(1) << (uint(fr[k].idx) & 63)
					if bit&m == 0 {
						continue
					}
					freed |= bit
					if keep(fr[k].at) {
						kept |= bit
					} else {
						stale = append(stale, fr[k])
					}
				}
				allocated := t &^ held &^ freed
				cand = m &^ allocated &^ kept
			}
			runs = appendRuns(runs, w, cand)
		}
	}
	return runs, stale
}

// appendRuns appends the runs of set bits of word w of a bitmap to runs,
// extending the last run when it continues it.
func appendRuns(runs []span, w int, x uint64) []span {
	base := w << 6
	for x != 0 {
		start := bits.TrailingZeros64(x)
		n := bits.TrailingZeros64(^(x >> uint(start))) // 64 when the run reaches the top bit
		lo, hi := base+start, base+start+n-1
		if k := len(runs) - 1; k >= 0 && int(runs[k].hi) == lo-1 {
			runs[k].hi = int32(hi)
		} else {
			runs = append(runs, span{int32(lo), int32(hi)})
		}
		if start+n == 64 {
			break
		}
		x &^= uint64(1)<<uint(start+n) - 1
	}
	return runs
}

// mergeSpans sorts q and merges overlapping and adjacent spans, in place.
func mergeSpans(q []span) []span {
	slices.SortFunc(q, func(x, y span) int { return int(x.lo) - int(y.lo) })
	out := q[:1]
	for _, s := range q[1:] {
		last := &out[len(out)-1]
		if s.lo <= last.hi+1 {
			last.hi = max(last.hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return out
}

// spansContain reports whether idx lies in one of the sorted, disjoint
// spans q.
func spansContain(q []span, idx int) bool {
	i := sort.Search(len(q), func(k int) bool { return int(q[k].hi) >= idx })
	return i < len(q) && int(q[i].lo) <= idx
}

// holdBackElsewhereLocked holds back the blocks of span s of pool p in every
// other pool that shares them. They are never-used or held back there too:
// pools sharing blocks agree on their state.
func (a *Allocator) holdBackElsewhereLocked(p *pool, s span) {
	if len(a.order) == 1 {
		return
	}
	r := p.spanRange(s)
	for _, q := range a.order {
		if q == p {
			continue
		}
		if lo, hi, ok := q.rng.overlappingRange(r); ok {
			q.addHeld(lo, hi)
		}
	}
}

// holdBackBlockLocked holds back never-used block b again in every pool
// split into blocks of its size, to undo an Assign that took it from the
// held-back set. The current heldBackAt is never earlier than the one the
// block had while the held-back set has not expired (it only grows), so the
// block waits at least as long as it would have.
func (a *Allocator) holdBackBlockLocked(b netip.Prefix) {
	for _, p := range a.order {
		if p.rng.nodeMask != b.Bits() {
			continue
		}
		if idx, ok := p.rng.Index(b.Addr()); ok {
			p.addHeld(idx, idx)
		}
	}
}

// unholdBackLocked takes every held-back block that pfx overlaps out of the
// held-back set of every pool, making it never-used, before pfx is held or
// the block is remembered as freed.
func (a *Allocator) unholdBackLocked(pfx netip.Prefix) {
	for _, p := range a.order {
		if p.heldN == 0 {
			continue
		}
		if lo, hi, ok := p.rng.Overlapping(pfx); ok {
			p.removeHeld(lo, hi)
		}
	}
}

// heldBackBlockLocked reports whether block b is held back (in every pool
// containing it, as they agree).
func (a *Allocator) heldBackBlockLocked(b netip.Prefix) bool {
	for _, p := range a.order {
		if p.rng.nodeMask != b.Bits() {
			continue
		}
		if idx, ok := p.rng.Index(b.Addr()); ok {
			return p.isHeld(idx)
		}
	}
	return false
}

// isHeld reports whether block idx is held back.
func (p *pool) isHeld(idx int) bool {
	if p.heldN == 0 {
		return false
	}
	return spansContain(p.held, idx)
}

// addHeld holds back blocks lo..hi, each never-used or held back already,
// and returns how many were not held back.
func (p *pool) addHeld(lo, hi int) int {
	// The spans that overlap or touch lo..hi merge with it.
	i := sort.Search(len(p.held), func(k int) bool { return int(p.held[k].hi) >= lo-1 })
	j, nlo, nhi, covered := i, lo, hi, 0
	for ; j < len(p.held) && int(p.held[j].lo) <= hi+1; j++ {
		s := p.held[j]
		covered += max(0, min(int(s.hi), hi)-max(int(s.lo), lo)+1)
		nlo, nhi = min(nlo, int(s.lo)), max(nhi, int(s.hi))
	}
	p.held = slices.Replace(p.held, i, j, span{int32(nlo), int32(nhi)})
	p.taken.setSpan(lo, hi)
	added := hi - lo + 1 - covered
	p.heldN += added
	return added
}

// removeHeld takes blocks lo..hi out of the held-back set, making them
// never-used, and returns how many were held back.
func (p *pool) removeHeld(lo, hi int) int {
	i := sort.Search(len(p.held), func(k int) bool { return int(p.held[k].hi) >= lo })
	j, removed := i, 0
	var rest [2]span // only the first and last spans can stick out of lo..hi
	n := 0
	for ; j < len(p.held) && int(p.held[j].lo) <= hi; j++ {
		s := p.held[j]
		from, to := max(int(s.lo), lo), min(int(s.hi), hi)
		removed += to - from + 1
		p.taken.clearSpan(from, to)
		if int(s.lo) < lo {
			rest[n] = span{s.lo, int32(lo - 1)}
			n++
		}
		if int(s.hi) > hi {
			rest[n] = span{int32(hi + 1), s.hi}
			n++
		}
	}
	if removed == 0 {
		return 0
	}
	p.held = slices.Replace(p.held, i, j, rest[:n]...)
	p.heldN -= removed
	return removed
}

// dropHeld makes every held-back block never-used.
func (p *pool) dropHeld() {
	for _, s := range p.held {
		p.taken.clearSpan(int(s.lo), int(s.hi))
	}
	p.held, p.heldN = nil, 0
}
