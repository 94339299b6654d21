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
	"fmt"
	"net/netip"

	"go4.org/netipx"
	netutils "k8s.io/utils/net"
)

// Values the operator reads from objects it does not own (node podCIDRs and
// addresses, ServiceCIDRs) are read the way Kubernetes itself reads them,
// because that is what the rest of the cluster acts on. kube-apiserver
// validates these fields, but until StrictIPCIDRValidation (beta and on by
// default since Kubernetes 1.36) it accepted values net/netip refuses, and
// the values stored then are still served: IPv4 octets with leading zeros
// (Kubernetes reads "010.244.0.0/24" as 10.244.0.0/24, while programs that
// follow inet_aton read 8.244.0.0/24), IPv4-mapped IPv6 ("::ffff:10.0.0.0/120",
// which Kubernetes treats as the IPv4 10.0.0.0/24) and host bits. Skipping
// such a value would let the operator treat a node's block as free space or
// miss an overlap; so each is read as Kubernetes reads it, and reported,
// since other programs may read it otherwise. Every controller reads these
// fields with the functions of this file.

// ParseObservedPrefix reads a prefix the way Kubernetes does, masked.
// legacy is empty for a value net/netip reads unambiguously, and otherwise
// says how the value was read and why another program might read it
// differently; ok is false when even Kubernetes' legacy parser cannot read
// s.
func ParseObservedPrefix(s string) (p netip.Prefix, legacy string, ok bool) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		_, n, sloppyErr := netutils.ParseCIDRSloppy(s)
		if sloppyErr != nil {
			return netip.Prefix{}, "", false
		}
		var okStd bool
		if p, okStd = netipx.FromStdIPNet(n); !okStd {
			return netip.Prefix{}, "", false
		}
		// The sloppy parser keeps an IPv4-mapped address as IPv4 but its
		// 128-bit mask, which FromStdIPNet turns into an IPv4 prefix longer
		// than 32 bits: read it as the mapped IPv6 prefix it was written as.
		if ones, bits := n.Mask.Size(); bits == 128 && p.Addr().Is4() {
			p = netip.PrefixFrom(netip.AddrFrom16(p.Addr().As16()), ones)
		}
		if !p.IsValid() {
			return netip.Prefix{}, "", false
		}
		legacy = fmt.Sprintf("%q has leading zeros, which Kubernetes reads as %s but programs that read them as octal do not", s, unmapPrefix(p).Masked())
	}
	if p.Addr().Is4In6() {
		if p.Bits() < 96 {
			return netip.Prefix{}, "", false
		}
		if legacy == "" {
			legacy = fmt.Sprintf("%q is an IPv4-mapped IPv6 prefix, which Kubernetes reads as the IPv4 %s", s, unmapPrefix(p).Masked())
		}
	}
	return unmapPrefix(p).Masked(), legacy, true
}

// unmapPrefix turns an IPv4-mapped IPv6 prefix of at least 96 bits into the
// IPv4 prefix it stands for, and returns any other prefix as it is.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	if p.Addr().Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p
}

// ParseObservedAddr reads an address the way Kubernetes does, without its
// IPv6 zone and unmapped, with the same legacy and ok as ParseObservedPrefix.
func ParseObservedAddr(s string) (a netip.Addr, legacy string, ok bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		ip := netutils.ParseIPSloppy(s)
		if ip == nil {
			return netip.Addr{}, "", false
		}
		if a, ok = netipx.FromStdIP(ip); !ok {
			return netip.Addr{}, "", false
		}
		legacy = fmt.Sprintf("%q has leading zeros, which Kubernetes reads as %s but programs that read them as octal do not", s, a.Unmap())
	}
	if a.Is4In6() && legacy == "" {
		legacy = fmt.Sprintf("%q is an IPv4-mapped IPv6 address, which Kubernetes reads as the IPv4 %s", s, a.Unmap())
	}
	return a.WithZone("").Unmap(), legacy, true
}

// Observed is what ObservePrefixes read from one field.
type Observed struct {
	// Prefixes are the values that could be read, masked, in order.
	Prefixes []netip.Prefix
	// Unreadable are the values that could not be read at all.
	Unreadable []string
	// Problems say, for each unreadable or legacy value, what is wrong with
	// it, in words.
	Problems []string
}

// ObservePrefixes reads every value of ss with ParseObservedPrefix.
func ObservePrefixes(ss []string) Observed {
	var out Observed
	for _, s := range ss {
		p, legacy, ok := ParseObservedPrefix(s)
		if !ok {
			out.Unreadable = append(out.Unreadable, s)
			out.Problems = append(out.Problems, fmt.Sprintf("%q is not a CIDR", s))
			continue
		}
		out.Prefixes = append(out.Prefixes, p)
		if legacy != "" {
			out.Problems = append(out.Problems, legacy)
		}
	}
	return out
}

// ParseObserved returns the prefixes of ss that can be read, masked (see
// ObservePrefixes for what cannot be).
func ParseObserved(ss []string) []netip.Prefix {
	return ObservePrefixes(ss).Prefixes
}
