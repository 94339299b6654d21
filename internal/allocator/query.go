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
	"time"
)

// Usage is the block accounting of one range at a point in time. Allocated +
// Free + Quarantined == Capacity. Free counts never-used blocks and freed
// blocks whose recycle delay has passed; Quarantined counts freed blocks in
// their delay and held-back blocks (see HoldBack).
type Usage struct {
	Capacity    int
	Allocated   int
	Free        int
	Quarantined int
}

// Usage returns the block accounting of the named range at now, after
// expiring the held-back set at now.
func (a *Allocator) Usage(rangeName string, now time.Time) (Usage, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expireHeldBackLocked(now)
	p, ok := a.pools[rangeName]
	if !ok {
		return Usage{}, fmt.Errorf("%w %q", ErrUnknownRange, rangeName)
	}
	u := Usage{Capacity: p.rng.n, Allocated: p.allocated(), Quarantined: p.quarantined(now, a.opts.RecycleDelay) + p.heldN}
	u.Free = u.Capacity - u.Allocated - u.Quarantined
	return u, nil
}

// Holders returns the sorted owners holding a prefix that overlaps the named
// range. A Draining range can be Released once this is empty.
func (a *Allocator) Holders(rangeName string) ([]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.pools[rangeName]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownRange, rangeName)
	}
	var out []string
	for owner := range a.owners {
		if _, ok := a.heldIn(owner, p); ok {
			out = append(out, owner)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Holding is one prefix held by one owner.
type Holding struct {
	Owner  string
	Prefix netip.Prefix
}

// Holdings returns every holding, sorted by owner then prefix. Replaying it
// through Reserve on a fresh allocator with the same ranges rebuilds the same
// occupancy.
func (a *Allocator) Holdings() []Holding {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.holdingsLocked(func(netip.Prefix) bool { return true })
}

// Unmanaged returns the holdings that overlap no configured range (foreign or
// out-of-range podCIDRs), sorted by owner then prefix, for status reporting.
func (a *Allocator) Unmanaged() []Holding {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.holdingsLocked(func(h netip.Prefix) bool {
		for _, p := range a.order {
			if p.rng.prefix.Overlaps(h) {
				return false
			}
		}
		return true
	})
}

func (a *Allocator) holdingsLocked(keep func(netip.Prefix) bool) []Holding {
	var out []Holding
	for owner, hs := range a.owners {
		for _, h := range hs {
			if keep(h) {
				out = append(out, Holding{Owner: owner, Prefix: h})
			}
		}
	}
	slices.SortFunc(out, func(x, y Holding) int {
		if c := cmp.Compare(x.Owner, y.Owner); c != 0 {
			return c
		}
		return comparePrefix(x.Prefix, y.Prefix)
	})
	return out
}

// Conflicts returns the sorted other owners holding a prefix that overlaps
// one of owner's, i.e. Nodes that share addresses with owner. It is O(holdings).
func (a *Allocator) Conflicts(owner string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	mine := a.owners[owner]
	var out []string
	for other, hs := range a.owners {
		if other == owner {
			continue
		}
	scan:
		for _, h := range hs {
			for _, m := range mine {
				if h.Overlaps(m) {
					out = append(out, other)
					break scan
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// Busy returns every prefix that must not be handed out as if it had never
// been used: every holding (confirmed or provisional) and every remembered
// freed block still in its recycle delay at now. Held-back blocks are not
// included, because listing them would cost a prefix per block: the caller
// gets them, as address ranges, from HeldBack. Unsorted; holdings wider or
// narrower than a block are returned as held. The held-back set is expired
// at now first.
func (a *Allocator) Busy(now time.Time) []netip.Prefix {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expireHeldBackLocked(now)
	var out []netip.Prefix
	for _, hs := range a.owners {
		out = append(out, hs...)
	}
	for b, at := range a.freed {
		if at.Add(a.opts.RecycleDelay).After(now) {
			out = append(out, b)
		}
	}
	return out
}

// NextNeverUsed returns, for every range that has one, its lowest never-used
// block: the block Assign hands out next from that range. Held-back blocks are
// not never-used; it takes no time, so a held-back set whose delay has passed
// counts as held back until a call that takes one (Busy, Usage, Assign, ...)
// expires it.
func (a *Allocator) NextNeverUsed() []netip.Prefix {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []netip.Prefix
	for _, p := range a.order {
		if idx, ok := p.taken.firstZero(); ok {
			out = append(out, p.rng.block(idx))
		}
	}
	return out
}
