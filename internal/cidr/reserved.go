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

// reservedBlock is a special-purpose address block that can never hold pod
// addresses.
type reservedBlock struct {
	prefix  netip.Prefix
	purpose string
}

// reservedBlocks is checked in order, so error messages are deterministic.
// The list is deliberately short: only blocks whose use for pods is always a
// mistake. Documentation or benchmarking ranges are left to site policy.
var reservedBlocks = []reservedBlock{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\", includes the unspecified address 0.0.0.0"},
	{netip.MustParsePrefix("127.0.0.0/8"), "IPv4 loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "IPv4 link-local"},
	{netip.MustParsePrefix("224.0.0.0/4"), "IPv4 multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "IPv4 reserved, includes the broadcast address 255.255.255.255"},
	{netip.MustParsePrefix("::/128"), "IPv6 unspecified address"},
	{netip.MustParsePrefix("::1/128"), "IPv6 loopback"},
	{netip.MustParsePrefix("::ffff:0:0/96"), "IPv4-mapped IPv6"},
	{netip.MustParsePrefix("fe80::/10"), "IPv6 link-local"},
	{netip.MustParsePrefix("ff00::/8"), "IPv6 multicast"},
}

// reservedOverlap returns the first reserved block that p overlaps.
func reservedOverlap(p netip.Prefix) (reservedBlock, bool) {
	for _, r := range reservedBlocks {
		if r.prefix.Overlaps(p) {
			return r, true
		}
	}
	return reservedBlock{}, false
}
