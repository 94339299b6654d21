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

package cidr

import (
	"errors"
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
)

func TestValidateRange(t *testing.T) {
	tests := []struct {
		name    string
		prefix  netip.Prefix
		mask    int
		wantErr error
		errText string
	}{
		{"ipv4 default", netip.MustParsePrefix("10.0.0.0/8"), 24, nil, ""},
		{"ipv4 range equals block", netip.MustParsePrefix("10.0.0.0/24"), 24, nil, ""},
		{"ipv4 longest block", netip.MustParsePrefix("10.0.0.0/24"), 30, nil, ""},
		{"ipv4 /8 with /30", netip.MustParsePrefix("10.0.0.0/8"), 30, nil, ""},
		{"ipv4 exactly 2^24 blocks", netip.MustParsePrefix("8.0.0.0/6"), 30, nil, ""},
		{"ipv4 2^25 blocks", netip.MustParsePrefix("8.0.0.0/5"), 30, ErrInvalidRange, "2^25 blocks"},
		{"ipv4 mask shorter than prefix", netip.MustParsePrefix("10.0.0.0/16"), 15, ErrInvalidRange, "shorter than the prefix length"},
		{"ipv4 mask 31", netip.MustParsePrefix("10.0.0.0/16"), 31, ErrInvalidRange, "longest allowed is /30"},
		{"ipv4 mask beyond address", netip.MustParsePrefix("10.0.0.0/8"), 33, ErrInvalidRange, "longest allowed is /30"},
		{"host bits", netip.PrefixFrom(netip.MustParseAddr("10.0.0.1"), 8), 24, ErrInvalidRange, "host bits"},
		{"invalid", netip.Prefix{}, 24, ErrInvalidRange, "not a valid CIDR"},
		{"ipv6 default", netip.MustParsePrefix("fd00::/48"), 64, nil, ""},
		{"ipv6 /40 with /64 (2^24 blocks)", netip.MustParsePrefix("fd00::/40"), 64, nil, ""},
		{"ipv6 /39 with /64", netip.MustParsePrefix("fd00::/39"), 64, ErrInvalidRange, "2^25 blocks"},
		{"ipv6 mask 127", netip.MustParsePrefix("fd00::/120"), 127, ErrInvalidRange, "longest allowed is /126"},
		{"ipv6 mask 126", netip.MustParsePrefix("fd00::/120"), 126, nil, ""},
		{"this network", netip.MustParsePrefix("0.0.0.0/16"), 24, ErrReservedRange, "0.0.0.0/8"},
		{"supernet of this network", netip.MustParsePrefix("0.0.0.0/1"), 24, ErrReservedRange, "0.0.0.0/8"},
		{"loopback", netip.MustParsePrefix("127.1.0.0/16"), 24, ErrReservedRange, "127.0.0.0/8 (IPv4 loopback)"},
		{"link-local v4", netip.MustParsePrefix("169.254.0.0/16"), 24, ErrReservedRange, "169.254.0.0/16 (IPv4 link-local)"},
		{"multicast v4", netip.MustParsePrefix("239.0.0.0/8"), 24, ErrReservedRange, "224.0.0.0/4 (IPv4 multicast)"},
		{"class e", netip.MustParsePrefix("240.0.0.0/8"), 24, ErrReservedRange, "240.0.0.0/4"},
		{"broadcast", netip.MustParsePrefix("255.255.255.0/24"), 28, ErrReservedRange, "broadcast"},
		{"supernet of loopback", netip.MustParsePrefix("96.0.0.0/3"), 24, ErrReservedRange, "127.0.0.0/8"},
		{"ipv6 unspecified", netip.MustParsePrefix("::/104"), 120, ErrReservedRange, "::/128 (IPv6 unspecified address)"},
		{"ipv6 loopback", netip.MustParsePrefix("::1/128"), 128, ErrInvalidRange, "longest allowed"},
		{"ipv6 loopback net", netip.MustParsePrefix("::/120"), 124, ErrReservedRange, "::/128"},
		{"ipv4-mapped", netip.MustParsePrefix("::ffff:0:0/104"), 120, ErrReservedRange, "IPv4-mapped IPv6"},
		{"ipv6 link-local", netip.MustParsePrefix("fe80::/48"), 64, ErrReservedRange, "fe80::/10 (IPv6 link-local)"},
		{"ipv6 multicast", netip.MustParsePrefix("ff02::/48"), 64, ErrReservedRange, "ff00::/8 (IPv6 multicast)"},
		{"ipv6 global ok", netip.MustParsePrefix("2001:db8::/48"), 64, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := ValidateRange(tt.prefix, tt.mask)
			if tt.wantErr == nil {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(errors.Is(err, tt.wantErr)).To(BeTrue(), "got %v", err)
			g.Expect(err.Error()).To(ContainSubstring(tt.errText))
		})
	}
}

func TestReservedBlocksAreCanonical(t *testing.T) {
	for _, r := range reservedBlocks {
		if r.prefix != r.prefix.Masked() {
			t.Errorf("reserved block %v is not masked", r.prefix)
		}
	}
}

func TestFamilyAndDefaults(t *testing.T) {
	tests := []struct {
		prefix  netip.Prefix
		family  string
		defMask int
		maxMask int
	}{
		{netip.MustParsePrefix("10.0.0.0/8"), IPv4, 24, 30},
		{netip.MustParsePrefix("fd00::/48"), IPv6, 64, 126},
		{netip.MustParsePrefix("::ffff:10.0.0.0/104"), IPv6, 64, 126},
		{netip.Prefix{}, "", 0, 0},
	}
	for _, tt := range tests {
		g := NewWithT(t)
		g.Expect(Family(tt.prefix)).To(Equal(tt.family), "%v", tt.prefix)
		g.Expect(DefaultNodeMaskSize(tt.family)).To(Equal(tt.defMask))
		g.Expect(MaxNodeMaskSize(tt.family)).To(Equal(tt.maxMask))
	}
}

func TestBlockCount(t *testing.T) {
	tests := []struct {
		prefix string
		mask   int
		want   uint64
	}{
		{"10.0.0.0/8", 24, 65536},
		{"10.0.0.0/24", 24, 1},
		{"10.0.0.0/24", 23, 0},
		{"10.0.0.0/24", 33, 0},
		{"fd00::/40", 64, 1 << 24},
		{"fd00::/48", 64, 65536},
		{"::/0", 63, 1 << 63},
		{"::/0", 64, ^uint64(0)},
		{"::/0", 128, ^uint64(0)},
	}
	for _, tt := range tests {
		if got := BlockCount(netip.MustParsePrefix(tt.prefix), tt.mask); got != tt.want {
			t.Errorf("BlockCount(%s, %d) = %d, want %d", tt.prefix, tt.mask, got, tt.want)
		}
	}
	if got := BlockCount(netip.Prefix{}, 24); got != 0 {
		t.Errorf("BlockCount(invalid) = %d", got)
	}
}
