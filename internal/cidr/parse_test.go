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

func TestParseCanonical(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		errText string // substring of the error; "" means success
	}{
		{in: "10.0.0.0/8", want: "10.0.0.0/8"},
		{in: "0.0.0.0/0", want: "0.0.0.0/0"},
		{in: "192.168.1.4/30", want: "192.168.1.4/30"},
		{in: "10.1.2.3/32", want: "10.1.2.3/32"},
		{in: "fd00::/48", want: "fd00::/48"},
		{in: "2001:db8:0:1::/64", want: "2001:db8:0:1::/64"},
		{in: "::/0", want: "::/0"},
		{in: "", errText: "empty string"},
		{in: " 10.0.0.0/8", errText: `write "10.0.0.0/8"`},
		{in: "10.0.0.0/8\n", errText: "whitespace"},
		{in: "10.0.0.1/8", errText: "the network is 10.0.0.0/8"},
		{in: "fd00::1/64", errText: "the network is fd00::/64"},
		{in: "FD00::/48", errText: "write it as fd00::/48"},
		{in: "fd00:0::/48", errText: "write it as fd00::/48"},
		{in: "fd00:0000:0000::/48", errText: "write it as fd00::/48"},
		{in: "2001:db8::0:1:0:0:0/64", errText: "host bits"},
		{in: "2001:db8:0:0:1::/80", want: "2001:db8:0:0:1::/80"},
		{in: "2001:db8:0:0:1:0:0:0/80", errText: "write it as 2001:db8:0:0:1::/80"},
		{in: "fe80::%eth0/64", errText: "zone"},
		{in: "::ffff:10.0.0.0/104", errText: "write it as the IPv4 prefix 10.0.0.0/8"},
		{in: "::ffff:0:0/96", errText: "IPv4 prefix 0.0.0.0/0"},
		{in: "10.0.0.0", errText: "add a prefix length, for example 10.0.0.0/32"},
		{in: "fd00::", errText: "for example fd00::/128"},
		{in: "nonsense", errText: "no prefix length"},
		{in: "10.0.0.0/33", errText: "prefix length out of range"},
		{in: "10.0.0.0/08", errText: "bad bits"},
		{in: "010.0.0.0/8", errText: "leading zero"},
		{in: "10.0.0.0/-1", errText: "bad bits"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			g := NewWithT(t)
			got, err := ParseCanonical(tt.in)
			if tt.errText != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.errText)))
				g.Expect(errors.Is(err, ErrNotCanonical)).To(BeTrue(), "error must wrap ErrNotCanonical")
				g.Expect(got).To(Equal(netip.Prefix{}))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.String()).To(Equal(tt.want))
		})
	}
}

// FuzzParseCanonical checks that whatever ParseCanonical accepts is exactly
// the canonical text of a masked, zone-free, non-mapped prefix, and that
// rejections always wrap ErrNotCanonical.
func FuzzParseCanonical(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseCanonical(s)
		if err != nil {
			if !errors.Is(err, ErrNotCanonical) {
				t.Fatalf("ParseCanonical(%q) error %v does not wrap ErrNotCanonical", s, err)
			}
			if p.IsValid() {
				t.Fatalf("ParseCanonical(%q) returned %v with error", s, p)
			}
			return
		}
		if got := p.String(); got != s {
			t.Fatalf("ParseCanonical(%q) = %v, String() does not round-trip", s, got)
		}
		if p != p.Masked() {
			t.Fatalf("ParseCanonical(%q) = %v is not masked", s, p)
		}
		if p.Addr().Zone() != "" || p.Addr().Is4In6() {
			t.Fatalf("ParseCanonical(%q) = %v has a zone or is IPv4-mapped", s, p)
		}
		if Family(p) == "" {
			t.Fatalf("ParseCanonical(%q) = %v has no family", s, p)
		}
	})
}
