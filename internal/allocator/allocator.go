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
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Allocator hands out node blocks from several ranges. It is safe for
// concurrent use; each method holds the mutex only for its own in-memory work.
// See the package documentation for the data structure and policy.
type Allocator struct {
	mu     sync.Mutex
	opts   Options
	pools  map[string]*pool
	order  []*pool                    // pools sorted by name, for deterministic iteration
	owners map[string][]netip.Prefix  // holdings per owner, sorted, masked
	freed  map[netip.Prefix]time.Time // every remembered freed block, over all pools
	// provisional records, per owner, the blocks Assign handed out that no
	// Reserve has confirmed yet, with their state before, so Unassign can
	// undo an assignment the API never stored (see provisional.go).
	provisional map[string]provisionalList
	// heldBackAt is the one time every held-back block (pool.held) waits a
	// RecycleDelay from, the latest HoldBack was given; heldBackLive says it
	// is set: from the first HoldBack that held a block back until the
	// held-back set expires, even while no block is left held back (see
	// heldback.go).
	heldBackAt   time.Time
	heldBackLive bool
}

// RangeSpec configures one range. Ranges that overlap must nest and use the
// same NodeMaskSize. An inactive range keeps tracking the blocks of its
// holders (a Draining range) but hands out nothing new.
type RangeSpec struct {
	Name         string
	Prefix       netip.Prefix
	NodeMaskSize int
	Active       bool
}

// New returns an empty allocator with no ranges.
func New(opts Options) *Allocator {
	return &Allocator{
		opts:        opts.withDefaults(),
		pools:       map[string]*pool{},
		owners:      map[string][]netip.Prefix{},
		freed:       map[netip.Prefix]time.Time{},
		provisional: map[string]provisionalList{},
	}
}

// SetRanges replaces the configured ranges. A range whose name, prefix and
// node mask are unchanged keeps its state (only Active is updated); a new or
// changed range is built from the current holdings, so it is immediately
// consistent with every range it nests in or contains. Remembered freed blocks
// carry over to every range that contains them and are forgotten when no range
// does. So do held-back blocks, with the same heldBackAt: every block of a
// new or changed range that overlaps the addresses of a held-back block and
// that no owner holds is held back (with another node mask, a block an owner
// holds part of is allocated instead, which keeps it from Assign as well).
// Holdings are never dropped: an owner whose prefix is in no range stays
// recorded (see Unmanaged) and is marked again if a matching range returns.
//
// The configuration is validated as a whole before anything changes: names
// must be unique and non-empty, each range must pass cidr.ValidateRange, and
// overlapping ranges must share their nodeMaskSize (different block sizes over
// the same addresses is how kubernetes/kubernetes#70957 produced overlapping
// podCIDRs).
func (a *Allocator) SetRanges(specs []RangeSpec) error {
	ranges := make([]Range, len(specs))
	seen := make(map[string]bool, len(specs))
	for i, s := range specs {
		if s.Name == "" {
			return fmt.Errorf("%w: range %d has no name", ErrInvalidRanges, i)
		}
		if seen[s.Name] {
			return fmt.Errorf("%w: range name %q is used twice", ErrInvalidRanges, s.Name)
		}
		seen[s.Name] = true
		r, err := NewRange(s.Prefix, s.NodeMaskSize)
		if err != nil {
			return fmt.Errorf("%w: range %q: %w", ErrInvalidRanges, s.Name, err)
		}
		ranges[i] = r
	}
	for i := range ranges {
		for j := i + 1; j < len(ranges); j++ {
			ri, rj := ranges[i], ranges[j]
			if ri.prefix.Overlaps(rj.prefix) && ri.nodeMask != rj.nodeMask {
				return fmt.Errorf("%w: ranges %q (%s) and %q (%s) overlap but split into /%d and /%d blocks; nested ranges must use the same nodeMaskSize",
					ErrInvalidRanges, specs[i].Name, ri.prefix, specs[j].Name, rj.prefix, ri.nodeMask, rj.nodeMask)
			}
		}
	}

	a.mu.Lock()
	defer a.mu.Unlock()

	remembered := a.quarantineLocked()
	heldBack := a.heldRangesLocked()
	for _, p := range a.order {
		p.forgetAll()
	}
	clear(a.freed)

	pools := make(map[string]*pool, len(specs))
	order := make([]*pool, 0, len(specs))
	var rebuilt []*pool
	for i, s := range specs {
		p, ok := a.pools[s.Name]
		if !ok || p.rng != ranges[i] {
			p = newPool(s.Name, ranges[i], s.Active)
			a.markHoldings(p)
			rebuilt = append(rebuilt, p)
		}
		p.active = s.Active
		pools[s.Name] = p
		order = append(order, p)
	}
	slices.SortFunc(order, func(x, y *pool) int { return cmp.Compare(x.name, y.name) })
	a.pools, a.order = pools, order
	// Unchanged pools kept their held-back blocks; the new ones get theirs
	// from the addresses (no block is remembered as freed at this point).
	// Only the new pools are scanned: in an unchanged pool, the blocks
	// overlapping those addresses are exactly its held-back ones, since
	// overlapping ranges share their node mask and agree on every block.
	a.holdBackLocked(rebuilt, heldBack, func(time.Time) bool { return true })
	a.restoreLocked(remembered)
	return nil
}

