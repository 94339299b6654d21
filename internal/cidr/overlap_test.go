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

var mp = netip.MustParsePrefix

func TestOverlapsAndContains(t *testing.T) {
	tests := []struct {
		a, b       netip.Prefix
		overlaps   bool
		aContainsB bool
	}{
		{mp("10.0.0.0/8"), mp("10.1.0.0/16"), true, true},
		{mp("10.1.0.0/16"), mp("10.0.0.0/8"), true, false},
		{mp("10.0.0.0/8"), mp("10.0.0.0/8"), true, false},
		{mp("10.0.0.0/16"), mp("10.1.0.0/16"), false, false},
		{mp("10.0.0.0/16"), mp("fd00::/16"), false, false},
		{mp("::/0"), mp("10.0.0.0/8"), false, false},
		{mp("fd00::/32"), mp("fd00:0:1::/48"), true, true},
		{mp("fd00::/32"), mp("fd01::/32"), false, false},
		{netip.Prefix{}, mp("10.0.0.0/8"), false, false},
		{netip.PrefixFrom(netip.MustParseAddr("10.0.0.9"), 8), mp("10.2.0.0/16"), true, true},
	}
	for _, tt := range tests {
		g := NewWithT(t)
		g.Expect(Overlaps(tt.a, tt.b)).To(Equal(tt.overlaps), "Overlaps(%v, %v)", tt.a, tt.b)
		g.Expect(Overlaps(tt.b, tt.a)).To(Equal(tt.overlaps), "Overlaps(%v, %v)", tt.b, tt.a)
		g.Expect(StrictlyContains(tt.a, tt.b)).To(Equal(tt.aContainsB), "StrictlyContains(%v, %v)", tt.a, tt.b)
	}
}

func TestOverlapsAny(t *testing.T) {
	g := NewWithT(t)
	others := []netip.Prefix{mp("192.168.0.0/16"), mp("10.96.0.0/12"), mp("10.100.0.0/16"), mp("fd00::/8")}

	got, ok := OverlapsAny(mp("10.0.0.0/8"), others)
	g.Expect(ok).To(BeTrue())
	g.Expect(got).To(Equal(mp("10.96.0.0/12")), "first offending prefix in input order")

	_, ok = OverlapsAny(mp("172.16.0.0/12"), others)
	g.Expect(ok).To(BeFalse())

	got, ok = OverlapsAny(mp("fd12::/16"), others)
	g.Expect(ok).To(BeTrue())
	g.Expect(got).To(Equal(mp("fd00::/8")))

	_, ok = OverlapsAny(mp("10.0.0.0/8"), nil)
	g.Expect(ok).To(BeFalse())
}

func TestOverlapsAnyAddr(t *testing.T) {
	ma := netip.MustParseAddr
	tests := []struct {
		name   string
		p      netip.Prefix
		addrs  []netip.Addr
		want   netip.Addr
		wantOK bool
	}{
		{"none", mp("10.0.0.0/8"), []netip.Addr{ma("192.168.1.1"), ma("fd00::1")}, netip.Addr{}, false},
		{"first match", mp("10.0.0.0/8"), []netip.Addr{ma("192.168.1.1"), ma("10.2.3.4"), ma("10.9.9.9")}, ma("10.2.3.4"), true},
		{"mapped address counts as IPv4", mp("10.0.0.0/8"), []netip.Addr{ma("::ffff:10.1.1.1")}, ma("::ffff:10.1.1.1"), true},
		{"zone ignored", mp("fe80::/10"), []netip.Addr{ma("fe80::1%eth0")}, ma("fe80::1%eth0"), true},
		{"ipv6", mp("fd00:1::/32"), []netip.Addr{ma("fd00:1::5")}, ma("fd00:1::5"), true},
		{"invalid prefix", netip.Prefix{}, []netip.Addr{ma("10.0.0.1")}, netip.Addr{}, false},
		{"invalid addr", mp("0.0.0.0/0"), []netip.Addr{{}}, netip.Addr{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got, ok := OverlapsAnyAddr(tt.p, tt.addrs)
			g.Expect(ok).To(Equal(tt.wantOK))
			g.Expect(got).To(Equal(tt.want))
		})
	}
}
