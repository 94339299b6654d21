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

package nodeipam

import (
	"net/netip"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"podnetwork.io/operator/internal/slimnode"
)

// This file holds what State does for one node. Each method says in its
// result what the caller must trigger: retrying the waiting nodes (a block
// went back to the pool) or reconciling the PodNetwork side (usage,
// acknowledgements).

// Allocation is the outcome of State.Allocate.
type Allocation struct {
	// Blocks to write, one per family, primary family first.
	Blocks []netip.Prefix
	// Families are the candidate ranges tried, per family.
	Families [][]string
	// AnyCandidate is false when no range is Active at all: the node
	// simply waits, there is nothing to warn about.
	AnyCandidate bool
	// Stale is true when NodeIPAM already wrote or saw podCIDRs on this node
	// that the copy read does not show yet: read it again shortly.
	Stale bool
	// RecordPending is true when the issued-block record must be written
	// (State.BeginRecordWrite) before Blocks may be: they lie outside what
	// the API certainly holds.
	RecordPending bool
	// RecordAhead is true when the record should grow by the chunk after
	// the blocks' own (chunker.following) before an allocation needs it:
	// a write the caller starts without waiting for it.
	RecordAhead bool
}

// Allocate picks the blocks to write to a node without podCIDRs: the blocks
// of a write still in flight for it, or new ones from its candidate ranges,
// reserved in one all-or-nothing step. On failure (an *UnavailableError
// when no block is free, or when under familyPolicy AllOrWait a Pending
// range of a family no Active candidate gives it selects the node) the
// node waits for a range or a freed block.
func (s *State) Allocate(node *slimnode.Node) (Allocation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec, ok := s.nodes[node.Name]; ok && rec.uid == node.UID && len(rec.cidrs) > 0 {
		return Allocation{Blocks: rec.cidrs, Stale: true}, nil
	}
	if s.suspended {
		// Parked: retried when the recovery's rebuild reopens the state.
		s.waiting[node.Name] = struct{}{}
		return Allocation{}, ErrRecordRewritten
	}
	if w, ok := s.inflight[node.Name]; ok {
		return Allocation{Blocks: w.blocks, AnyCandidate: true, RecordPending: s.coverLocked(w.blocks)}, nil
	}
	now := s.clock.Now()
	if _, ok := s.firstSeen[node.Name]; !ok {
		s.firstSeen[node.Name] = now
	}
	out := Allocation{
		Families:     Choose(s.cfg.Candidates, node.Name, node.Labels, s.primary),
		AnyCandidate: len(s.cfg.Candidates) > 0,
	}
	if awaited := s.cfg.FamilyWait(node.Name, node.Labels, out.Families); len(awaited) > 0 {
		// AllOrWait: never one family alone while the other's range is
		// on its way; retried when the ranges change.
		s.waiting[node.Name] = struct{}{}
		return out, familyWaitError(awaited)
	}
	blocks, err := Allocate(s.alloc, node.Name, out.Families, now)
	if err != nil {
		s.waiting[node.Name] = struct{}{}
		return out, err
	}
	out.Blocks = blocks
	out.RecordPending = s.coverLocked(blocks)
	out.RecordAhead = s.coverAheadLocked(blocks)
	s.inflight[node.Name] = inflightWrite{uid: node.UID, blocks: blocks}
	delete(s.waiting, node.Name)
	return out, nil
}

// Unavailable decides, for a node that got no block for the reasons in ue,
// whether a CIDRNotAvailable event is due (at most once per backoff period)
// and when to try again: after that period, or sooner when a quarantined
// block becomes reusable.
func (s *State) Unavailable(name string, ue *UnavailableError) (emit bool, retry time.Duration) {
	emit, retry = s.backoff.Failure(name)
	if ue != nil && ue.RetryIn > 0 && ue.RetryIn < retry {
		retry = ue.RetryIn
	}
	return emit, retry
}

