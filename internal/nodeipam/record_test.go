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
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"go4.org/netipx"

	"podnetwork.io/operator/internal/allocator"
)

func rspec(name, prefix string, nodeMask int) allocator.RangeSpec {
	return allocator.RangeSpec{Name: name, Prefix: mp(prefix), NodeMaskSize: nodeMask, Active: true}
}

func ipset(ps ...string) *netipx.IPSet {
	var b netipx.IPSetBuilder
	for _, p := range ps {
		b.AddPrefix(mp(p))
	}
	s, _ := b.IPSet()
	return s
}

func setStrings(s *netipx.IPSet) []string { return prefixStrings(s.Prefixes()) }

func TestChunks(t *testing.T) {
	tests := []struct {
		name   string
		ranges []allocator.RangeSpec
		p      string
		want   []string
	}{
		{
			name:   "2^16 blocks in one range: chunks of 64 blocks",
			ranges: []allocator.RangeSpec{rspec("r", "10.0.0.0/8", 24)},
			p:      "10.1.77.0/24",
			want:   []string{"10.1.64.0/18"},
		},
		{
			name:   "2^24 blocks in one range: 2^15 chunks of 512 blocks",
			ranges: []allocator.RangeSpec{rspec("r", "fd99::/40", 64)},
			p:      "fd99:0:12:3456::/64",
			want:   []string{"fd99:0:12:3400::/55"},
		},
		{
			name: "2^24 blocks in each of 128 ranges: 2^8 chunks each",
			ranges: func() []allocator.RangeSpec {
				var rs []allocator.RangeSpec
				for i := range 128 {
					rs = append(rs, rspec(fmt.Sprint(i), fmt.Sprintf("fd99:%x::/40", i<<8), 64))
				}
				return rs
			}(),
			p:    "fd99:100:12:3456::/64",
			want: []string{"fd99:100:12::/48"},
		},
		{
			name:   "a range smaller than a chunk is one chunk",
			ranges: []allocator.RangeSpec{rspec("r", "10.0.0.0/24", 26)},
			p:      "10.0.0.64/26",
			want:   []string{"10.0.0.0/24"},
		},
		{
			name:   "a nested range uses the chunks of its supernet",
			ranges: []allocator.RangeSpec{rspec("sub", "10.0.0.0/16", 24), rspec("super", "10.0.0.0/8", 24)},
			p:      "10.0.1.0/24",
			want:   []string{"10.0.0.0/18"},
		},
		{
			name:   "a podCIDR wider than a chunk is its own chunks",
			ranges: []allocator.RangeSpec{rspec("r", "10.0.0.0/8", 24)},
			p:      "10.2.0.0/16",
			want:   []string{"10.2.0.0/16"},
		},
		{
			name:   "a podCIDR wider than the ranges is clipped to each",
			ranges: []allocator.RangeSpec{rspec("a", "10.0.0.0/24", 26), rspec("b", "10.0.1.0/24", 26)},
			p:      "10.0.0.0/16",
			want:   []string{"10.0.0.0/24", "10.0.1.0/24"},
		},
		{
			name:   "a podCIDR outside every range has none",
			ranges: []allocator.RangeSpec{rspec("r", "10.0.0.0/8", 24)},
			p:      "192.0.2.0/24",
			want:   []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := newChunker(tt.ranges).chunks(mp(tt.p))
			g.Expect(prefixStrings(got)).To(Equal(tt.want))
		})
	}
}

// TestRecordWorstCaseSize builds the most fragmented record the chunking
// allows, every other chunk of every range, for one range of 2^24 blocks
// and for 128 (the most the PodNetwork status tracks) with long IPv6 text,
// and checks its stored size against what a ConfigMap may hold (1 MiB),
// below etcd's 1.5 MiB request limit. It also checks the analytic bound of
// record.go for the widest text a prefix can have.
func TestRecordWorstCaseSize(t *testing.T) {
	const configMapLimit = 1 << 20
	for _, n := range []int{1, 2, 3, 64, 128} {
		t.Run(fmt.Sprintf("%d ranges of 2^24 blocks", n), func(t *testing.T) {
			g := NewWithT(t)
			var ranges []allocator.RangeSpec
			for i := range n {
				// fd99:abcd:ef01:2345:6789:ab<i>:0:0/104 split into /128s:
				// 2^24 blocks, and long text for every chunk.
				ranges = append(ranges, rspec(fmt.Sprint(i), fmt.Sprintf("fd99:abcd:ef01:2345:6789:ab%02x::/104", i), 128))
			}
			c := newChunker(ranges)
			var b netipx.IPSetBuilder
			chunks := 0
			for _, r := range c.outer {
				// Every other chunk, walking chunk by chunk from the first.
				for ch, odd := netip.PrefixFrom(r.prefix.Addr(), r.chunkLen), false; r.prefix.Contains(ch.Addr()); odd = !odd {
					if !odd {
						b.AddPrefix(ch)
						chunks++
					}
					ch = netip.PrefixFrom(netipx.PrefixLastIP(ch).Next(), r.chunkLen)
				}
			}
			set, err := b.IPSet()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(set.Prefixes()).To(HaveLen(chunks), "alternating chunks do not merge")
			size := 0
			for k, v := range EncodeRecord(set) {
				size += len(k) + len(v)
			}
			t.Logf("%d prefixes, %d bytes", chunks, size)
			g.Expect(chunks).To(BeNumerically("<=", 1<<(recordBudgetBits-1)+n))
			g.Expect(size).To(BeNumerically("<", configMapLimit))
		})
	}
	g := NewWithT(t)
	widest := len("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128\n")
	bound := (1<<(recordBudgetBits-1) + 128) * widest
	g.Expect(bound).To(BeNumerically("<", configMapLimit), "every outermost range is a prefix: at most 2^14 chunk prefixes and one per range")
}

