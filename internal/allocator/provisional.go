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

// provisionalBlock is a block Assign handed to an owner that no Reserve has
// confirmed yet, with its state before the assignment: never used (neither
// flag), remembered as freed at freedAt (wasFreed), or held back
// (wasHeldBack; freedAt is the heldBackAt of then, for information). A value,
// not a pointer to the time, so recording it allocates nothing beyond the
// owner's slice.
type provisionalBlock struct {
	block       netip.Prefix
	freedAt     time.Time
	wasFreed    bool
	wasHeldBack bool
}

// provisionalList is the provisional blocks of one owner. The first is stored
// inline, so recording the one block of an Assign allocates nothing; more
// holds the further blocks of an AssignMany.
type provisionalList struct {
	first provisionalBlock
	more  []provisionalBlock
}

// blocks returns every block of l.
func (l provisionalList) blocks() []provisionalBlock {
	return append([]provisionalBlock{l.first}, l.more...)
}

// Unassign undoes every assignment of owner that Reserve has not confirmed,
// and returns the blocks it undid, sorted. Each block goes back to the state
// it was in before Assign took it: never used, or remembered as freed at its
// original time, or held back. A held-back block goes back to the held-back
// set, whose time is never earlier than the one it had, unless that set has
// expired since: then its delay has passed and it becomes never-used, as it
// would have. Nothing is quarantined anew.
//
// It is for a write the API server certainly rejected (a resourceVersion
// conflict, a validation error): the block never reached a Node, so
// quarantining it would only waste it. When the outcome of the write is
// unknown (a timeout), keep the assignment and re-read the Node instead;
// Release still quarantines provisional blocks because a deleted Node may
// have been stored with them. Holdings recorded by Reserve are never touched.
func (a *Allocator) Unassign(owner string) []netip.Prefix {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.provisional[owner]
	if !ok {
		return nil
	}
	delete(a.provisional, owner)
	ps := l.blocks()
	out := make([]netip.Prefix, 0, len(ps))
	for _, pb := range ps {
		a.dropHoldingLocked(owner, pb.block, nil)
		switch {
		case pb.wasFreed && a.unallocatedLocked(pb.block):
			a.freeBlockLocked(pb.block, pb.freedAt)
		case pb.wasHeldBack && a.heldBackLive && a.unallocatedLocked(pb.block):
			a.holdBackBlockLocked(pb.block)
		}
		out = append(out, pb.block)
	}
	slices.SortFunc(out, comparePrefix)
	return out
}

// markProvisionalLocked records that Assign gave owner block pb.block.
func (a *Allocator) markProvisionalLocked(owner string, pb provisionalBlock) {
	l, ok := a.provisional[owner]
	if !ok {
		a.provisional[owner] = provisionalList{first: pb}
		return
	}
	l.more = append(l.more, pb)
	a.provisional[owner] = l
}

// confirmLocked drops the provisional record of owner's block pfx, if any:
// the API says the owner holds it.
func (a *Allocator) confirmLocked(owner string, pfx netip.Prefix) {
	l, ok := a.provisional[owner]
	if !ok {
		return
	}
	if len(l.more) == 0 {
		if l.first.block == pfx {
			delete(a.provisional, owner)
		}
		return
	}
	ps := slices.DeleteFunc(l.blocks(), func(pb provisionalBlock) bool { return pb.block == pfx })
	if len(ps) == 0 {
		delete(a.provisional, owner)
		return
	}
	l = provisionalList{first: ps[0]}
	if len(ps) > 1 {
		l.more = ps[1:]
	}
	a.provisional[owner] = l
}

// unallocatedLocked reports whether block b lies in some pool split into
// blocks of its size and no owner holds it, so it may be remembered as freed
// or held back.
func (a *Allocator) unallocatedLocked(b netip.Prefix) bool {
	found := false
	for _, p := range a.order {
		if p.rng.nodeMask != b.Bits() {
			continue
		}
		idx, ok := p.rng.Index(b.Addr())
		if !ok {
			continue
		}
		if a.allocatedIn(p, idx) {
			return false
		}
		found = true
	}
	return found
}
