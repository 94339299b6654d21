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
	"cmp"
	"maps"
	"math"
	"net/netip"
	"slices"
	"sync"
	"time"

	"go4.org/netipx"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
)

// State is the in-memory side of NodeIPAM, shared by the start-up rebuild
// and the two reconcilers. The allocator holds the block occupancy; the rest
// is what NodeIPAM knows about nodes between two reads of the API, which
// stays the source of truth. It decides reservation, adoption, conflicts,
// return-to-pool and quarantine; it neither logs nor talks to the API
// server: the controller translates watch events into calls, writes the
// results and triggers the work the results call for.
//
// mu guards all of it and is held only for in-memory work, never across an
// API call (node-ipam-controller holds its lock across the node PATCH and
// serializes every allocation on it).
type State struct {
	clock   clock.PassiveClock
	backoff *Backoff
	primary v1alpha1.IPFamily

	mu    sync.Mutex
	alloc *allocator.Allocator // nil until the rebuild opened the gate
	// suspended closes the gate again, from Suspend until the next Open:
	// someone else rewrote the issued-block record.
	suspended bool
	cfg       Config
	cfgRV     string // resourceVersion of the PodNetwork cfg was derived from
	// specGeneration is the PodNetwork generation cfg was derived from: a
	// nodeSelector edit changes the candidates without changing their names.
	specGeneration int64
	// nodes records the podCIDRs seen on, or written to, each node.
	nodes map[string]nodeRecord
	// inflight holds the blocks of node writes in progress or of unknown
	// outcome; they stay reserved until the node is read again.
	inflight map[string]inflightWrite
	// waiting are the nodes to retry when something may let them progress:
	// the gate opening, the ranges changing, a block being freed.
	waiting map[string]struct{}
	// firstSeen is when NodeIPAM first tried to allocate for a node still
	// without podCIDRs, for the allocation duration metric.
	firstSeen map[string]time.Time
	// conflicts are overlapping podCIDRs of node pairs, keyed by the sorted
	// pair of names.
	conflicts map[[2]string][]Conflict
	// record is the issued-block record (state_record.go), chunker its
	// chunks for the tracked ranges.
	record  issuedRecord
	chunker chunker
}

// nodeRecord is what NodeIPAM knows about a node that has podCIDRs.
type nodeRecord struct {
	uid   types.UID
	cidrs []netip.Prefix
	// ours is true when this process wrote the podCIDRs; podCIDRs it did not
	// write are checked against the blocks held for other nodes.
	ours bool
}

// inflightWrite is a podCIDR write NodeIPAM started for a node.
type inflightWrite struct {
	uid    types.UID
	blocks []netip.Prefix
	// uncertain is true once a write of these blocks failed without a
	// definite answer: it may have been stored, so the blocks are only given
	// up when the node is seen with other podCIDRs, and quarantined when it
	// is gone.
	uncertain bool
	// carried is true for a write a recovery carried into its rebuild
	// (State.Open): its blocks are held for the node, not provisional, so
	// they are released into quarantine, not returned, when the node shows
	// other podCIDRs.
	carried bool
}

// NewState returns a closed State: nothing is allocated until Open installs
// what the start-up rebuild read. clk times quarantines, the allocation
// duration and the acknowledgements; backoff paces CIDRNotAvailable events
// and is forgotten for a node once it has podCIDRs or is gone; primary is
// the family listed first in a dual-stack node's podCIDRs.
func NewState(clk clock.PassiveClock, backoff *Backoff, primary v1alpha1.IPFamily) *State {
	return &State{
		clock:     clk,
		backoff:   backoff,
		primary:   primary,
		cfg:       NewConfig(nil),
		nodes:     map[string]nodeRecord{},
		inflight:  map[string]inflightWrite{},
		waiting:   map[string]struct{}{},
		firstSeen: map[string]time.Time{},
		conflicts: map[[2]string][]Conflict{},
		record:    newIssuedRecord(),
		chunker:   newChunker(nil),
	}
}

