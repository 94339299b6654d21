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
	"time"
)

// Reserve records that owner holds prefix, typically a Node's existing
// spec.podCIDRs entry during the start-up rebuild or when adopting a Node that
// got its podCIDRs elsewhere. The prefix is masked; its size need not match
// any range's blocks: it marks every block it overlaps in every range (a /23
// in a /24-block range holds two blocks, a /26 holds the block containing
// it). Reserve is idempotent per (owner, prefix). It also succeeds for a
// prefix outside every range (reported by Unmanaged), because the API, not
// the allocator, is the source of truth, and refusing to record a foreign
// podCIDR is how kube-controller-manager ended up crash-looping
// (kubernetes/kubernetes#82773). A block that was remembered as freed stops
// being freed. Overlap with other owners is allowed and reference-counted;
// use Conflicts to report it. Reserving a prefix that Assign handed to the
// same owner confirms it: Unassign no longer undoes it.
func (a *Allocator) Reserve(owner string, prefix netip.Prefix) error {
	if owner == "" {
		return ErrInvalidOwner
	}
	if !prefix.IsValid() {
		return fmt.Errorf("owner %q: %w", owner, ErrInvalidPrefix)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	pfx := prefix.Masked()
	a.holdLocked(owner, pfx)
	a.confirmLocked(owner, pfx)
	return nil
}

// Release drops every holding of owner, to be called once the Node object is
// really gone (not at its DeletionTimestamp, kubernetes/kubernetes#127792).
// Blocks no other owner holds are remembered as freed at now and stay in
// quarantine for RecycleDelay, provisional ones included: when the Node is
// gone the caller cannot tell whether its last write stored them. It returns
// the released prefixes, sorted; nil if owner held nothing.
func (a *Allocator) Release(owner string, now time.Time) []netip.Prefix {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.provisional, owner)
	held := a.owners[owner]
	if len(held) == 0 {
		return nil
	}
	// The owner's slice is the caller's from here: nothing else refers to it.
	delete(a.owners, owner)
	now = now.Round(0)
	var buf [4]netip.Prefix // a Node holds one block per family
	blocks := buf[:0]
	for _, h := range held {
		a.unholdLocked(h, func(p *pool, idx int) {
			blocks = append(blocks, p.rng.block(idx))
		})
	}
	// Every block stays remembered for its whole delay, however many there
	// are: forgetting one would make it the next block handed out.
	for _, b := range blocks {
		a.freeBlockLocked(b, now)
	}
	a.trimLocked(now)
	return held
}
