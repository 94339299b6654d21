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

package autoscale

import (
	"fmt"
	"net/netip"

	"go4.org/netipx"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
)

// poolSpec is a parsed pool.
type poolSpec struct {
	name       string
	prefix     netip.Prefix
	rangeBits  int
	nms        int32
	exclusions *netipx.IPSet
}

// parsePool parses a pool; the CRD validation refuses what it rejects, so
// an error only comes from an object written without it.
func parsePool(p *v1alpha1.AutoscalingPool) (poolSpec, error) {
	prefix, err := cidr.ParseCanonical(p.CIDR)
	if err != nil {
		return poolSpec{}, fmt.Errorf("pool %q: %w", p.Name, err)
	}
	var b netipx.IPSetBuilder
	for _, x := range p.Exclusions {
		xp, err := cidr.ParseCanonical(string(x))
		if err != nil {
			return poolSpec{}, fmt.Errorf("pool %q: exclusion: %w", p.Name, err)
		}
		b.AddPrefix(xp)
	}
	excl, err := b.IPSet()
	if err != nil {
		return poolSpec{}, fmt.Errorf("pool %q: exclusions: %w", p.Name, err)
	}
	return poolSpec{name: p.Name, prefix: prefix, rangeBits: int(p.RangePrefixLength), nms: p.NodeMaskSize, exclusions: excl}, nil
}

// knownRange is a range carving must respect: declared (by the admin or
// the autoscaler) or tracked in any phase.
type knownRange struct {
	prefix netip.Prefix
	nms    int32
}

// space is what carving avoids: ServiceCIDRs and node addresses (hard) and
// every known range.
type space struct {
	hard   *netipx.IPSet
	ranges []knownRange
}

// newSpace builds the space from the ServiceCIDRs and the node addresses.
func newSpace(serviceCIDRs []netip.Prefix, nodes []Node) (*space, error) {
	var b netipx.IPSetBuilder
	for _, p := range serviceCIDRs {
		if p.IsValid() {
			b.AddPrefix(p.Masked())
		}
	}
	for i := range nodes {
		for _, a := range nodes[i].Addresses {
			if a.IsValid() {
				b.Add(a.Unmap())
			}
		}
	}
	hard, err := b.IPSet()
	if err != nil {
		return nil, fmt.Errorf("building the ServiceCIDR and node address set: %w", err)
	}
	return &space{hard: hard}, nil
}

// add records a known range.
func (s *space) add(p netip.Prefix, nms int32) {
	if p.IsValid() {
		s.ranges = append(s.ranges, knownRange{prefix: p.Masked(), nms: nms})
	}
}

// expansion returns the supernet of r one bit shorter, if the pool may add
// it: inside the pool, a valid range with the pool's nodeMaskSize, clear of
// ServiceCIDRs, node addresses and the pool's exclusions, and overlapping no
// known range except ranges it strictly contains with the same
// nodeMaskSize (the only overlap the lifecycle allows, expansion in place).
func (s *space) expansion(pool *poolSpec, r netip.Prefix) (netip.Prefix, bool) {
	if r.Bits() == 0 {
		return netip.Prefix{}, false
	}
	sup := netip.PrefixFrom(r.Addr(), r.Bits()-1).Masked()
	if sup.Bits() < pool.prefix.Bits() || !pool.prefix.Contains(sup.Addr()) {
		return netip.Prefix{}, false
	}
	if cidr.ValidateRange(sup, int(pool.nms)) != nil || s.hard.OverlapsPrefix(sup) || pool.exclusions.OverlapsPrefix(sup) {
		return netip.Prefix{}, false
	}
	for _, k := range s.ranges {
		if k.prefix.Overlaps(sup) && !(cidr.StrictlyContains(sup, k.prefix) && k.nms == pool.nms) {
			return netip.Prefix{}, false
		}
	}
	return sup, true
}

// carve returns a free /rangePrefixLength of the pool, outside ServiceCIDRs,
// node addresses, exclusions and every known range: the smallest free hole
// it fits in, lowest address first (netipx best fit), which keeps large
// free space whole for later expansions.
func (s *space) carve(pool *poolSpec) (netip.Prefix, bool) {
	var b netipx.IPSetBuilder
	b.AddPrefix(pool.prefix)
	b.RemoveSet(s.hard)
	b.RemoveSet(pool.exclusions)
	for _, k := range s.ranges {
		b.RemovePrefix(k.prefix)
	}
	free, err := b.IPSet()
	if err != nil {
		return netip.Prefix{}, false
	}
	p, _, ok := free.RemoveFreePrefix(uint8(pool.rangeBits))
	if !ok || cidr.ValidateRange(p, int(pool.nms)) != nil {
		return netip.Prefix{}, false
	}
	return p, true
}