// OutcomeUnknown reports whether a write to the node failed without a
// definite answer: the node must then be read from the API server, not
// from a cache that may not show the write yet.
func (s *State) OutcomeUnknown(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inflight[name].uncertain
}

// Written records that the API stored blocks as the node's podCIDRs, and
// returns how long the node waited for them since NodeIPAM first tried.
// The caller reconciles the PodNetwork side.
func (s *State) Written(name string, uid types.UID, blocks []netip.Prefix) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var waited time.Duration
	if first, ok := s.firstSeen[name]; ok {
		waited = s.clock.Since(first)
		delete(s.firstSeen, name)
	}
	delete(s.inflight, name)
	for _, b := range blocks {
		_ = s.alloc.Reserve(name, b) // confirms the assignment; fails only for an empty name
	}
	s.nodes[name] = nodeRecord{uid: uid, cidrs: blocks, ours: true}
	delete(s.waiting, name)
	s.backoff.Forget(name)
	return waited
}

// Rejected records that the API certainly did not store the node's write
// (a conflict, a validation error): its blocks go back to the pool exactly
// as they were, without quarantine. A write whose earlier attempt had an
// unknown outcome keeps its blocks: that attempt may have been stored. The
// caller retries the waiting nodes and reconciles the PodNetwork side.
func (s *State) Rejected(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.inflight[name]; ok && !w.uncertain {
		delete(s.inflight, name)
		s.alloc.Unassign(name)
	}
}

// Uncertain records that the node's write failed without a definite answer.
func (s *State) Uncertain(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.inflight[name]; ok {
		w.uncertain = true
		s.inflight[name] = w
	}
}

// StopWaiting drops a node from the retry set (it is being deleted).
func (s *State) StopWaiting(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiting, name)
	delete(s.firstSeen, name)
	s.backoff.Forget(name)
}

// Gone releases the blocks of a node whose object no longer exists into
// quarantine, forgets the node and returns the released blocks. When there
// are any, the caller retries the waiting nodes and reconciles the
// PodNetwork side.
func (s *State) Gone(name string) []netip.Prefix {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.goneLocked(name)
}

// Replaced treats the node object NodeIPAM knew under this name as gone when
// the name now belongs to another object (it was deleted and created again
// between two reads), so the old object's blocks are quarantined rather than
// handed to the new one. It returns the released blocks, as Gone does.
func (s *State) Replaced(name string, uid types.UID) []netip.Prefix {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, known := s.nodes[name]
	w, writing := s.inflight[name]
	if (known && rec.uid != uid) || (writing && w.uid != uid) {
		return s.goneLocked(name)
	}
	return nil
}

func (s *State) goneLocked(name string) []netip.Prefix {
	released := s.alloc.Release(name, s.clock.Now())
	delete(s.nodes, name)
	delete(s.inflight, name)
	delete(s.waiting, name)
	delete(s.firstSeen, name)
	s.dropConflictsLocked(name)
	s.backoff.Forget(name)
	return released
}

// Observation is what State.Observe learnt from a node with podCIDRs.
type Observation struct {
	// Changed is false when the node shows what NodeIPAM already knew; the
	// rest is then empty. Otherwise the caller reconciles the PodNetwork
	// side.
	Changed bool
	// PodCIDRs are the node's parsed podCIDRs.
	PodCIDRs []netip.Prefix
	// Adopted is true when NodeIPAM did not write them.
	Adopted bool
	// Conflicts are the overlaps of adopted podCIDRs with the podCIDRs of,
	// or blocks held for, other nodes: another allocator is at work.
	Conflicts []Conflict
	// RecordPending is true when the issued-block record lacks adopted
	// podCIDRs: the caller writes it soon (not before anything else: the
	// node has them already).
	RecordPending bool
	// Problems say which podCIDRs could not be read, or only in a legacy
	// format (cidr.ObservePrefixes): what could be read is reserved as
	// Kubernetes reads it; what could not reserves nothing.
	Problems []string
}

