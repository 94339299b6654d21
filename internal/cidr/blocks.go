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
