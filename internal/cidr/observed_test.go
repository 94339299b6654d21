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

// TestParseObservedPrefix reads what kube-apiserver stores, including what
// it accepted before StrictIPCIDRValidation, the way Kubernetes reads it.
func TestParseObservedPrefix(t *testing.T) {
	tests := []struct {
		in     string
		want   string // "" when unreadable
		legacy string // substring of the legacy note; "" when none
	}{
		{in: "10.244.0.0/24", want: "10.244.0.0/24"},
		{in: "fd00:10:244::/64", want: "fd00:10:244::/64"},
		{in: "FD00::/64", want: "fd00::/64"}, // strict validation accepts it for nodes
		{in: "10.244.1.5/24", want: "10.244.1.0/24"},
		{in: "010.244.0.0/24", want: "10.244.0.0/24", legacy: "Kubernetes reads as 10.244.0.0/24"},
		{in: "10.0.0.0/08", want: "10.0.0.0/8", legacy: "leading zeros"},
		{in: "::ffff:10.0.0.0/120", want: "10.0.0.0/24", legacy: "IPv4-mapped"},
		{in: "::ffff:10.0.0.0/90"},
		// The sloppy parser keeps the mapped address as IPv4 with its
		// 128-bit mask (found by FuzzParseObservedPrefix).
		{in: "::ffff:10.0.00.0/120", want: "10.0.0.0/24", legacy: "leading zeros"},
		{in: "::ffff:0.0.00.0/97", want: "0.0.0.0/1", legacy: "leading zeros"},
		{in: "garbage"},
		{in: ""},
		{in: "10.244.2.0/24 "},
		{in: "10.244.3.0/33"},
		{in: "fe80::1%eth0/64"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			g := NewWithT(t)
			p, legacy, ok := ParseObservedPrefix(tt.in)
			if tt.want == "" {
				g.Expect(ok).To(BeFalse(), "read as %s", p)
				return
			}
			g.Expect(ok).To(BeTrue())
			g.Expect(p).To(Equal(netip.MustParsePrefix(tt.want)))
			if tt.legacy == "" {
				g.Expect(legacy).To(BeEmpty())
			} else {
				g.Expect(legacy).To(ContainSubstring(tt.legacy))
			}
		})
	}
}

func TestParseObservedAddr(t *testing.T) {
	tests := []struct {
		in     string
		want   string // "" when unreadable
		legacy string
	}{
		{in: "10.244.0.5", want: "10.244.0.5"},
		{in: "fd00::5", want: "fd00::5"},
		{in: "010.244.0.5", want: "10.244.0.5", legacy: "leading zeros"},
		{in: "::ffff:10.244.0.5", want: "10.244.0.5", legacy: "IPv4-mapped"},
		{in: "fe80::1%eth0", want: "fe80::1"},
		{in: "garbage"},
		{in: "10.244.0.5 "},
		{in: "node-1.example"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			g := NewWithT(t)
			a, legacy, ok := ParseObservedAddr(tt.in)
			if tt.want == "" {
				g.Expect(ok).To(BeFalse(), "read as %s", a)
				return
			}
			g.Expect(ok).To(BeTrue())
			g.Expect(a).To(Equal(netip.MustParseAddr(tt.want)))
			if tt.legacy == "" {
				g.Expect(legacy).To(BeEmpty())
			} else {
				g.Expect(legacy).To(ContainSubstring(tt.legacy))
			}
		})
	}
}

func TestObservePrefixes(t *testing.T) {
	g := NewWithT(t)
	got := ObservePrefixes([]string{"10.244.0.0/24", "garbage", "010.245.0.0/24"})
	g.Expect(got.Prefixes).To(Equal([]netip.Prefix{netip.MustParsePrefix("10.244.0.0/24"), netip.MustParsePrefix("10.245.0.0/24")}))
	g.Expect(got.Unreadable).To(Equal([]string{"garbage"}))
	g.Expect(got.Problems).To(HaveExactElements(`"garbage" is not a CIDR`, ContainSubstring(`"010.245.0.0/24" has leading zeros`)))
	g.Expect(ParseObserved([]string{"garbage", "fd00::/64"})).To(Equal([]netip.Prefix{netip.MustParsePrefix("fd00::/64")}))
}

// FuzzParseObservedPrefix reads any text as a value of an object the
// operator does not own: never a panic, a result that is a masked prefix
// of one family, and exactly ParseCanonical's result, without a legacy
// note, for a canonical value. The seed corpus is in testdata/fuzz.
func FuzzParseObservedPrefix(f *testing.F) {
	for _, s := range []string{"10.244.0.0/24", "010.244.0.0/24", "::ffff:10.0.0.0/120", "10.244.1.5/24", "FD00::/64", "garbage", "10.0.0.0/08"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, legacy, ok := ParseObservedPrefix(s)
		if !ok {
			if legacy != "" || p.IsValid() {
				t.Fatalf("unreadable %q read as %s with note %q", s, p, legacy)
			}
			return
		}
		if !p.IsValid() || p != p.Masked() || p.Addr().Is4In6() || p.Addr().Zone() != "" {
			t.Fatalf("%q read as %s", s, p)
		}
		if c, err := ParseCanonical(s); err == nil && (c != p || legacy != "") {
			t.Fatalf("canonical %q read as %s with note %q", s, p, legacy)
		}
	})
}
