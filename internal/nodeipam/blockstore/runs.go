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

package blockstore

import (
	"cmp"
	"container/heap"
	"net/netip"
	"slices"

	"go4.org/netipx"

	"podnetwork.io/operator/internal/allocator"
)

// run is an inclusive interval of block indices of one section, issued, or
// freed since at (Unix seconds).
type run struct {
	lo, hi int
	freed  bool
	at     int64
}

// section is a Section with its geometry and runs, sorted and disjoint.
type section struct {
	Section
	rng  allocator.Range
	runs []run
}

// blocksOf returns the inclusive block interval r covers in s: outward
// (every block r touches) or inward (only the blocks r covers whole).
func blocksOf(s *section, r netipx.IPRange, outward bool) (lo, hi int, ok bool) {
	sr := netipx.RangeOfPrefix(s.Prefix)
	from, to := r.From(), r.To()
	if to.Less(sr.From()) || sr.To().Less(from) {
		return 0, 0, false
	}
	if from.Less(sr.From()) {
		from = sr.From()
	}
	if sr.To().Less(to) {
		to = sr.To()
	}
	lo, _ = s.rng.Index(from)
	hi, _ = s.rng.Index(to)
	if !outward {
		if s.rng.Block(lo).Addr() != from {
			lo++
		}
		if netipx.PrefixLastIP(s.rng.Block(hi)) != to {
			hi--
		}
	}
	return lo, hi, lo <= hi
}

// sectionOf finds the one section that holds all of r.
func sectionOf(secs []section, r netipx.IPRange) (int, bool) {
	i, found := slices.BinarySearchFunc(secs, r.From(), func(s section, a netip.Addr) int {
		if s.Prefix.Contains(a) {
			return 0
		}
		return s.Prefix.Addr().Compare(a)
	})
	return i, found && secs[i].Prefix.Contains(r.To())
}

// wholeBlocks finds the one section that holds r as whole blocks.
func wholeBlocks(secs []section, r netipx.IPRange) (int, int, int, bool) {
	i, ok := sectionOf(secs, r)
	if !ok {
		return 0, 0, 0, false
	}
	lo, hi, ok := blocksOf(&secs[i], r, false)
	if !ok || secs[i].rng.Block(lo).Addr() != r.From() || netipx.PrefixLastIP(secs[i].rng.Block(hi)) != r.To() {
		return 0, 0, 0, false
	}
	return i, lo, hi, true
}

// interval is a run before the sweep: overlapping intervals are allowed.
type interval struct {
	lo, hi int
	freed  bool
	at     int64
}

// buildSections splits c over sections: the runs of each, and what must be
// kept outside them (issued addresses in no section, freed ones in no
// section or not whole blocks) as orphan prefixes.
func buildSections(c Content, specs []Section, unixCeil func(f Freed) int64) ([]section, []netip.Prefix, error) {
	secs := make([]section, 0, len(specs))
	var inside netipx.IPSetBuilder
	for _, sp := range specs {
		rng, err := allocator.NewRange(sp.Prefix, sp.NodeMaskSize)
		if err != nil {
			return nil, nil, err
		}
		secs = append(secs, section{Section: sp, rng: rng})
		inside.AddPrefix(sp.Prefix)
	}
	slices.SortFunc(secs, func(a, b section) int { return a.Prefix.Addr().Compare(b.Prefix.Addr()) })
	per := make([][]interval, len(secs))
	var orphans netipx.IPSetBuilder
	if c.Issued != nil {
		orphans.AddSet(c.Issued)
		for _, r := range c.Issued.Ranges() {
			if i, ok := sectionOf(secs, r); ok {
				lo, hi, _ := blocksOf(&secs[i], r, true)
				per[i] = append(per[i], interval{lo: lo, hi: hi})
				continue
			}
			for i := range secs {
				if lo, hi, ok := blocksOf(&secs[i], r, true); ok {
					per[i] = append(per[i], interval{lo: lo, hi: hi})
				}
			}
		}
	}
	for _, f := range c.Freed {
		if !f.Range.IsValid() {
			continue
		}
		at := unixCeil(f)
		if i, lo, hi, ok := wholeBlocks(secs, f.Range); ok {
			per[i] = append(per[i], interval{lo: lo, hi: hi, freed: true, at: at})
			continue
		}
		// Rare: a freed range over several sections, outside them, or not
		// whole blocks. What no section holds as whole blocks is kept, as
		// issued.
		var covered netipx.IPSetBuilder
		for i := range secs {
			if lo, hi, ok := blocksOf(&secs[i], f.Range, false); ok {
				per[i] = append(per[i], interval{lo: lo, hi: hi, freed: true, at: at})
				covered.AddRange(netipx.IPRangeFrom(secs[i].rng.Block(lo).Addr(), netipx.PrefixLastIP(secs[i].rng.Block(hi))))
			}
		}
		var rest netipx.IPSetBuilder
		rest.AddRange(f.Range)
		cs, _ := covered.IPSet()
		rest.RemoveSet(cs)
		rs, _ := rest.IPSet()
		orphans.AddSet(rs)
		for _, r := range rs.Ranges() {
			for i := range secs {
				if lo, hi, ok := blocksOf(&secs[i], r, true); ok {
					per[i] = append(per[i], interval{lo: lo, hi: hi})
				}
			}
		}
	}
	in, _ := inside.IPSet()
	orphans.RemoveSet(in)
	os, _ := orphans.IPSet()
	for i := range secs {
		secs[i].runs = sweep(per[i])
	}
	return secs, os.Prefixes(), nil
}

// sweep turns overlapping intervals into sorted, disjoint, merged runs:
// where they overlap, issued wins over freed, and the latest time over an
// earlier one, the reading that quarantines the most.
func sweep(ivs []interval) []run {
	if len(ivs) == 0 {
		return nil
	}
	slices.SortFunc(ivs, func(a, b interval) int { return cmp.Compare(a.lo, b.lo) })
	var out []run
	emit := func(r run) {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.hi+1 == r.lo && last.freed == r.freed && last.at == r.at {
				last.hi = r.hi
				return
			}
		}
		out = append(out, r)
	}
	// active holds the intervals covering the sweep position, by priority.
	active := &activeHeap{}
	next := 0
	pos := ivs[0].lo
	for next < len(ivs) || active.Len() > 0 {
		if active.Len() == 0 && next < len(ivs) && ivs[next].lo > pos {
			pos = ivs[next].lo
		}
		for next < len(ivs) && ivs[next].lo <= pos {
			heap.Push(active, ivs[next])
			next++
		}
		for active.Len() > 0 && (*active)[0].hi < pos {
			heap.Pop(active)
		}
		if active.Len() == 0 {
			continue
		}
		top := (*active)[0]
		// The segment ends where the top interval ends or the next one
		// starts, whichever is first.
		end := top.hi
		if next < len(ivs) && ivs[next].lo-1 < end {
			end = ivs[next].lo - 1
		}
		emit(run{lo: pos, hi: end, freed: top.freed, at: top.at})
		pos = end + 1
	}
	return out
}

// activeHeap orders intervals by priority: issued first, then the latest
// time; an interval that ended is dropped when it reaches the top, and one
// below the top that ended earlier cannot matter, as the top covers pos.
type activeHeap []interval

func (h activeHeap) Len() int { return len(h) }
func (h activeHeap) Less(i, j int) bool {
	if h[i].freed != h[j].freed {
		return !h[i].freed
	}
	return h[i].at > h[j].at
}
func (h activeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *activeHeap) Push(x any)   { *h = append(*h, x.(interval)) }
func (h *activeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
