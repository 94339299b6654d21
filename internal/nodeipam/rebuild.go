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
	"fmt"
	"net/netip"
	"time"

	"go4.org/netipx"
	"k8s.io/apimachinery/pkg/types"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/nodeipam/blockstore"
)

// Rebuild is NodeIPAM's state read back from the API when a replica becomes
// the leader, before anything is allocated (allocating before the rebuild
// completed is how kube-controller-manager handed out duplicate podCIDRs,
// kubernetes/kubernetes#29058): a fresh allocator with the PodNetwork's
// ranges, every node's podCIDRs reserved wherever they fall, and the
// persisted quarantine. State.Open checks it and installs it.
type Rebuild struct {
	alloc      *allocator.Allocator
	cfg        Config
	rv         string
	generation int64
	nodes      map[string]nodeRecord
	holdings   []Holding
	conflicts  []Conflict
	// record is the issued-block record once ApplyRecord read it.
	record *issuedRecord
	// fromRecord counts the blocks ApplyRecord quarantined.
	fromRecord int
	// distrusted is set by DistrustRecord.
	distrusted bool
	// quarantineIgnored counts the quarantine entries not restored as
	// written (QuarantineEntries).
	quarantineIgnored int
	podCIDRProblems   []NodePodCIDRProblems
}

// NodePodCIDRProblems is a node whose podCIDRs could not all be read, or
// only in a legacy format (cidr.ObservePrefixes).
type NodePodCIDRProblems struct {
	Node string
	UID  types.UID
	// PodCIDRs are the podCIDRs that could be read, as Kubernetes reads them.
	PodCIDRs []netip.Prefix
	Problems []string
}

// NewRebuild starts a rebuild from the PodNetwork (nil when there is none).
// It should be the cached copy, as every later Sync reads, so the phases
// NodeIPAM applies never go back in time.
func NewRebuild(pn *v1alpha1.PodNetwork) (*Rebuild, error) {
	cfg := NewConfig(pn)
	a := allocator.New(allocator.Options{RecycleDelay: cfg.RecycleDelay, WhenExhausted: cfg.WhenExhausted})
	if err := a.SetRanges(cfg.Ranges); err != nil {
		return nil, fmt.Errorf("configuring the node allocator: %w", err)
	}
	r := &Rebuild{alloc: a, cfg: cfg, nodes: map[string]nodeRecord{}}
	if pn != nil {
		r.rv, r.generation = pn.ResourceVersion, pn.Generation
	}
	return r, nil
}

// AddNode reserves a node's podCIDRs (node.spec.podCIDRs, unparsed), read
// as Kubernetes reads them; the ones that cannot be read, or only in a
// legacy format, are listed in the summary. Nodes without podCIDRs are
// skipped.
func (r *Rebuild) AddNode(name string, uid types.UID, podCIDRs []string) error {
	return r.AddObservedNode(name, uid, cidr.ObservePrefixes(podCIDRs))
}

// AddObservedNode is AddNode for podCIDRs read already (a cached node's
// slimnode.Node.ObservedPodCIDRs), which it shares: it never changes them.
func (r *Rebuild) AddObservedNode(name string, uid types.UID, read cidr.Observed) error {
	if len(read.Problems) > 0 {
		r.podCIDRProblems = append(r.podCIDRProblems, NodePodCIDRProblems{Node: name, UID: uid, PodCIDRs: read.Prefixes, Problems: read.Problems})
	}
	cidrs := read.Prefixes
	if len(cidrs) == 0 {
		return nil
	}
	for _, p := range cidrs {
		if err := r.alloc.Reserve(name, p); err != nil {
			return fmt.Errorf("reserving podCIDR %s of node %s: %w", p, name, err)
		}
		r.holdings = append(r.holdings, Holding{Node: name, Prefix: p})
	}
	r.nodes[name] = nodeRecord{uid: uid, cidrs: cidrs}
	return nil
}

// RestoreQuarantine restores the quarantine the PodNetwork (nil when there
// is none) reports, as QuarantineEntries reads it at now, when there is
// neither a block store nor an issued-block record (a first start, or the
// store deleted): status.quarantine is a report, and only then the best
// that is left. It should be read from the API server, not the cache.
func (r *Rebuild) RestoreQuarantine(pn *v1alpha1.PodNetwork, now time.Time) {
	if pn == nil {
		return
	}
	entries, ignored := QuarantineEntries(pn.Status.Quarantine, now)
	r.alloc.RestoreQuarantine(entries)
	r.quarantineIgnored = ignored
}

