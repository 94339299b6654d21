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
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
	"go4.org/netipx"

	"podnetwork.io/operator/internal/cidr"
)

func TestRangeGeometry(t *testing.T) {
	tests := []struct {
		prefix   string
		mask     int
		capacity int
		blocks   map[int]string
	}{
		{"10.0.0.0/8", 24, 65536, map[int]string{0: "10.0.0.0/24", 1: "10.0.1.0/24", 256: "10.1.0.0/24", 65535: "10.255.255.0/24"}},
		{"10.0.0.0/24", 24, 1, map[int]string{0: "10.0.0.0/24"}},
		{"192.168.0.0/16", 30, 16384, map[int]string{1: "192.168.0.4/30", 16383: "192.168.255.252/30"}},
		{"fd00::/40", 64, 1 << 24, map[int]string{0: "fd00::/64", 1: "fd00:0:0:1::/64", 1<<24 - 1: "fd00:0:ff:ffff::/64", 1 << 16: "fd00:0:1::/64"}},
		{"2001:db8::/120", 126, 64, map[int]string{63: "2001:db8::fc/126"}},
		{"2001:db8:1234:5600::/56", 80, 1 << 24, map[int]string{5: "2001:db8:1234:5600:5::/80", 1<<24 - 1: "2001:db8:1234:56ff:ffff::/80"}},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			g := NewWithT(t)
			r, err := NewRange(mp(tt.prefix), tt.mask)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(r.Capacity()).To(Equal(tt.capacity))
			g.Expect(r.Prefix()).To(Equal(mp(tt.prefix)))
			g.Expect(r.NodeMaskSize()).To(Equal(tt.mask))
			for i, want := range tt.blocks {
				g.Expect(r.Block(i)).To(Equal(mp(want)), "block %d", i)
				idx, ok := r.Index(mp(want).Addr())
				g.Expect(ok).To(BeTrue())
				g.Expect(idx).To(Equal(i))
			}
			g.Expect(r.Block(-1)).To(Equal(netip.Prefix{}))
			g.Expect(r.Block(tt.capacity)).To(Equal(netip.Prefix{}))
		})
	}
}

func TestRangeOverlapping(t *testing.T) {
	r, err := NewRange(mp("10.0.0.0/22"), 24)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		p           string
		first, last int
		ok          bool
	}{
		{"10.0.0.0/24", 0, 0, true},
		{"10.0.2.0/23", 2, 3, true},
		{"10.0.1.128/25", 1, 1, true},
		{"10.0.3.7/32", 3, 3, true},
		{"10.0.0.0/8", 0, 3, true},
		{"0.0.0.0/0", 0, 3, true},
		{"10.0.4.0/24", 0, 0, false},
		{"fd00::/8", 0, 0, false},
	}
	for _, tt := range tests {
		first, last, ok := r.Overlapping(mp(tt.p))
		if ok != tt.ok || (ok && (first != tt.first || last != tt.last)) {
			t.Errorf("Overlapping(%s) = %d,%d,%v want %d,%d,%v", tt.p, first, last, ok, tt.first, tt.last, tt.ok)
		}
	}
	// Host bits are ignored.
	if f, l, ok := r.Overlapping(netip.PrefixFrom(netip.MustParseAddr("10.0.1.9"), 23)); !ok || f != 0 || l != 1 {
		t.Errorf("unmasked prefix: %d,%d,%v", f, l, ok)
	}
	if _, _, ok := r.Overlapping(netip.Prefix{}); ok {
		t.Error("invalid prefix overlaps")
	}
}

func TestRangeOverlappingRange(t *testing.T) {
	r, err := NewRange(mp("10.0.0.0/22"), 24)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		x           string
		first, last int
		ok          bool
	}{
		{"10.0.0.0-10.0.3.255", 0, 3, true},
		{"9.0.0.0-10.0.1.5", 0, 1, true},
		{"10.0.2.128-11.0.0.0", 2, 3, true},
		{"10.0.1.255-10.0.2.0", 1, 2, true},
		{"10.0.3.255-10.0.3.255", 3, 3, true},
		{"0.0.0.0-255.255.255.255", 0, 3, true},
		{"10.0.4.0-10.0.5.0", 0, 0, false},
		{"9.0.0.0-9.255.255.255", 0, 0, false},
		{"fd00::-fd00::1", 0, 0, false},
		{"::ffff:10.0.0.0-::ffff:10.0.0.1", 0, 0, false}, // IPv4-mapped is IPv6
	}
	for _, tt := range tests {
		first, last, ok := r.overlappingRange(netipx.MustParseIPRange(tt.x))
		if ok != tt.ok || (ok && (first != tt.first || last != tt.last)) {
			t.Errorf("overlappingRange(%s) = %d,%d,%v want %d,%d,%v", tt.x, first, last, ok, tt.first, tt.last, tt.ok)
		}
	}
	if _, _, ok := r.overlappingRange(netipx.IPRange{}); ok {
		t.Error("invalid range overlaps")
	}
}

