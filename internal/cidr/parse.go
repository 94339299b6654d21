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
	"fmt"
	"net/netip"
	"strings"
)

// ErrNotCanonical is wrapped by every ParseCanonical error.
var ErrNotCanonical = errors.New("not a canonical CIDR")

// ParseCanonical parses s as an IPv4 or IPv6 prefix and accepts it only in
// canonical form: no host bits, the exact text net/netip prints (lowercase,
// compressed IPv6, no leading zeros), no IPv6 zone, no IPv4-mapped IPv6.
//
// Why so strict: range CIDRs are compared as strings by humans, by GitOps
// diffs and by consumers such as kube-proxy flags. Accepting "10.0.0.1/8" or
// "FD00:0::/48" would let two spellings of one range coexist, and a prefix
// with host bits usually means the user typed the wrong length. Every error
// names what is wrong and, when there is one, the canonical spelling to use.
func ParseCanonical(s string) (netip.Prefix, error) {
	if s == "" {
		return netip.Prefix{}, fmt.Errorf("%w: empty string; expected a prefix such as 10.0.0.0/16 or fd00::/48", ErrNotCanonical)
	}
	if t := strings.TrimSpace(s); t != s {
		return netip.Prefix{}, fmt.Errorf("%w: %q has leading or trailing whitespace; write %q", ErrNotCanonical, s, t)
	}
	if i := strings.IndexByte(s, '%'); i >= 0 {
		return netip.Prefix{}, fmt.Errorf("%w: %q has an IPv6 zone (%q); zones are not allowed in a prefix", ErrNotCanonical, s, s[i:])
	}
	if !strings.Contains(s, "/") {
		if a, err := netip.ParseAddr(s); err == nil {
			return netip.Prefix{}, fmt.Errorf("%w: %q is an address, not a prefix; add a prefix length, for example %s",
				ErrNotCanonical, s, netip.PrefixFrom(a, a.BitLen()))
		}
		return netip.Prefix{}, fmt.Errorf("%w: %q has no prefix length; expected a prefix such as 10.0.0.0/16 or fd00::/48", ErrNotCanonical, s)
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%w: %w", ErrNotCanonical, err)
	}
	if p.Addr().Is4In6() {
		if p.Bits() >= 96 {
			v4 := netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96).Masked()
			return netip.Prefix{}, fmt.Errorf("%w: %q is an IPv4-mapped IPv6 prefix; write it as the IPv4 prefix %s", ErrNotCanonical, s, v4)
		}
		return netip.Prefix{}, fmt.Errorf("%w: %q starts with an IPv4-mapped IPv6 address (::ffff:0:0/96); use a plain IPv4 or IPv6 prefix", ErrNotCanonical, s)
	}
	if m := p.Masked(); m != p {
		return netip.Prefix{}, fmt.Errorf("%w: %q has host bits set after /%d; the network is %s", ErrNotCanonical, s, p.Bits(), m)
	}
	if c := p.String(); c != s {
		return netip.Prefix{}, fmt.Errorf("%w: %q is not written canonically; write it as %s", ErrNotCanonical, s, c)
	}
	return p, nil
}
