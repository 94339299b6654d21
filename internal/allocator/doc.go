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

// Package allocator is the in-memory, multi-range node block allocator behind
// the PodNetwork NodeIPAM. It decides which /nodeMaskSize block of which range
// a Node gets in spec.podCIDRs; it never talks to the API server.
//
// The API is the source of truth. On start the controller lists every Node,
// calls Reserve for each spec.podCIDRs entry, restores the persisted
// quarantine with RestoreQuarantine, and only then starts calling Assign
// (allocating before the rebuild is complete is how kube-controller-manager
// handed out duplicate CIDRs, kubernetes/kubernetes#29058). Every method takes
// the allocator's mutex for the duration of one in-memory operation only;
// callers must never hold any lock of theirs across an API call that depends
// on the allocator, and the allocator never calls out.
//
// # Data structure
//
// Each range is a pool with one bit per block in a two-level bitmap (see
// bitmap): a []uint64 of "taken" bits plus a summary with one bit per word
// that still has a zero bit, so the lowest never-used block is found in
// O(blocks/4096) word reads instead of kube-controller-manager's linear
// big.Int scan. A block is taken when it is allocated, remembered as freed or
// held back (see Quarantine persistence).
// A block's reference count is the number of holdings overlapping it; counts
// above one (only when holdings overlap, e.g. two Nodes adopted with the same
// podCIDR) live in a sparse map, so 2^24 blocks cost 2 MiB, not a counter per
// block.
// Freed blocks are kept per pool in a queue sorted by (freed-at, index),
// which is both the reuse FIFO and the quarantine (see freedQueue): freed
// times almost only grow, so a release appends and a reuse or a trim pops
// the front, both O(1). Their times are also in the Allocator's freed map,
// which locates an entry for removal by binary search, so there is no
// per-block index and a pool's quarantine costs memory for its entries only.
//
// # Ownership
//
// Occupancy is keyed by owner (the Node name). An owner holds one or more
// prefixes; a holding marks every block it overlaps in every range it
// overlaps, and a block stays allocated while any holding overlaps it. That
// makes Reserve idempotent, lets two Nodes that (wrongly) share a podCIDR be
// adopted without losing either, and makes ranges nested in a supernet
// consistent by construction: the same holding marks the block in both.
// Ranges may nest only if they use the same nodeMaskSize, so a block is the
// same prefix in every range that contains it.
//
// A block handed out by Assign or AssignMany is provisional until Reserve
// records the same prefix for the same owner (the API shows it). Unassign
// undoes the provisional blocks of an owner, restoring each to exactly its
// previous state, for a write the API server certainly rejected; Release
// quarantines them like any other holding, because a deleted Node may have
// been stored with them.
//
// # Policy
//
// Assign prefers a block never used since the allocator was built (lowest
// index first, deterministic), then the block freed longest ago once its
// RecycleDelay has passed (held-back blocks count as freed at their common
// time, lowest index first). When every unallocated block is still in
// quarantine, Options.WhenExhausted decides: Wait returns a *QuarantinedError
// (errors.Is ErrQuarantined) carrying when the earliest block becomes
// reusable; ReuseOldest takes the block freed longest ago anyway. When every
// block is allocated Assign returns ErrExhausted.
//
// # Quarantine persistence
//
// Quarantine exports the remembered freed blocks so the controller can store
// them in the API, and RestoreQuarantine reloads them after a restart.
//
// HoldBack holds back every unallocated block of a set of prefixes (the
// controller's record of every block it ever handed out) from a given time,
// except the blocks remembered already as freed at that time or later: after
// a restart, a block freed while no leader ran, whose quarantine was never
// persisted, or whose persisted time is too old to prove it stayed free
// since, waits a full delay from then. The record may cover whole IPv6
// ranges of 2^24 blocks, and 64 or more ranges, so held-back blocks are not
// remembered one entry each (about 200 bytes a block, GiBs): each pool keeps
// them as sorted intervals of block indices, computed a bitmap word at a
// time, so memory is O(intervals), a few per holder, and time O(words). One
// time, heldBackAt, serves every held-back block of the allocator: a later
// HoldBack moves it to the later time for all of them, which is conservative
// (a block may wait longer than needed, never less) and keeps the state one
// time plus intervals. Held-back blocks have their taken bit set, so the
// lowest-never-used search skips them; Assign takes them after every
// never-used block, in time order against the freed ones, and when
// heldBackAt+RecycleDelay passes they become never-used all at once (checked
// lazily by the calls that take the current time). HeldBack exports them as
// merged address ranges and a time, for the controller to store as runs and
// pass back to HoldBack after a restart. They count as quarantined in Usage,
// but not in Busy, Quarantine or MaxQuarantine.
//
// A block is never forgotten while its recycle delay runs, however many
// blocks are released within one delay: forgetting one would make it
// never-used, i.e. the next block handed out. Options.MaxQuarantine
// (DefaultMaxQuarantine = 4096 blocks over all ranges) bounds only the blocks
// remembered past their delay, which merely order reuse (freed longest ago
// first); beyond it the oldest are forgotten. Memory is therefore about 200
// bytes per block released within one delay (measured at 2^20 blocks), the
// blocks of a released holding wider than a block included (a node adopted
// with a /16 podCIDR in a /24 range frees 256 blocks).
package allocator
