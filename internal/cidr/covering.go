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

// CoveringPrefix returns the smallest single prefix that contains every prefix
// in prefixes. It returns false if prefixes is empty, holds an invalid prefix,
// or mixes families.
//
// Consumers such as kube-proxy's --cluster-cidr (ClusterCIDR local-detection
// mode) and flannel's Network accept one CIDR per family, so a PodNetwork with
// several ranges has to be summarised. The result may include addresses that
// belong to no range (10.0.0.0/24 and 10.0.2.0/24 give 10.0.0.0/22); callers
// must treat it as an over-approximation, never as a list of pod addresses.
func CoveringPrefix(prefixes []netip.Prefix) (netip.Prefix, bool) {
	var out netip.Prefix
	for i, p := range prefixes {
		if !p.IsValid() {
			return netip.Prefix{}, false
		}
		p = p.Masked()
		if i == 0 {
			out = p
			continue
		}
		if p.Addr().Is4() != out.Addr().Is4() {
			return netip.Prefix{}, false
		}
		out = commonSupernet(out, p)
	}
	return out, out.IsValid()
}

// CoveringPerFamily splits prefixes by family and returns CoveringPrefix of
// each. ok4/ok6 are false when a family is absent. Invalid prefixes are
// ignored.
func CoveringPerFamily(prefixes []netip.Prefix) (v4, v6 netip.Prefix, ok4, ok6 bool) {
	var p4, p6 []netip.Prefix
	for _, p := range prefixes {
		switch Family(p) {
		case IPv4:
			p4 = append(p4, p)
		case IPv6:
			p6 = append(p6, p)
		}
	}
	v4, ok4 = CoveringPrefix(p4)
	v6, ok6 = CoveringPrefix(p6)
	return v4, v6, ok4, ok6
}

// commonSupernet returns the longest prefix containing both masked prefixes a
// and b of one family. It shortens a's prefix until it contains b's first
// address; since it is then no longer than b, it contains all of b. The loop
// ends at /0 at the latest, which contains every address of the family.
func commonSupernet(a, b netip.Prefix) netip.Prefix {
	for bits := min(a.Bits(), b.Bits()); ; bits-- {
		c := netip.PrefixFrom(a.Addr(), bits).Masked()
		if c.Contains(b.Addr()) {
			return c
		}
	}
}
