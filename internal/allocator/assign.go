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
	"net/netip"
	"slices"
	"time"
)

// Assign gives owner one block of the named range and returns it. If owner
// already holds a prefix overlapping the range, that prefix is returned and
// nothing changes, so retries after an unacknowledged PATCH are safe. A new
// block is provisional until Reserve confirms it; Unassign undoes it.
//
// Block choice: the lowest-index never-used block; otherwise the block freed
// longest ago if its recycle delay has passed at now; otherwise, under
// ReuseOldest, the block freed longest ago anyway. Held-back blocks (see
// HoldBack) count as freed at heldBackAt, the lowest index first; the
// held-back set expires at now first. Errors: ErrUnknownRange,
// ErrRangeInactive, a *QuarantinedError (errors.Is ErrQuarantined) under
// Wait, counting freed and held-back blocks, and ErrExhausted when every
// block is allocated.
func (a *Allocator) Assign(owner, rangeName string, now time.Time) (netip.Prefix, error) {
	if owner == "" {
		return netip.Prefix{}, ErrInvalidOwner
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expireHeldBackLocked(now)
	p, ok := a.pools[rangeName]
	if !ok {
		return netip.Prefix{}, fmt.Errorf("%w %q", ErrUnknownRange, rangeName)
	}
	if h, ok := a.heldIn(owner, p); ok {
		return h, nil
	}
	if !p.active {
		return netip.Prefix{}, fmt.Errorf("range %q: %w", rangeName, ErrRangeInactive)
	}
	pb, err := a.assignLocked(owner, p, now)
	if err != nil {
		return netip.Prefix{}, err
	}
	a.markProvisionalLocked(owner, pb)
	return pb.block, nil
}

// AssignMany gives owner one block in every named range, or nothing: if any
// range fails, the blocks assigned by this call are returned to exactly the
// state they were in (never-used, freed at their original time, or held
// back), so a dual-stack Node whose second family is exhausted does not leak
// a block of the first family on every retry, the bug kube-controller-manager
// and node-ipam-controller share. Prefixes the owner already holds count as
// assigned and are kept. The result is in rangeNames order.
func (a *Allocator) AssignMany(owner string, rangeNames []string, now time.Time) ([]netip.Prefix, error) {
	if owner == "" {
		return nil, ErrInvalidOwner
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expireHeldBackLocked(now)
	pools := make([]*pool, len(rangeNames))
	for i, name := range rangeNames {
		p, err := a.poolFor(owner, name)
		if err != nil {
			return nil, fmt.Errorf("owner %q: nothing assigned: %w", owner, err)
		}
		pools[i] = p
	}
	var undos []provisionalBlock
	out := make([]netip.Prefix, len(pools))
	for i, p := range pools {
		if h, ok := a.heldIn(owner, p); ok {
			out[i] = h
			continue
		}
		pb, err := a.assignLocked(owner, p, now)
		if err != nil {
			for j := len(undos) - 1; j >= 0; j-- {
				u := undos[j]
				a.dropHoldingLocked(owner, u.block, nil)
				switch {
				case u.wasFreed:
					a.freeBlockLocked(u.block, u.freedAt)
				case u.wasHeldBack:
					// Same call, so the same heldBackAt: exactly as before.
					a.holdBackBlockLocked(u.block)
				}
			}
			return nil, fmt.Errorf("owner %q: nothing assigned: %w", owner, err)
		}
		out[i] = pb.block
		undos = append(undos, pb)
	}
	for _, u := range undos {
		a.markProvisionalLocked(owner, u)
	}
	return out, nil
}

// poolFor looks up the range and, unless owner already holds a block in it,
// checks that it is active.
func (a *Allocator) poolFor(owner, rangeName string) (*pool, error) {
	p, ok := a.pools[rangeName]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownRange, rangeName)
	}
	if _, held := a.heldIn(owner, p); !held && !p.active {
		return nil, fmt.Errorf("range %q: %w", rangeName, ErrRangeInactive)
	}
	return p, nil
}

// assignLocked picks a block of p by policy and gives it to owner. The
// result says whether the block was a remembered freed block, and its freed
// time, or a held-back block, for undo. The caller has expired the held-back
// set at now.
func (a *Allocator) assignLocked(owner string, p *pool, now time.Time) (provisionalBlock, error) {
	var pb provisionalBlock
	idx, ok := p.taken.firstZero()
	if !ok {
		// The older of the front of the freed queue and the held-back set
		// (as one entry at heldBackAt, its lowest block); with one delay for
		// both, the older is also the one reusable first.
		e, found := p.freed.min()
		heldBack := false
		if p.heldN > 0 {
			if h := (freedEntry{at: a.heldBackAt, idx: int(p.held[0].lo)}); !found || h.before(e) {
				e, heldBack = h, true
			}
			found = true
		}
		if !found {
			return pb, fmt.Errorf("range %q (%s): all %d blocks are allocated: %w", p.name, p.rng.prefix, p.rng.n, ErrExhausted)
		}
		reusableAt := e.at.Add(a.opts.RecycleDelay)
		if reusableAt.After(now) && a.opts.WhenExhausted != ReuseOldest {
			return pb, &QuarantinedError{
				Range:       p.name,
				Quarantined: p.quarantined(now, a.opts.RecycleDelay) + p.heldN,
				ReusableAt:  reusableAt,
				RetryIn:     reusableAt.Sub(now),
			}
		}
		idx, pb.freedAt, pb.wasFreed, pb.wasHeldBack = e.idx, e.at, !heldBack, heldBack
	}
	pb.block = p.rng.block(idx)
	a.holdBlockLocked(owner, p, idx, pb)
	return pb, nil
}

// holdBlockLocked is holdLocked for block idx of p, which owner does not
// hold, as Assign picked it: the block is one block of every pool that
// contains it, and it is a remembered freed block only if pb.wasFreed and a
// held-back one only if pb.wasHeldBack (pools sharing a block agree on its
// state), so the common never-used case does no lookup.
func (a *Allocator) holdBlockLocked(owner string, p *pool, idx int, pb provisionalBlock) {
	hs := a.owners[owner]
	i, _ := slices.BinarySearchFunc(hs, pb.block, comparePrefix)
	a.owners[owner] = slices.Insert(hs, i, pb.block)
	switch {
	case pb.wasFreed:
		a.forgetFreedLocked(pb.block, pb.freedAt)
	case pb.wasHeldBack:
		// Out of the held-back set of every pool, and never-used, so hold
		// does not count its taken bit as another holder.
		a.unholdBackLocked(pb.block)
	}
	for _, q := range a.order {
		if q == p {
			q.hold(idx, idx)
		} else if lo, hi, ok := q.rng.Overlapping(pb.block); ok {
			q.hold(lo, hi)
		}
	}
}