// ApplyStore quarantines what the block store (data, the ConfigMap's
// binaryData as read from the API server) says: every issued block no node
// holds from now (it may have been freed moments before the restart, or
// while no leader ran), every freed block from its time (nobody handed it
// out since, or the store would list it issued), as runs, never block by
// block (docs/nodeipam.md, "The block store"). Call it after every
// AddNode. It then extends the issued set to every block nodes hold, which
// ClaimRecord returns. A store that does not parse is taken to have every
// tracked range issued, one run per range, and the error is returned for
// the log.
func (r *Rebuild) ApplyStore(data []byte, now time.Time) error {
	c := newChunker(r.cfg.Ranges)
	content, _, err := blockstore.Decode(data)
	if err != nil {
		r.fromRecord = r.alloc.HoldBack(c.ranges.Prefixes(), now)
		r.useRecord(c, c.ranges, c.ranges)
		return err
	}
	r.restoreFreed(content.Freed)
	r.fromRecord += r.alloc.HoldBack(content.Issued.Prefixes(), now)
	r.useRecord(c, content.Issued, content.Issued)
	return nil
}

// maxRestoredBlocks bounds the freed blocks a rebuild restores one by one,
// each with its own time (about 200 bytes each); longer runs, and the
// blocks past the bound, are held back from their run's time instead,
// which moves the time of every held-back block to the latest (only more
// quarantine).
const maxRestoredBlocks = 1 << 17

// restoreFreed quarantines the store's freed runs from their times.
func (r *Rebuild) restoreFreed(freed []blockstore.Freed) {
	var entries []allocator.QuarantineEntry
	for _, f := range freed {
		if p, ok := f.Range.Prefix(); ok && len(entries) < maxRestoredBlocks && r.cfg.isBlock(p) {
			entries = append(entries, allocator.QuarantineEntry{Prefix: p, FreedAt: f.At})
			continue
		}
		r.fromRecord += r.alloc.HoldBack(f.Range.Prefixes(), f.At)
	}
	r.alloc.RestoreQuarantine(entries)
}

// ApplyLegacyRecord is ApplyStore for a cluster without a block store
// that still has the issued-block record of an older release (data, its
// text) and status.quarantine (pn, as read from the API server): every
// recorded block no node holds is held back from now, except the blocks
// status.quarantine lists with a time that proves they stayed free since
// (ListedTrustedSince), which keep it. Call it after every AddNode, once:
// the store written next replaces both. A record with lines that do not
// parse is taken to cover every tracked range, and the error is returned
// for the log.
func (r *Rebuild) ApplyLegacyRecord(data map[string]string, pn *v1alpha1.PodNetwork, now time.Time) error {
	set, err := DecodeRecord(data)
	c := newChunker(r.cfg.Ranges)
	if err != nil {
		var b netipx.IPSetBuilder
		b.AddSet(set)
		b.AddSet(c.ranges)
		set, _ = b.IPSet()
	}
	var trusted []allocator.QuarantineEntry
	var rest netipx.IPSetBuilder
	rest.AddSet(set)
	if pn != nil {
		entries, ignored := QuarantineEntries(pn.Status.Quarantine, now)
		r.quarantineIgnored = ignored
		since := ListedTrustedSince(now, r.cfg.RecycleDelay)
		for _, e := range entries {
			if !e.FreedAt.Before(since) {
				trusted = append(trusted, e)
				rest.RemovePrefix(e.Prefix)
			}
		}
	}
	r.alloc.RestoreQuarantine(trusted)
	held, _ := rest.IPSet()
	r.fromRecord = r.alloc.HoldBack(held.Prefixes(), now)
	// Nothing of the new store is stored yet: the claim creates it.
	r.useRecord(c, &netipx.IPSet{}, set)
	return err
}

// DistrustRecord is ApplyStore for a store someone else rewrote while
// this leader held it (JudgeRecord's RecordRewritten): its content is not
// read at all, and every block of every tracked range that no node holds
// is held back from now, one run per range. Nothing in the API tells which
// blocks were handed out and freed since the store was last right (the
// rewrite may have dropped them, and another NodeIPAM may have allocated),
// so none is free before a full delay from now: under Wait nothing is
// handed out until then, and blocks freed later wait their own delay. own
// is what this leader's store held (State.RecordKnown), claimed again with
// every tracked range, so the addresses outside every range it kept for
// their delay are not lost. Call it after every AddNode, instead of
// ApplyStore.
func (r *Rebuild) DistrustRecord(own *netipx.IPSet, now time.Time) {
	c := newChunker(r.cfg.Ranges)
	var b netipx.IPSetBuilder
	b.AddSet(c.ranges)
	if own != nil {
		b.AddSet(own)
	}
	set, _ := b.IPSet()
	r.fromRecord = r.alloc.HoldBack(c.ranges.Prefixes(), now)
	r.distrusted = true
	// What the API holds is not this leader's: nothing counts as stored
	// until the claim is.
	r.useRecord(c, &netipx.IPSet{}, set)
}

// useRecord makes the record stored, with want grown by the chunks of
// every block nodes hold, what the rebuild claims.
func (r *Rebuild) useRecord(c chunker, stored, want *netipx.IPSet) {
	held := make([]netip.Prefix, len(r.holdings))
	for i, h := range r.holdings {
		held[i] = h.Prefix
	}
	rec := newIssuedRecord()
	rec.stored = stored
	rec.want = c.cover(want, held)
	r.record = &rec
}

