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
	"sort"
	"time"
)

// pool is the mutable state of one range. Every block is in exactly one state:
//
//	never used   taken=0
//	allocated    taken=1, not in freed nor held; holders = 1 + extra[idx]
//	freed        taken=1, in freed (quarantined until at+RecycleDelay, then
//	             reusable in freed-time order)
//	held back    taken=1, in held (quarantined until the Allocator's
//	             heldBackAt+RecycleDelay, then never used again)
//
// The Allocator keeps pools that share blocks (a range nested in a supernet)
// in the same state for every shared block.
type pool struct {
	name   string
	rng    Range
	active bool
	taken  *bitmap
	extra  map[int]uint32 // holders beyond the first; only overlapping adoptions
	freed  freedQueue     // same blocks and times as Allocator.freed, per pool
	// held is the held-back blocks (see heldback.go) as sorted, disjoint,
	// non-adjacent index intervals, and heldN how many blocks they cover:
	// memory per interval, not per block.
	held  []span
	heldN int
}

func newPool(name string, r Range, active bool) *pool {
	return &pool{name: name, rng: r, active: active, taken: newBitmap(r.n)}
}

// allocated returns the number of blocks held by at least one owner: the
// taken blocks that are neither freed nor held back.
func (p *pool) allocated() int { return p.taken.ones - p.freed.Len() - p.heldN }

// hold adds one holder to blocks lo..hi. The caller has already taken any
// freed or held-back block in the interval out of its set (which makes it
// never-used), so every taken bit in the interval is a holder.
func (p *pool) hold(lo, hi int) {
	p.taken.setRange(lo, hi, func(i int) {
		if p.extra == nil {
			p.extra = map[int]uint32{}
		}
		p.extra[i]++
	})
}

// unhold removes one holder from blocks lo..hi. Blocks left without holders
// become never-used (taken=0) and are reported to freed in increasing order;
// the caller decides which of them to remember as freed.
func (p *pool) unhold(lo, hi int, freed func(idx int)) {
	var keep func(int) bool
	if len(p.extra) > 0 {
		keep = func(i int) bool {
			c, ok := p.extra[i]
			if !ok {
				return false
			}
			if c == 1 {
				delete(p.extra, i)
			} else {
				p.extra[i] = c - 1
			}
			return true
		}
	}
	p.taken.clearRange(lo, hi, keep, freed)
}

// markFreed records never-used block idx as freed at at. If the block is
// already freed (hadOld), its entry at old moves to at, which is later. It
// must not be called for an allocated block.
func (p *pool) markFreed(idx int, at, old time.Time, hadOld bool) {
	if hadOld {
		p.freed.remove(idx, old)
	}
	p.taken.set(idx)
	p.freed.insert(idx, at)
}

// forget turns block idx, freed at at, back into a never-used block.
func (p *pool) forget(idx int, at time.Time) {
	if p.freed.remove(idx, at) {
		p.taken.clear(idx)
	}
}

// forgetAll turns every freed block back into a never-used block.
func (p *pool) forgetAll() {
	for _, e := range p.freed.entries() {
		p.taken.clear(e.idx)
	}
	p.freed.reset()
}

// quarantined counts freed blocks not yet reusable at now.
func (p *pool) quarantined(now time.Time, delay time.Duration) int {
	// Entries are in freed-time order, so the quarantined ones are a suffix.
	es := p.freed.entries()
	return len(es) - sort.Search(len(es), func(i int) bool { return es[i].at.Add(delay).After(now) })
}
