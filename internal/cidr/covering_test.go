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
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
)

func TestCoveringPrefix(t *testing.T) {
	tests := []struct {
		name   string
		in     []string
		want   string
		wantOK bool
	}{
		{"empty", nil, "", false},
		{"single", []string{"10.0.0.0/16"}, "10.0.0.0/16", true},
		{"single with host bits", []string{"10.0.0.7/16"}, "10.0.0.0/16", true},
		{"identical", []string{"10.0.0.0/16", "10.0.0.0/16"}, "10.0.0.0/16", true},
		{"contained", []string{"10.0.0.0/8", "10.200.0.0/16"}, "10.0.0.0/8", true},
		{"contained reverse order", []string{"10.200.0.0/16", "10.0.0.0/8"}, "10.0.0.0/8", true},
		{"adjacent siblings", []string{"10.0.0.0/24", "10.0.1.0/24"}, "10.0.0.0/23", true},
		{"adjacent non-siblings", []string{"10.0.1.0/24", "10.0.2.0/24"}, "10.0.0.0/22", true},
		{"non-adjacent", []string{"10.0.0.0/24", "10.0.2.0/24"}, "10.0.0.0/22", true},
		{"far apart", []string{"10.0.0.0/16", "10.128.0.0/16"}, "10.0.0.0/8", true},
		{"different /8s", []string{"10.0.0.0/16", "172.16.0.0/16"}, "0.0.0.0/0", true},
		{"three ranges", []string{"100.64.0.0/16", "100.65.0.0/16", "100.70.0.0/16"}, "100.64.0.0/13", true},
		{"ipv6 adjacent", []string{"fd00::/48", "fd00:0:1::/48"}, "fd00::/47", true},
		{"ipv6 non-adjacent", []string{"fd00::/48", "fd00:0:8000::/48"}, "fd00::/32", true},
		{"ipv6 far", []string{"fd00::/16", "2001:db8::/32"}, "::/0", true},
		{"mixed families", []string{"10.0.0.0/8", "fd00::/8"}, "", false},
		{"ipv4-mapped is ipv6", []string{"10.0.0.0/8", "::ffff:10.0.0.0/104"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			var in []netip.Prefix
			for _, s := range tt.in {
				p, err := netip.ParsePrefix(s)
				g.Expect(err).NotTo(HaveOccurred())
				in = append(in, p)
			}
			got, ok := CoveringPrefix(in)
			g.Expect(ok).To(Equal(tt.wantOK))
			if !tt.wantOK {
				return
			}
			g.Expect(got.String()).To(Equal(tt.want))
			for _, p := range in {
				g.Expect(got.Contains(p.Addr()) && got.Bits() <= p.Bits()).To(BeTrue(), "%v must cover %v", got, p)
			}
			// Smallest: the next longer prefix at the same address misses one.
			if got.Bits() < got.Addr().BitLen() {
				longer := netip.PrefixFrom(got.Addr(), got.Bits()+1)
				covered := true
				for _, p := range in {
					if !(longer.Contains(p.Addr()) && longer.Bits() <= p.Bits()) {
						covered = false
					}
				}
				g.Expect(covered).To(BeFalse(), "%v is not minimal", got)
			}
		})
	}

	_, ok := CoveringPrefix([]netip.Prefix{mp("10.0.0.0/8"), {}})
	NewWithT(t).Expect(ok).To(BeFalse(), "invalid prefix")
}

func TestCoveringPerFamily(t *testing.T) {
	g := NewWithT(t)
	v4, v6, ok4, ok6 := CoveringPerFamily([]netip.Prefix{
		mp("10.0.0.0/16"), mp("fd00::/48"), mp("10.1.0.0/16"), mp("fd00:0:1::/48"), {},
	})
	g.Expect(ok4).To(BeTrue())
	g.Expect(ok6).To(BeTrue())
	g.Expect(v4).To(Equal(mp("10.0.0.0/15")))
	g.Expect(v6).To(Equal(mp("fd00::/47")))

	v4, v6, ok4, ok6 = CoveringPerFamily([]netip.Prefix{mp("fd00::/48")})
	g.Expect(ok4).To(BeFalse())
	g.Expect(v4).To(Equal(netip.Prefix{}))
	g.Expect(ok6).To(BeTrue())
	g.Expect(v6).To(Equal(mp("fd00::/48")))
}
