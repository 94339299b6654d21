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
	"errors"
	"net/netip"
	"time"

	"go4.org/netipx"

	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/nodeipam/blockstore"
)

// This file holds what State does for the block store (record.go):
// which blocks it must cover before they are written to a node, what one
// write stores, and what it may forget.

// ErrRecordRewritten means someone else wrote the block store since
// this leader's last write (JudgeRecord): NodeIPAM allocates nothing until
// it has rebuilt its state from the API (Suspend, then Open).
var ErrRecordRewritten = errors.New("the block store was rewritten by another client; NodeIPAM allocates nothing until it has rebuilt its state from the API")

// RecordOutcome is what became of a write of the record.
type RecordOutcome int

const (
	// RecordStored: the API server stored it.
	RecordStored RecordOutcome = iota
	// RecordNotStored: the API server certainly stored nothing.
	RecordNotStored
	// RecordUnknown: it may or may not have been stored.
	RecordUnknown
)

// issuedRecord is the record as NodeIPAM knows it.
type issuedRecord struct {
	// stored is what the API holds, as far as certainly known.
	stored *netipx.IPSet
	// writing is the content of a write in progress, nil if none: it may
	// replace stored at any moment.
	writing *netipx.IPSet
	// want is what the next write stores: stored, grown by the chunks of
	// blocks handed out or adopted since, less what trimming dropped.
	want *netipx.IPSet
	// orphanSince is when recorded addresses were first seen outside every
	// tracked range (see TrimRecord).
	orphanSince map[netip.Prefix]time.Time
}

func newIssuedRecord() issuedRecord {
	empty := &netipx.IPSet{}
	return issuedRecord{stored: empty, want: empty, orphanSince: map[netip.Prefix]time.Time{}}
}

// coveredLocked reports whether the record certainly holds blocks, now and
// after the write in progress, so they may be written to a node.
func (s *State) coveredLocked(blocks []netip.Prefix) bool {
	r := &s.record
	return s.chunker.contains(r.stored, blocks) && (r.writing == nil || s.chunker.contains(r.writing, blocks))
}

// coverLocked grows the wanted record by the chunks of blocks it lacks and
// reports whether blocks must wait for a write of the record.
func (s *State) coverLocked(blocks []netip.Prefix) bool {
	s.record.want = s.chunker.cover(s.record.want, blocks)
	return !s.coveredLocked(blocks)
}

// coverAheadLocked grows the wanted record by the chunk after each block's
// own (chunker.following) and reports whether the record lacks what is
// wanted while no write is under way. Recording a chunk before its first
// block is handed out keeps the write off the allocations' path: with
// chunks of 64 blocks, a 5,000-node burst otherwise stalled 78 times for a
// record write. After a fail-over the rebuild quarantines the recorded
// blocks no node holds, so this holds back at most one more chunk per range
// for the recycle delay.
func (s *State) coverAheadLocked(blocks []netip.Prefix) bool {
	var ahead []netip.Prefix
	for _, b := range blocks {
		ahead = append(ahead, s.chunker.following(b)...)
	}
	s.record.want = s.chunker.cover(s.record.want, ahead)
	return s.record.writing == nil && !s.suspended && !s.record.want.Equal(s.record.stored)
}

// RecordCovers reports whether the record certainly holds blocks, so they
// may be written to a node.
func (s *State) RecordCovers(blocks []netip.Prefix) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.coveredLocked(blocks)
}

// RecordWrite is one write of the block store.
type RecordWrite struct {
	// Issued is the issued set it stores: what counts as recorded once
	// it is stored (EndRecordWrite).
	Issued *netipx.IPSet
	// Data is its wire form (blockstore.Encode), with the freed blocks.
	Data []byte
	// Coarsened says what the size budget cost, if anything.
	Coarsened blockstore.Coarsening
}

// BeginRecordWrite returns what to store, or false when the API already
// holds that issued set: the freed blocks change the store only with it
// (a block freed since the last write stays issued until the next one,
// which the periodic TrimRecord makes). The caller writes it, one write at
// a time, and reports the outcome with EndRecordWrite; until then blocks
// that the content lacks count as not covered.
func (s *State) BeginRecordWrite() (RecordWrite, bool) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.suspended || s.alloc == nil || s.record.want.Equal(s.record.stored) {
		return RecordWrite{}, false
	}
	w, err := s.encodeLocked(s.record.want, now)
	if err != nil {
		// Sections come from validated ranges and the issued set from
		// their blocks: this cannot fail but by a bug, and writing
		// nothing stalls allocation, which the node reconciler reports.
		return RecordWrite{}, false
	}
	s.record.writing = s.record.want
	return w, true
}

// encodeLocked encodes issued with every block freed within its delay at
// now.
func (s *State) encodeLocked(issued *netipx.IPSet, now time.Time) (RecordWrite, error) {
	return encodeStore(s.alloc, s.cfg.RecycleDelay, s.chunker, issued, now)
}