// Open checks the finished rebuild for overlapping podCIDRs, installs it
// and lets the reconcilers work. The caller retries every waiting node and
// reconciles the PodNetwork side afterwards.
//
// After Suspend it replaces what the state knew by the rebuild, except the
// nodes still waiting and the node writes still in flight or of unknown
// outcome: the rebuild read the nodes after those writes were sent, so
// each may land yet. A write the rebuild saw a node with podCIDRs for is
// settled (stored, or certainly not: podCIDRs never change); the blocks of
// every other one stay held for its node, and the write counts as of
// unknown outcome, so the node is read again from the API server before
// the same blocks are written again.
func (s *State) Open(r *Rebuild) RebuildSummary {
	sum := r.finish()
	s.mu.Lock()
	defer s.mu.Unlock()
	reopen := s.alloc != nil
	s.alloc, s.cfg, s.cfgRV, s.specGeneration, s.nodes = r.alloc, r.cfg, r.rv, r.generation, r.nodes
	s.chunker = newChunker(r.cfg.Ranges)
	if r.record != nil {
		s.record = *r.record
	}
	if reopen {
		s.conflicts = map[[2]string][]Conflict{} // the rebuild found the ones that remain
		s.carryInflightLocked()
	}
	for _, c := range r.conflicts {
		s.addConflictLocked(c)
	}
	s.suspended = false
	return sum
}

// carryInflightLocked carries the node writes of the suspended state into
// the state just rebuilt (see Open).
func (s *State) carryInflightLocked() {
	for name, w := range s.inflight {
		if rec, ok := s.nodes[name]; ok && rec.uid == w.uid && len(rec.cidrs) > 0 {
			delete(s.inflight, name)
			continue
		}
		for _, b := range w.blocks {
			_ = s.alloc.Reserve(name, b) // fails only for an empty name
		}
		w.uncertain, w.carried = true, true
		s.inflight[name] = w
	}
}

// Park reports whether the gate is closed (the rebuild has not finished, or
// a recovery suspended the state); the node is then among the waiting nodes
// to retry when it opens.
func (s *State) Park(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc != nil && !s.suspended {
		return false
	}
	s.waiting[name] = struct{}{}
	return true
}

// IsOpen reports whether the rebuild finished and no recovery suspended the
// state since.
func (s *State) IsOpen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.alloc != nil && !s.suspended
}

// NodeWritesInFlight counts the node writes sent whose answer has not come
// yet. A recovery waits for them before it reads the nodes (Open).
func (s *State) NodeWritesInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.inflight {
		if !w.uncertain {
			n++
		}
	}
	return n
}

// WaitingNodes returns the nodes to retry when something may let them
// progress.
func (s *State) WaitingNodes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.waiting))
}

// Holdings returns every block the allocator holds, for tests and
// diagnostics; nil while the gate is closed.
func (s *State) Holdings() []allocator.Holding {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == nil {
		return nil
	}
	return s.alloc.Holdings()
}

// Quarantine returns the quarantined blocks, for tests: the ones
// remembered one by one and, block by block, the held-back runs (so only
// for small ranges); nil while the gate is closed.
func (s *State) Quarantine() []allocator.QuarantineEntry {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == nil {
		return nil
	}
	out := append(s.alloc.Quarantine(), s.heldBackBlocksLocked(now, math.MaxInt)...)
	slices.SortFunc(out, func(x, y allocator.QuarantineEntry) int {
		return cmp.Or(x.FreedAt.Compare(y.FreedAt), x.Prefix.Addr().Compare(y.Prefix.Addr()))
	})
	return out
}

// heldBackBlocksLocked returns the first limit held-back blocks, one
// entry each, in address order.
func (s *State) heldBackBlocksLocked(now time.Time, limit int) []allocator.QuarantineEntry {
	var out []allocator.QuarantineEntry
	at, held := s.alloc.HeldBack(now)
	for _, r := range held {
		for _, p := range r.Prefixes() {
			spec, ok := s.cfg.rangeOf(p.Addr())
			if !ok {
				continue
			}
			for b := netip.PrefixFrom(p.Addr(), spec.NodeMaskSize); b.IsValid() && p.Contains(b.Addr()); {
				if len(out) >= limit {
					return out
				}
				out = append(out, allocator.QuarantineEntry{Prefix: b, FreedAt: at})
				b = netip.PrefixFrom(netipx.PrefixLastIP(b).Next(), spec.NodeMaskSize)
			}
		}
	}
	return out
}

// addConflictLocked records a pair of nodes with overlapping podCIDRs.
func (s *State) addConflictLocked(c Conflict) {
	key := [2]string{c.Node, c.Other}
	if !slices.Contains(s.conflicts[key], c) {
		s.conflicts[key] = append(s.conflicts[key], c)
	}
}

// dropConflictsLocked forgets the conflicts of a node that is gone.
func (s *State) dropConflictsLocked(name string) {
	maps.DeleteFunc(s.conflicts, func(k [2]string, _ []Conflict) bool { return k[0] == name || k[1] == name })
}