// statusResolution is how much earlier than its listed freedAt a block may
// have been freed: QuarantineStatus rounds freedAt up to the second the API
// stores.
const statusResolution = time.Second

// ListedTrustedSince returns the oldest freedAt of status.quarantine that a
// rebuild at now keeps for a block of the issued-block record that no node
// holds: such a block listed as freed at freedAt >= ListedTrustedSince has
// certainly stayed free since, and its quarantine runs from freedAt; one
// listed earlier, or not listed, is quarantined from now.
//
// Why: the writer of the status remembered the block as freed at some
// m > freedAt - statusResolution (freedAt is m rounded up), and under Wait
// no leader hands a block out before its delay has passed since the time
// it remembers: the writer not before m + delay, a later leader that kept
// the listed time not before freedAt + delay, one that quarantined it from
// its own rebuild later still. So while now <= freedAt - statusResolution
// + delay, no node can have held the block since m, and freedAt bounds its
// real free time. After that, a node may have got it and been deleted
// before the next status write (the status is written at most once per
// interval, and not at all by a killed leader or during downtime): nothing
// in the API says when, and a full delay from the rebuild is the only safe
// bound. A listed block still in its delay thus waits exactly as long as
// before the restart, never longer.
//
// The rule takes the recycle delay in force at the rebuild to have been in
// force since freedAt, and the status writer's clock to agree with this
// one's; a delay raised, or ReuseOldest switched to Wait, within one delay
// before a restart is not covered.
func ListedTrustedSince(now time.Time, delay time.Duration) time.Time {
	return now.Add(statusResolution - delay)
}

// ClaimRecord returns what the new leader stores as the block store
// before it allocates anything, at now; RecordClaimed says it was stored.
func (r *Rebuild) ClaimRecord(now time.Time) (RecordWrite, error) {
	want := &netipx.IPSet{}
	if r.record != nil {
		want = r.record.want
	}
	return encodeStore(r.alloc, r.cfg.RecycleDelay, newChunker(r.cfg.Ranges), want, now)
}

// RecordClaimed records that the API stored ClaimRecord's content.
func (r *Rebuild) RecordClaimed() {
	if r.record != nil {
		r.record.stored = r.record.want
	}
}

// RebuildSummary says what a finished rebuild found.
type RebuildSummary struct {
	NodesWithPodCIDRs int
	PodCIDRs          int
	// OutsideEveryRange counts the podCIDRs no range contains.
	OutsideEveryRange int
	Quarantined       int
	// QuarantinedFromRecord counts the blocks held back because the block
	// store has them issued and no node holds them, or freed in runs too
	// long to restore one by one, or, with RecordDistrusted, because no
	// node holds them.
	QuarantinedFromRecord int
	// RecordDistrusted is true when the rebuild did not read the record:
	// someone else rewrote it (Rebuild.DistrustRecord).
	RecordDistrusted bool
	// QuarantineIgnored counts the entries of status.quarantine that were
	// not restored as written: a cidr that is not a canonical prefix, or a
	// freedAt in the future (status edited by hand).
	QuarantineIgnored int
	Ranges            int
	// Conflicts are the overlapping podCIDRs of node pairs: another
	// allocator is or was at work.
	Conflicts []Conflict
	// Problems are the ranges NodeIPAM cannot use and the invalid
	// nodeSelectors.
	Problems []ConfigProblem
	// PodCIDRProblems are the nodes whose podCIDRs could not all be read,
	// or only in a legacy format.
	PodCIDRProblems []NodePodCIDRProblems
}

// finish checks the reserved podCIDRs for overlaps once every node was
// added, and summarizes the rebuild.
func (r *Rebuild) finish() RebuildSummary {
	r.conflicts = FindOverlaps(r.holdings)
	return RebuildSummary{
		NodesWithPodCIDRs:     len(r.nodes),
		PodCIDRs:              len(r.holdings),
		OutsideEveryRange:     len(r.alloc.Unmanaged()),
		Quarantined:           len(r.alloc.Quarantine()) + r.fromRecord,
		QuarantinedFromRecord: r.fromRecord,
		RecordDistrusted:      r.distrusted,
		QuarantineIgnored:     r.quarantineIgnored,
		Ranges:                len(r.cfg.Ranges),
		Conflicts:             r.conflicts,
		Problems:              ConfigProblems(&Config{}, &r.cfg),
		PodCIDRProblems:       r.podCIDRProblems,
	}
}

// isBlock reports whether p is one block of a tracked range.
func (c *Config) isBlock(p netip.Prefix) bool {
	r, ok := c.rangeOf(p.Addr())
	return ok && p.Bits() == r.NodeMaskSize
}

// rangeOf returns a tracked range that contains a.
func (c *Config) rangeOf(a netip.Addr) (allocator.RangeSpec, bool) {
	for _, r := range c.Ranges {
		if r.Prefix.Contains(a) {
			return r, true
		}
	}
	return allocator.RangeSpec{}, false
}
