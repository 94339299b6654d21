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

import "net/netip"

// Overlaps reports whether a and b share at least one address. Prefixes of
// different families never overlap; invalid prefixes overlap nothing.
func Overlaps(a, b netip.Prefix) bool {
	return a.IsValid() && b.IsValid() && a.Overlaps(b)
}

// StrictlyContains reports whether inner lies inside outer and is smaller,
// i.e. outer is a proper supernet of inner. Host bits are ignored. Used to
// recognise a range added as a supernet of an existing one.
func StrictlyContains(outer, inner netip.Prefix) bool {
	if !outer.IsValid() || !inner.IsValid() {
		return false
	}
	outer, inner = outer.Masked(), inner.Masked()
	return outer.Bits() < inner.Bits() && outer.Contains(inner.Addr())
}

// OverlapsAnyAddr returns the first address in addrs that lies inside p.
// Zones are ignored and IPv4-mapped IPv6 addresses are also tried as IPv4:
// this guards pod ranges against node and service addresses, and a missed
// overlap would be worse than a spurious one.
func OverlapsAnyAddr(p netip.Prefix, addrs []netip.Addr) (netip.Addr, bool) {
	if !p.IsValid() {
		return netip.Addr{}, false
	}
	for _, a := range addrs {
		plain := a.WithZone("")
		if p.Contains(plain) || p.Contains(plain.Unmap()) {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// OverlapsAny returns the first prefix in others that overlaps p.
func OverlapsAny(p netip.Prefix, others []netip.Prefix) (netip.Prefix, bool) {
	for _, o := range others {
		if Overlaps(p, o) {
			return o, true
		}
	}
	return netip.Prefix{}, false
}