// Observe records the podCIDRs a node has. podCIDRs NodeIPAM wrote confirm
// their reservation; others (set before NodeIPAM ran, or by another
// allocator) are adopted: reserved wherever they fall, never overwritten,
// and checked against the blocks held for other nodes. A write still in
// flight with other blocks was certainly not stored (podCIDRs cannot
// change), so those blocks go back to the pool.
func (s *State) Observe(node *slimnode.Node) Observation {
	read := node.ObservedPodCIDRs()
	cidrs := read.Prefixes
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.settledLocked(node, cidrs) {
		return Observation{}
	}
	rec, known := s.nodes[node.Name]
	ours := known && rec.uid == node.UID && rec.ours
	if w, ok := s.inflight[node.Name]; ok {
		delete(s.inflight, node.Name)
		switch {
		case slices.Equal(w.blocks, cidrs):
			ours = true
		case w.carried:
			// Held, not provisional (State.Open): into quarantine, as for
			// any block whose write may have reached a node.
			s.alloc.Release(node.Name, s.clock.Now())
		default:
			s.alloc.Unassign(node.Name)
		}
	}
	for _, p := range cidrs {
		_ = s.alloc.Reserve(node.Name, p) // fails only for an empty name
	}
	s.nodes[node.Name] = nodeRecord{uid: node.UID, cidrs: cidrs, ours: ours}
	delete(s.waiting, node.Name)
	delete(s.firstSeen, node.Name)
	s.backoff.Forget(node.Name)
	out := Observation{Changed: true, PodCIDRs: cidrs, Adopted: !ours, RecordPending: s.coverLocked(cidrs), Problems: read.Problems}
	if !ours {
		out.Conflicts = s.conflictsLocked(node.Name, cidrs)
		for _, c := range out.Conflicts {
			s.addConflictLocked(c)
		}
	}
	return out
}

// Settled reports whether observing node would change nothing: the state
// holds exactly its podCIDRs for this node object. That is what NodeIPAM's
// own write looks like when it comes back through the watch after the
// write's response was recorded (Written), so the controller need not
// reconcile it: one reconcile per node instead of two in a burst. A node
// without podCIDRs is never settled.
func (s *State) Settled(node *slimnode.Node) bool {
	if len(node.Spec.PodCIDRs) == 0 {
		return false
	}
	cidrs := node.ObservedPodCIDRs().Prefixes
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settledLocked(node, cidrs)
}

// StopWaitingIfSettled drops node from the waiting nodes when observing it
// would change nothing (Settled), and reports whether it did. Every node
// that had an event before the gate opened waits; most of them the rebuild
// has just read, from the same cache, and need no reconcile.
func (s *State) StopWaitingIfSettled(node *slimnode.Node) bool {
	if len(node.Spec.PodCIDRs) == 0 {
		return false
	}
	cidrs := node.ObservedPodCIDRs().Prefixes
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == nil || s.suspended || !s.settledLocked(node, cidrs) {
		return false
	}
	delete(s.waiting, node.Name)
	return true
}

// settledLocked reports whether the state holds exactly cidrs, the node's
// parsed podCIDRs, for this node object.
func (s *State) settledLocked(node *slimnode.Node, cidrs []netip.Prefix) bool {
	rec, known := s.nodes[node.Name]
	return known && rec.uid == node.UID && slices.Equal(rec.cidrs, cidrs)
}

// conflictsLocked returns the overlaps of name's podCIDRs with the podCIDRs
// of, or blocks held for, other nodes.
func (s *State) conflictsLocked(name string, cidrs []netip.Prefix) []Conflict {
	var out []Conflict
	for _, other := range s.alloc.Conflicts(name) {
		theirs := slices.Concat(s.nodes[other].cidrs, s.inflight[other].blocks)
		for _, p := range cidrs {
			for _, q := range theirs {
				if p.Overlaps(q) {
					out = append(out, NewConflict(Holding{Node: name, Prefix: p}, Holding{Node: other, Prefix: q}))
				}
			}
		}
	}
	return out
}