func TestTrimRecord(t *testing.T) {
	ranges := []allocator.RangeSpec{rspec("r", "10.0.0.0/8", 24)} // chunks of 64 /24s: /18
	delay := time.Minute
	tests := []struct {
		name      string
		record    *netipx.IPSet
		busy      []string
		next      []string
		since     map[netip.Prefix]time.Time
		want      []string
		wantSince map[netip.Prefix]time.Time
		wantNext  time.Duration
	}{
		{
			name:   "held and in-flight blocks stay, exactly; every other block goes",
			record: ipset("10.0.0.0/16"),
			busy:   []string{"10.0.0.5/32" /* narrower than a block */, "10.0.130.0/24"},
			want:   []string{"10.0.0.0/24", "10.0.130.0/24"},
		},
		{
			name:   "the chunk of the next never-used block stays when recorded, so the next allocation need not write",
			record: ipset("10.0.0.0/17"),
			busy:   []string{"10.0.0.0/24"},
			next:   []string{"10.0.64.0/24", "10.2.0.0/24"},
			want:   []string{"10.0.0.0/24", "10.0.64.0/18"},
		},
		{
			name:   "held blocks do not grow to whole chunks: a free block of their chunk is free after a fail-over",
			record: ipset("10.0.0.0/18"),
			busy:   []string{"10.0.0.0/24"},
			want:   []string{"10.0.0.0/24"},
		},
		{
			name:      "recorded addresses outside every range wait one delay from when they are first seen",
			record:    ipset("10.0.0.0/18", "192.0.2.0/24"),
			busy:      []string{"10.0.1.0/24"},
			want:      []string{"10.0.1.0/24", "192.0.2.0/24"},
			wantSince: map[netip.Prefix]time.Time{mp("192.0.2.0/24"): t0},
			wantNext:  delay,
		},
		{
			name:      "... and go after it",
			record:    ipset("10.0.0.0/18", "192.0.2.0/24", "198.51.100.0/24"),
			busy:      []string{"10.0.1.0/24"},
			since:     map[netip.Prefix]time.Time{mp("192.0.2.0/24"): t0.Add(-delay), mp("198.51.100.0/24"): t0.Add(-time.Second)},
			want:      []string{"10.0.1.0/24", "198.51.100.0/24"},
			wantSince: map[netip.Prefix]time.Time{mp("198.51.100.0/24"): t0.Add(-time.Second)},
			wantNext:  delay - time.Second,
		},
		{
			name:   "holdings outside every range are not recorded",
			record: ipset("10.0.0.0/18"),
			busy:   []string{"192.0.2.0/24"},
			want:   []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got, since, next := TrimRecord(tt.record, ranges, mps(tt.busy...), mps(tt.next...), tt.since, t0, delay)
			g.Expect(setStrings(got)).To(Equal(tt.want))
			if tt.wantSince == nil {
				tt.wantSince = map[netip.Prefix]time.Time{}
			}
			g.Expect(since).To(Equal(tt.wantSince))
			g.Expect(next).To(Equal(tt.wantNext))
		})
	}
}

func TestRecordEncoding(t *testing.T) {
	g := NewWithT(t)
	set := ipset("10.0.0.0/18", "10.0.128.0/18", "fd99::/55")
	data := EncodeRecord(set)
	g.Expect(data).To(Equal(map[string]string{RecordKeyIPv4: "10.0.0.0/18\n10.0.128.0/18\n", RecordKeyIPv6: "fd99::/55\n"}))
	back, err := DecodeRecord(data)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(back.Equal(set)).To(BeTrue())
	g.Expect(EncodeRecord(&netipx.IPSet{})).To(BeEmpty())

	back, err = DecodeRecord(map[string]string{
		RecordKeyIPv4: "10.0.0.0/18\r\n\n  10.1.2.3/16 \nnonsense\nfd99::/64\n",
		RecordKeyIPv6: "10.9.0.0/16",
		"other":       "ignored",
	})
	g.Expect(errors.Is(err, ErrRecordCorrupt)).To(BeTrue(), "got %v", err)
	g.Expect(err.Error()).To(ContainSubstring(`"nonsense"`))
	g.Expect(setStrings(back)).To(Equal([]string{"10.0.0.0/18", "10.1.0.0/16"}), "what parses is kept, masked")
	g.Expect(strings.Count(err.Error(), ": \"")).To(Equal(3))
}
