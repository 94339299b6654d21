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
)

// MaxBlockBits bounds how many bits longer a node block may be than its range:
// 2^24 = 16,777,216 blocks. The allocator keeps one bit per block (2 MiB for
// the largest range), so the bound keeps memory predictable while still
// allowing an IPv6 /40 split into /64s (kube-controller-manager stops at 2^16).
const MaxBlockBits = 24

var (
	// ErrInvalidRange is wrapped by ValidateRange errors about the shape of a
	// range (invalid prefix, host bits, node mask size out of bounds).
	ErrInvalidRange = errors.New("invalid pod network range")
	// ErrReservedRange is wrapped by ValidateRange errors about a range that
	// overlaps a special-purpose address block.
	ErrReservedRange = errors.New("pod network range overlaps a reserved address block")
)

// ValidateRange checks that prefix p split into /nodeMaskSize node blocks is a
// usable pod network range:
//   - p is a valid, masked prefix;
//   - p.Bits() <= nodeMaskSize <= MaxNodeMaskSize (30 for IPv4, 126 for IPv6);
//   - nodeMaskSize-p.Bits() <= MaxBlockBits;
//   - p overlaps none of the special-purpose blocks (unspecified, loopback,
//     link-local, multicast, 240.0.0.0/4, IPv4-mapped IPv6).
//
// Pod addresses inside those blocks are either unroutable or silently
// misrouted by the kernel, so such a range can never work and is rejected at
// admission instead of failing on nodes. The first offending block, in a
// fixed order, is named in the error.
func ValidateRange(p netip.Prefix, nodeMaskSize int) error {
	if !p.IsValid() {
		return fmt.Errorf("%w: the prefix is not a valid CIDR", ErrInvalidRange)
	}
	if m := p.Masked(); m != p {
		return fmt.Errorf("%w: %s has host bits set; the network is %s", ErrInvalidRange, p, m)
	}
	fam := Family(p)
	if nodeMaskSize < p.Bits() {
		return fmt.Errorf("%w: nodeMaskSize /%d is shorter than the prefix length of %s; a node block must fit inside the range (use /%d or longer)",
			ErrInvalidRange, nodeMaskSize, p, p.Bits())
	}
	if maxMask := MaxNodeMaskSize(fam); nodeMaskSize > maxMask {
		return fmt.Errorf("%w: nodeMaskSize /%d is too long for %s; the longest allowed is /%d (4 addresses per node)",
			ErrInvalidRange, nodeMaskSize, fam, maxMask)
	}
	if diff := nodeMaskSize - p.Bits(); diff > MaxBlockBits {
		return fmt.Errorf("%w: %s split into /%d blocks gives 2^%d blocks, more than the supported 2^%d (16,777,216); use nodeMaskSize /%d or shorter, or a smaller range",
			ErrInvalidRange, p, nodeMaskSize, diff, MaxBlockBits, p.Bits()+MaxBlockBits)
	}
	if r, ok := reservedOverlap(p); ok {
		return fmt.Errorf("%w: %s overlaps %s (%s)", ErrReservedRange, p, r.prefix, r.purpose)
	}
	return nil
}
