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

import "math/bits"

// bitmap is a fixed-size set of block indices with a summary level for fast
// lowest-zero search: words holds one bit per block (1 = taken) and bit j of
// nonFull is set while words[j] still has a zero bit. Finding the lowest free
// block reads at most len(nonFull) = n/4096 summary words plus one data word,
// i.e. 4096 words for the largest (2^24-block) range, and only the summary
// words from the lowest one that may be non-zero (low), so repeated searches
// in a range full from the bottom up cost a few reads. Padding bits past n in
// the last word are permanently set so they are never returned.
//
// Memory is n/8 bytes plus n/512 bytes: 2 MiB + 32 KiB for 2^24 blocks.
type bitmap struct {
	n       int
	ones    int // set bits among the first n
	words   []uint64
	nonFull []uint64
	// low is a summary word below which every summary word is zero, so a
	// search in a range filled from the bottom (as a v6 /40 at 90% held by a
	// few aggregate prefixes) does not read thousands of zero words per call.
	low int
}

func newBitmap(n int) *bitmap {
	nw := (n + 63) / 64
	b := &bitmap{n: n, words: make([]uint64, nw), nonFull: make([]uint64, (nw+63)/64)}
	if r := n % 64; r != 0 {
		b.words[nw-1] = ^uint64(0) << r
	}
	for j := range b.nonFull {
		b.nonFull[j] = ^uint64(0)
	}
	if r := nw % 64; r != 0 {
		b.nonFull[len(b.nonFull)-1] = ^uint64(0) >> (64 - r)
	}
	return b
}

func (b *bitmap) get(i int) bool { return b.words[i>>6]&(1<<(uint(i)&63)) != 0 }

// set sets bit i and reports whether it changed.
func (b *bitmap) set(i int) bool {
	w, m := i>>6, uint64(1)<<(uint(i)&63)
	if b.words[w]&m != 0 {
		return false
	}
	b.words[w] |= m
	b.ones++
	if b.words[w] == ^uint64(0) {
		b.nonFull[w>>6] &^= 1 << (uint(w) & 63)
	}
	return true
}

// clear clears bit i and reports whether it changed.
func (b *bitmap) clear(i int) bool {
	w, m := i>>6, uint64(1)<<(uint(i)&63)
	if b.words[w]&m == 0 {
		return false
	}
	b.words[w] &^= m
	b.ones--
	b.nonFull[w>>6] |= 1 << (uint(w) & 63)
	b.low = min(b.low, w>>6)
	return true
}

// firstZero returns the lowest clear bit.
func (b *bitmap) firstZero() (int, bool) {
	for j := b.low; j < len(b.nonFull); j++ {
		if s := b.nonFull[j]; s != 0 {
			b.low = j
			w := j<<6 + bits.TrailingZeros64(s)
			return w<<6 + bits.TrailingZeros64(^b.words[w]), true
		}
	}
	b.low = len(b.nonFull)
	return 0, false
}

// wordMask returns the bits of word w that lie in the inclusive interval
// [lo, hi].
func wordMask(w, lo, hi int) uint64 {
	m := ^uint64(0)
	if w == lo>>6 {
		m &= ^uint64(0) << (uint(lo) & 63)
	}
	if w == hi>>6 {
		m &= ^uint64(0) >> (63 - uint(hi)&63)
	}
	return m
}

// setRange sets bits lo..hi (inclusive) a word at a time and calls already
// for each bit that was set before, in increasing order.
func (b *bitmap) setRange(lo, hi int, already func(i int)) {
	for w := lo >> 6; w <= hi>>6; w++ {
		m := wordMask(w, lo, hi)
		old := b.words[w]
		for x := old & m; x != 0; x &= x - 1 {
			already(w<<6 + bits.TrailingZeros64(x))
		}
		b.words[w] = old | m
		b.ones += bits.OnesCount64(m &^ old)
		if b.words[w] == ^uint64(0) {
			b.nonFull[w>>6] &^= 1 << (uint(w) & 63)
		}
	}
}

// clearRange clears the bits of lo..hi (inclusive) for which keep returns
// false, a word at a time, and calls cleared for each bit it clears, in
// increasing order. keep is only asked about bits that are set; a nil keep
// clears them all.
func (b *bitmap) clearRange(lo, hi int, keep func(i int) bool, cleared func(i int)) {
	for w := lo >> 6; w <= hi>>6; w++ {
		x := b.words[w] & wordMask(w, lo, hi)
		if x == 0 {
			continue
		}
		if keep != nil {
			for y := x; y != 0; y &= y - 1 {
				if i := w<<6 + bits.TrailingZeros64(y); keep(i) {
					x &^= 1 << (uint(i) & 63)
				}
			}
		}
		b.words[w] &^= x
		b.ones -= bits.OnesCount64(x)
		if x != 0 {
			b.nonFull[w>>6] |= 1 << (uint(w) & 63)
			b.low = min(b.low, w>>6)
		}
		for ; x != 0; x &= x - 1 {
			cleared(w<<6 + bits.TrailingZeros64(x))
		}
	}
}

// setSpan sets bits lo..hi (inclusive) a word at a time. Unlike setRange it
// reports nothing per bit, so marking millions of blocks held back costs one
// write per word.
func (b *bitmap) setSpan(lo, hi int) {
	for w := lo >> 6; w <= hi>>6; w++ {
		m := wordMask(w, lo, hi)
		old := b.words[w]
		b.ones += bits.OnesCount64(m &^ old)
		b.words[w] = old | m
		if b.words[w] == ^uint64(0) {
			b.nonFull[w>>6] &^= 1 << (uint(w) & 63)
		}
	}
}

// clearSpan clears bits lo..hi (inclusive) a word at a time.
func (b *bitmap) clearSpan(lo, hi int) {
	for w := lo >> 6; w <= hi>>6; w++ {
		x := b.words[w] & wordMask(w, lo, hi)
		if x == 0 {
			continue
		}
		b.words[w] &^= x
		b.ones -= bits.OnesCount64(x)
		b.nonFull[w>>6] |= 1 << (uint(w) & 63)
		b.low = min(b.low, w>>6)
	}
}
