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
	"errors"
	"fmt"
	"math/bits"
	"net/netip"
	"slices"
	"strings"
	"time"

	"go4.org/netipx"

	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/nodeipam/blockstore"
)

// This file decides the issued set of the block store (docs/nodeipam.md,
// "The block store"; its wire format is package blockstore): the addresses
// of every block a node may hold or may have freed since the store was
// last written. A block is in it before it is written to a node, so after
// a restart every issued block no node holds may have been freed moments
// ago, or while no leader ran: the rebuild holds it back from then
// (Rebuild.ApplyStore). A block outside it was either stored freed with
// its time, or free past its delay, and nobody handed it out since.
//
// The issued set is a set of addresses, not of blocks of named ranges: a
// range renamed, expanded into a supernet, or removed and added again with
// another cidr or nodeMaskSize still finds its blocks in it, and a block
// counts as issued as soon as it overlaps the set.
//
// To spare a write per node, it grows by whole aligned chunks of blocks,
// and the allocator hands out the lowest never-used block first, so chunks
// fill one after another. The first block handed out in a chunk also asks
// for the chunk after it (Allocation.RecordAhead), written while the
// allocations in its own chunk go on, so a burst rarely waits for a store
// write. Trimming (TrimRecord) keeps exactly the held blocks and those two
// chunks per range. Every outermost tracked range is split into at most
// 2^recordBudgetBits / (number of such ranges) chunks. The text format
// below (EncodeRecord, DecodeRecord) is the issued-block record of older
// releases, read once when there is no block store.

// Record keys: the text of the record is stored per IP family.
const (
	RecordKeyIPv4 = "ipv4"
	RecordKeyIPv6 = "ipv6"
)

const (
	// minChunkBits is log2 of the smallest chunk: 64 blocks, one word of
	// the allocator's bitmap.
	minChunkBits = 6
	// recordBudgetBits is log2 of the most chunks all outermost tracked
	// ranges are split into together.
	recordBudgetBits = 15
)

// chunker maps blocks to the chunks the record grows by. Chunks follow the
// outermost tracked ranges (a range nested in a supernet shares its blocks
// and its chunks).
type chunker struct {
	outer  []chunkedRange
	ranges *netipx.IPSet // every tracked range
}

type chunkedRange struct {
	prefix   netip.Prefix
	chunkLen int // prefix length of a chunk
	nodeMask int // prefix length of a block
}

// newChunker splits the outermost of ranges into chunks of at least 64
// blocks and at most 2^recordBudgetBits chunks in all; a range smaller than
// a chunk is one chunk.
func newChunker(ranges []allocator.RangeSpec) chunker {
	var all netipx.IPSetBuilder
	var outer []allocator.RangeSpec
	for _, r := range ranges {
		all.AddPrefix(r.Prefix)
		inside := slices.ContainsFunc(ranges, func(o allocator.RangeSpec) bool {
			return o.Prefix != r.Prefix && o.Prefix.Bits() < r.Prefix.Bits() && o.Prefix.Contains(r.Prefix.Addr())
		})
		dup := slices.ContainsFunc(outer, func(o allocator.RangeSpec) bool { return o.Prefix == r.Prefix })
		if !inside && !dup {
			outer = append(outer, r)
		}
	}
	set, _ := all.IPSet() // adding prefixes cannot fail
	c := chunker{ranges: set}
	if len(outer) == 0 {
		return c
	}
	perRange := recordBudgetBits - bits.Len(uint(len(outer)-1)) // ceil(log2(len(outer)))
	for _, r := range outer {
		blockBits := r.NodeMaskSize - r.Prefix.Bits()
		chunkBits := min(blockBits, max(minChunkBits, blockBits-perRange))
		c.outer = append(c.outer, chunkedRange{prefix: r.Prefix, chunkLen: r.NodeMaskSize - chunkBits, nodeMask: r.NodeMaskSize})
	}
	return c
}

// parts returns p clipped to each outermost range it overlaps: p itself
// inside a range, the range when p is wider. Nothing when p lies in no
// tracked range: such a podCIDR is foreign, and no block of it is ever
// handed out.
func (c chunker) parts(p netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	for _, r := range c.outer {
		switch {
		case !r.prefix.Overlaps(p):
		case p.Bits() <= r.prefix.Bits():
			out = append(out, r.prefix)
		default:
			out = append(out, p)
		}
	}
	return out
}