// markHoldings marks every current holding that overlaps the new pool p.
func (a *Allocator) markHoldings(p *pool) {
	for _, hs := range a.owners {
		for _, h := range hs {
			if lo, hi, ok := p.rng.Overlapping(h); ok {
				p.hold(lo, hi)
			}
		}
	}
}

// comparePrefix orders prefixes by address, then length.
func comparePrefix(x, y netip.Prefix) int {
	if c := x.Addr().Compare(y.Addr()); c != 0 {
		return c
	}
	return cmp.Compare(x.Bits(), y.Bits())
}

// heldIn returns the owner's holding that overlaps pool p.
func (a *Allocator) heldIn(owner string, p *pool) (netip.Prefix, bool) {
	for _, h := range a.owners[owner] {
		if p.rng.prefix.Overlaps(h) {
			return h, true
		}
	}
	return netip.Prefix{}, false
}

// holdLocked records that owner holds the masked prefix pfx and marks its
// blocks in every pool it overlaps. Freed and held-back blocks under pfx stop
// being so: the API says they are in use. It is a no-op if the holding exists.
func (a *Allocator) holdLocked(owner string, pfx netip.Prefix) {
	hs := a.owners[owner]
	i, found := slices.BinarySearchFunc(hs, pfx, comparePrefix)
	if found {
		return
	}
	a.owners[owner] = slices.Insert(hs, i, pfx)
	a.unfreeOverlapping(pfx)
	a.unholdBackLocked(pfx)
	for _, p := range a.order {
		if lo, hi, ok := p.rng.Overlapping(pfx); ok {
			p.hold(lo, hi)
		}
	}
}

// dropHoldingLocked removes owner's holding pfx and unmarks its blocks. Blocks
// left without holders become never-used and are reported to freed (possibly
// once per pool that contains them); the caller decides which to remember.
func (a *Allocator) dropHoldingLocked(owner string, pfx netip.Prefix, freed func(p *pool, idx int)) {
	hs := a.owners[owner]
	i, found := slices.BinarySearchFunc(hs, pfx, comparePrefix)
	if !found {
		return
	}
	if hs = slices.Delete(hs, i, i+1); len(hs) == 0 {
		delete(a.owners, owner)
	} else {
		a.owners[owner] = hs
	}
	a.unholdLocked(pfx, freed)
}

// unholdLocked unmarks one holder of pfx in every pool it overlaps and
// reports the blocks left without holders to freed, if not nil.
func (a *Allocator) unholdLocked(pfx netip.Prefix, freed func(p *pool, idx int)) {
	for _, p := range a.order {
		if lo, hi, ok := p.rng.Overlapping(pfx); ok {
			p.unhold(lo, hi, func(idx int) {
				if freed != nil && !seededBugSkipQuarantine {
					freed(p, idx)
				}
			})
		}
	}
}