// encodeStore encodes issued with every block alloc remembers freed within
// delay at now, per block and held back.
func encodeStore(alloc *allocator.Allocator, delay time.Duration, c chunker, issued *netipx.IPSet, now time.Time) (RecordWrite, error) {
	var freed []blockstore.Freed
	for _, e := range alloc.Quarantine() {
		if e.FreedAt.Add(delay).After(now) {
			freed = append(freed, blockstore.Freed{Range: netipx.RangeOfPrefix(e.Prefix), At: e.FreedAt})
		}
	}
	if at, held := alloc.HeldBack(now); len(held) > 0 {
		for _, r := range held {
			freed = append(freed, blockstore.Freed{Range: r, At: at})
		}
	}
	data, co, err := blockstore.Encode(blockstore.Content{Issued: issued, Freed: freed}, c.sections(), now, blockstore.DefaultBudget)
	if err != nil {
		return RecordWrite{}, err
	}
	return RecordWrite{Issued: issued, Data: data, Coarsened: co}, nil
}

// EndRecordWrite records the outcome of writing content. After an unknown
// outcome only what both the old and the new content hold is certainly
// stored.
func (s *State) EndRecordWrite(content *netipx.IPSet, outcome RecordOutcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &s.record
	r.writing = nil
	switch outcome {
	case RecordStored:
		r.stored = content
	case RecordUnknown:
		var b netipx.IPSetBuilder
		b.AddSet(r.stored)
		b.Intersect(content)
		r.stored, _ = b.IPSet()
	case RecordNotStored:
	}
}

// RecordReread replaces what the API is known to hold by a fresh read of
// the record: a version this leader wrote (JudgeRecord's RecordAdopt, a
// write whose outcome was unknown), or nothing once it was deleted.
func (s *State) RecordReread(stored *netipx.IPSet) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record.stored = stored
}

// Suspend stops allocation and writes of the record at once: someone else
// wrote the record (JudgeRecord), so its content is untrusted and this
// leader's view may be stale (another NodeIPAM may have allocated). Nodes
// that ask meanwhile wait, parked, until the rebuild that follows reopens
// the state (Open, with Rebuild.DistrustRecord); the PodNetwork side waits
// too. It reports whether the state was open and not suspended yet, so one
// rewrite starts one recovery.
func (s *State) Suspend() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == nil || s.suspended {
		return false
	}
	s.suspended = true
	return true
}

// RecordKnown returns every address this leader's record holds or may
// hold: stored, being written, or wanted. A recovery claims it again, with
// every tracked range, so the addresses outside every range it still keeps
// for their delay (TrimRecord) are not lost with the rewritten content.
func (s *State) RecordKnown() *netipx.IPSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b netipx.IPSetBuilder
	b.AddSet(s.record.stored)
	b.AddSet(s.record.want)
	if s.record.writing != nil {
		b.AddSet(s.record.writing)
	}
	set, _ := b.IPSet()
	return set
}

// TrimRecord drops from the wanted record every chunk that is free past its
// delay (see TrimRecord the function). It returns whether a write is due,
// and, when recorded addresses outside every range are waiting out their
// delay, how soon to trim again.
func (s *State) TrimRecord() (bool, time.Duration) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == nil {
		return false, 0
	}
	next := s.trimLocked(now)
	return !s.suspended && !s.record.want.Equal(s.record.stored), next
}

func (s *State) trimLocked(now time.Time) time.Duration {
	want, since, next := TrimRecord(s.record.want, s.cfg.Ranges, s.alloc.Held(), s.alloc.NextNeverUsed(),
		s.record.orphanSince, now, s.cfg.RecycleDelay)
	s.record.want, s.record.orphanSince = want, since
	return next
}

// rangesChangedLocked follows a change of the tracked ranges: blocks of
// addresses that were in no tracked range before and are recorded (a range
// removed and added again, maybe with another nodeMaskSize) are quarantined
// from now unless held, and the record is trimmed to the new chunks at
// once, which keeps it within its size bound.
func (s *State) rangesChangedLocked(now time.Time) {
	before := s.chunker.ranges
	s.chunker = newChunker(s.cfg.Ranges)
	var b netipx.IPSetBuilder
	b.AddSet(s.chunker.ranges)
	b.RemoveSet(before)
	b.Intersect(s.record.want)
	if added, _ := b.IPSet(); len(added.Prefixes()) > 0 {
		// Held back from now, with every block held back before: more
		// quarantine than needed for the blocks this leader remembers
		// freed earlier, which is safe and rare (a range added back).
		s.alloc.HoldBack(added.Prefixes(), now)
	}
	s.trimLocked(now)
}

// RecordWant returns the record as NodeIPAM wants it stored, for tests and
// diagnostics.
func (s *State) RecordWant() *netipx.IPSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.record.want
}