// chunks returns the chunks of p's parts: a part narrower than a chunk
// grows to its chunk, a wider one is already a union of chunks.
func (c chunker) chunks(p netip.Prefix) []netip.Prefix {
	return c.grown(p, func(r chunkedRange) int { return r.chunkLen })
}

// grown returns p's parts, each grown to at least the prefix length unit
// gives for its range (a part as wide as its range is the range).
func (c chunker) grown(p netip.Prefix, unit func(chunkedRange) int) []netip.Prefix {
	var out []netip.Prefix
	for _, r := range c.outer {
		switch {
		case !r.prefix.Overlaps(p):
		case p.Bits() <= r.prefix.Bits():
			out = append(out, r.prefix)
		default:
			out = append(out, netip.PrefixFrom(p.Addr(), min(p.Bits(), unit(r))).Masked())
		}
	}
	return out
}

// following returns the chunk after p's chunk in each outermost range p
// lies in (none at a range's end): the chunk the allocator, handing out the
// lowest never-used block first, fills after p's. The record takes it in
// ahead of need (State.Allocate), so the write that adds it overlaps the
// allocations still in p's chunk instead of stalling the first one past
// it.
func (c chunker) following(p netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	for _, r := range c.outer {
		if !r.prefix.Overlaps(p) || p.Bits() <= r.prefix.Bits() {
			continue
		}
		ch := netip.PrefixFrom(p.Addr(), min(p.Bits(), r.chunkLen)).Masked()
		if next := netipx.PrefixLastIP(ch).Next(); next.IsValid() && r.prefix.Contains(next) {
			out = append(out, netip.PrefixFrom(next, ch.Bits()))
		}
	}
	return out
}

// sections are the outermost ranges as the block store counts them.
func (c chunker) sections() []blockstore.Section {
	out := make([]blockstore.Section, len(c.outer))
	for i, r := range c.outer {
		out[i] = blockstore.Section{Prefix: r.prefix, NodeMaskSize: r.nodeMask}
	}
	return out
}

// blocks returns the blocks of p's parts: p itself when it is a block or
// wider (up to its range), the block containing it when narrower. A held
// podCIDR of another size is recorded whole, block by block.
func (c chunker) blocks(p netip.Prefix) []netip.Prefix {
	return c.grown(p, func(r chunkedRange) int { return r.nodeMask })
}

// contains reports whether set holds every part of every prefix in ps.
func (c chunker) contains(set *netipx.IPSet, ps []netip.Prefix) bool {
	for _, p := range ps {
		for _, part := range c.parts(p) {
			if !set.ContainsPrefix(part) {
				return false
			}
		}
	}
	return true
}

// cover returns set extended by the chunks of every part of ps that set
// does not contain yet.
func (c chunker) cover(set *netipx.IPSet, ps []netip.Prefix) *netipx.IPSet {
	var b netipx.IPSetBuilder
	grew := false
	for _, p := range ps {
		for _, part := range c.parts(p) {
			if set.ContainsPrefix(part) {
				continue
			}
			for _, ch := range c.chunks(part) {
				b.AddPrefix(ch)
				grew = true
			}
		}
	}
	if !grew {
		return set
	}
	b.AddSet(set)
	out, _ := b.IPSet()
	return out
}