func TestNewRangeValidates(t *testing.T) {
	_, err := NewRange(mp("169.254.0.0/16"), 24)
	if !errors.Is(err, cidr.ErrReservedRange) {
		t.Fatalf("got %v", err)
	}
	_, err = NewRange(mp("10.0.0.0/16"), 8)
	if !errors.Is(err, cidr.ErrInvalidRange) {
		t.Fatalf("got %v", err)
	}
}

// FuzzBlockMath checks the hand-written index arithmetic against netip and
// netipx over the whole address space (no special-purpose range checks).
func FuzzBlockMath(f *testing.F) {
	f.Fuzz(func(t *testing.T, v6 bool, hi, lo uint64, bits, delta uint8, idx uint32, sub uint8) {
		var a netip.Addr
		if v6 {
			var b [16]byte
			binary.BigEndian.PutUint64(b[:8], hi)
			binary.BigEndian.PutUint64(b[8:], lo)
			a = netip.AddrFrom16(b)
		} else {
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], uint32(lo))
			a = netip.AddrFrom4(b)
		}
		nbits := int(bits) % (a.BitLen() + 1)
		mask := min(nbits+int(delta)%(cidr.MaxBlockBits+1), a.BitLen())
		p := netip.PrefixFrom(a, nbits).Masked()
		r := newGeometry(p, mask)
		if r.n != 1<<(mask-nbits) {
			t.Fatalf("%v /%d: n=%d", p, mask, r.n)
		}
		i := int(idx) % r.n
		blk := r.Block(i)
		if blk.Bits() != mask || blk != blk.Masked() || !p.Contains(blk.Addr()) || !p.Contains(netipx.PrefixLastIP(blk)) {
			t.Fatalf("%v /%d: block %d = %v is not a /%d block inside the range", p, mask, i, blk, mask)
		}
		if got, ok := r.Index(blk.Addr()); !ok || got != i {
			t.Fatalf("%v /%d: Index(first of block %d) = %d,%v", p, mask, i, got, ok)
		}
		if got, ok := r.Index(netipx.PrefixLastIP(blk)); !ok || got != i {
			t.Fatalf("%v /%d: Index(last of block %d) = %d,%v", p, mask, i, got, ok)
		}
		if i+1 < r.n {
			if next := r.Block(i + 1); next.Addr() != netipx.PrefixLastIP(blk).Next() {
				t.Fatalf("%v /%d: block %d %v not adjacent to block %d %v", p, mask, i+1, next, i, blk)
			}
		}
		if r.Block(0).Addr() != p.Addr() || netipx.PrefixLastIP(r.Block(r.n-1)) != netipx.PrefixLastIP(p) {
			t.Fatalf("%v /%d: first/last block do not span the range", p, mask)
		}
		// A sub-prefix starting in block i covers blocks i..last.
		sp := netip.PrefixFrom(blk.Addr(), nbits+int(sub)%(a.BitLen()-nbits+1)).Masked()
		first, last, ok := r.Overlapping(sp)
		if !ok || first > last || first < 0 || last >= r.n {
			t.Fatalf("%v /%d: Overlapping(%v) = %d,%d,%v", p, mask, sp, first, last, ok)
		}
		if !sp.Overlaps(r.Block(first)) || !sp.Overlaps(r.Block(last)) {
			t.Fatalf("%v /%d: Overlapping(%v) = %d,%d: end blocks do not overlap", p, mask, sp, first, last)
		}
		if first > 0 && sp.Overlaps(r.Block(first-1)) || last+1 < r.n && sp.Overlaps(r.Block(last+1)) {
			t.Fatalf("%v /%d: Overlapping(%v) = %d,%d misses a block", p, mask, sp, first, last)
		}
	})
}
