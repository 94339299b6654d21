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

	"go4.org/netipx"

	"podnetwork.io/operator/internal/cidr"
)

// Range is the immutable geometry of one pool: a prefix split into
// 2^(NodeMaskSize-Prefix.Bits) blocks of /NodeMaskSize, numbered from 0 in
// address order. It converts between block indices and prefixes; the mutable
// occupancy lives in the Allocator, which owns consistency across ranges.
type Range struct {
	prefix   netip.Prefix
	nodeMask int
	is4      bool
	hostBits uint // address bits after the node mask: index << hostBits is the block offset
	n        int  // number of blocks, a power of two <= 2^24
	base     u128
}

// NewRange validates p and nodeMaskSize with cidr.ValidateRange and returns
// the range geometry.
func NewRange(p netip.Prefix, nodeMaskSize int) (Range, error) {
	if err := cidr.ValidateRange(p, nodeMaskSize); err != nil {
		return Range{}, fmt.Errorf("range %s with nodeMaskSize /%d: %w", p, nodeMaskSize, err)
	}
	return newGeometry(p, nodeMaskSize), nil
}

// newGeometry builds a Range without the special-purpose address checks, so
// the index arithmetic can be fuzzed over the whole address space. The caller
// guarantees p is masked and p.Bits() <= nodeMask <= p.Bits()+cidr.MaxBlockBits
// <= the address length.
func newGeometry(p netip.Prefix, nodeMask int) Range {
	return Range{
		prefix:   p,
		nodeMask: nodeMask,
		is4:      p.Addr().Is4(),
		hostBits: uint(p.Addr().BitLen() - nodeMask),
		n:        1 << (nodeMask - p.Bits()),
		base:     u128From(p.Addr()),
	}
}

// Prefix returns the range's CIDR.
func (r Range) Prefix() netip.Prefix { return r.prefix }

// NodeMaskSize returns the prefix length of each block.
func (r Range) NodeMaskSize() int { return r.nodeMask }

// Capacity returns the number of blocks.
func (r Range) Capacity() int { return r.n }

// Block returns block i, or the zero Prefix if i is out of range.
func (r Range) Block(i int) netip.Prefix {
	if i < 0 || i >= r.n {
		return netip.Prefix{}
	}
	return r.block(i)
}

// block is Block without the bounds check. Because base is aligned to the
// range and i < 2^(nodeMask-bits), the shifted index only touches bits that
// are zero in base, so OR is addition without carries.
func (r Range) block(i int) netip.Prefix {
	a := r.base.or(u128{lo: uint64(i)}.shl(r.hostBits)).addr(r.is4)
	return netip.PrefixFrom(a, r.nodeMask)
}

// Index returns the index of the block containing a, or false if a is not in
// the range.
func (r Range) Index(a netip.Addr) (int, bool) {
	if !r.prefix.Contains(a) {
		return 0, false
	}
	return r.index(a), true
}

// index is Index for an address known to be inside the range: the bits
// between the range prefix and the node mask.
func (r Range) index(a netip.Addr) int {
	return int(u128From(a).shr(r.hostBits).lo & uint64(r.n-1))
}

// Overlapping returns the inclusive index interval of the blocks that p
// overlaps, or false if p does not overlap the range. A p larger than the
// range covers every block; a p smaller than a block covers one.
func (r Range) Overlapping(p netip.Prefix) (first, last int, ok bool) {
	if !p.IsValid() || !r.prefix.Overlaps(p) {
		return 0, 0, false
	}
	p = p.Masked()
	if p.Bits() <= r.prefix.Bits() {
		return 0, r.n - 1, true
	}
	return r.index(p.Addr()), r.index(netipx.PrefixLastIP(p)), true
}

// overlappingRange returns the inclusive index interval of the blocks that
// the address range x overlaps, or false if it overlaps none.
func (r Range) overlappingRange(x netipx.IPRange) (first, last int, ok bool) {
	from, to := x.From(), x.To()
	if !x.IsValid() || from.Is4() != r.is4 {
		return 0, 0, false
	}
	lo, hi := r.prefix.Addr(), netipx.PrefixLastIP(r.prefix)
	if to.Less(lo) || hi.Less(from) {
		return 0, 0, false
	}
	if from.Less(lo) {
		from = lo
	}
	if hi.Less(to) {
		to = hi
	}
	return r.index(from), r.index(to), true
}

// String formats the range as "prefix/blocks".
func (r Range) String() string { return fmt.Sprintf("%s split into /%d", r.prefix, r.nodeMask) }