// TrimRecord returns the issued set the store keeps: exactly the blocks of
// every holding (allocator.Allocator.Held: confirmed or in a node write in
// flight), the chunk of each range's next never-used block and the chunk
// after it if the set has them (the write-ahead window: the next
// allocations need not write them back), and the recorded addresses
// outside every tracked range until they have been so for one delay (a
// range removed and added again within that time still finds its blocks
// issued). Every other block leaves the issued set: a block freed since
// the last write is stored freed with its time by the same write (State's
// encodeLocked), which after a fail-over holds it back only for what is
// left of its delay. orphanSince is when each such address was first seen
// outside every range; the updated map is returned with when to trim
// again for it (zero: no orphans).
func TrimRecord(record *netipx.IPSet, ranges []allocator.RangeSpec, held, nextNeverUsed []netip.Prefix,
	orphanSince map[netip.Prefix]time.Time, now time.Time, delay time.Duration,
) (*netipx.IPSet, map[netip.Prefix]time.Time, time.Duration) {
	c := newChunker(ranges)
	var keep netipx.IPSetBuilder
	// The builder pays for every range added (a 100,000-node trim runs
	// every StatusInterval): held blocks are mostly contiguous, so they
	// are added as runs.
	var blocks []netip.Prefix
	for _, p := range held {
		blocks = append(blocks, c.blocks(p)...)
	}
	for _, r := range runsOf(blocks) {
		keep.AddRange(r)
	}
	added := map[netip.Prefix]struct{}{}
	for _, p := range nextNeverUsed {
		for _, q := range append([]netip.Prefix{p}, c.following(p)...) {
			if !record.ContainsPrefix(q) {
				continue
			}
			for _, ch := range c.chunks(q) {
				if _, ok := added[ch]; !ok {
					added[ch] = struct{}{}
					keep.AddPrefix(ch)
				}
			}
		}
	}
	var orphans netipx.IPSetBuilder
	orphans.AddSet(record)
	orphans.RemoveSet(c.ranges)
	orphanSet, _ := orphans.IPSet()
	since := map[netip.Prefix]time.Time{}
	var next time.Duration
	for _, p := range orphanSet.Prefixes() {
		at, ok := orphanSince[p]
		if !ok {
			at = now
		}
		if left := at.Add(delay).Sub(now); left > 0 {
			since[p] = at
			keep.AddPrefix(p)
			if next == 0 || left < next {
				next = left
			}
		}
	}
	out, _ := keep.IPSet()
	return out, since, next
}

// runsOf sorts blocks and returns them as maximal runs of adjacent
// addresses.
func runsOf(blocks []netip.Prefix) []netipx.IPRange {
	slices.SortFunc(blocks, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
	var out []netipx.IPRange
	for _, b := range blocks {
		r := netipx.RangeOfPrefix(b)
		if n := len(out); n > 0 {
			last := out[n-1]
			if !last.To().Less(r.From()) || last.To().Next() == r.From() {
				if last.To().Less(r.To()) {
					out[n-1] = netipx.IPRangeFrom(last.From(), r.To())
				}
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// EncodeRecord is the record's text per IP family: one prefix a line, in
// address order. A family with nothing recorded has no key.
func EncodeRecord(set *netipx.IPSet) map[string]string {
	var v4, v6 strings.Builder
	for _, p := range set.Prefixes() {
		b := &v6
		if p.Addr().Is4() {
			b = &v4
		}
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	out := map[string]string{}
	if v4.Len() > 0 {
		out[RecordKeyIPv4] = v4.String()
	}
	if v6.Len() > 0 {
		out[RecordKeyIPv6] = v6.String()
	}
	return out
}

// ErrRecordCorrupt is wrapped by DecodeRecord for a line that is not a
// prefix of the key's family.
var ErrRecordCorrupt = errors.New("the issued-block record has lines that are not prefixes of their family")

// DecodeRecord parses EncodeRecord's text. Every line that parses is in the
// returned set; the error lists the ones that do not (the caller must then
// assume the worst about the addresses they stood for). Other keys are
// ignored.
func DecodeRecord(data map[string]string) (*netipx.IPSet, error) {
	var b netipx.IPSetBuilder
	var bad []string
	for _, key := range []string{RecordKeyIPv4, RecordKeyIPv6} {
		for line := range strings.Lines(data[key]) {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			p, err := netip.ParsePrefix(line)
			if err != nil || p.Addr().Is4() != (key == RecordKeyIPv4) {
				bad = append(bad, fmt.Sprintf("%s: %q", key, line))
				continue
			}
			b.AddPrefix(p.Masked())
		}
	}
	set, _ := b.IPSet()
	if len(bad) > 0 {
		slices.SortFunc(bad, cmp.Compare)
		return set, fmt.Errorf("%w: %s", ErrRecordCorrupt, strings.Join(bad[:min(len(bad), 5)], ", "))
	}
	return set, nil
}
