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
	"math"
	"net/netip"
)

// BlockCount returns how many /nodeMask node blocks fit in p. It returns 0 if
// p is invalid or nodeMask is not between p.Bits() and the address length, and
// saturates at math.MaxUint64 when the count does not fit (an IPv6 range more
// than 63 bits shorter than its blocks), so callers can compare without
// overflow.
func BlockCount(p netip.Prefix, nodeMask int) uint64 {
	if !p.IsValid() || nodeMask < p.Bits() || nodeMask > p.Addr().BitLen() {
		return 0
	}
	diff := nodeMask - p.Bits()
	if diff >= 64 {
		return math.MaxUint64
	}
	return uint64(1) << diff
}
