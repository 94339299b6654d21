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
	"math"
	"net/netip"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/declared"
	"podnetwork.io/operator/internal/nodeipam"
)

// servingRange is an Active declared range that serves a pool's nodes.
type servingRange struct {
	name     string
	prefix   netip.Prefix
	nms      int32
	capacity int64
	free     int64
}

// activeRange is an Active range of the union, as tracked.
type activeRange struct {
	r      *v1alpha1.PodCIDRRange
	prefix netip.Prefix
	nms    int32
	usage  v1alpha1.RangeUsage
}

// activeRanges returns the declared ranges that are tracked Active with the
// same cidr and nodeMaskSize, except the one named exclude.
func (d *decider) activeRanges(union *declared.Result, exclude string) []activeRange {
	var out []activeRange
	for i := range union.Ranges {
		r := &union.Ranges[i]
		rs := d.tracked[r.Name]
		if r.Name == exclude || rs == nil || rs.Phase != v1alpha1.RangePhaseActive {
			continue
		}
		p, err := cidr.ParseCanonical(r.CIDR)
		if err != nil || rs.CIDR != p.String() || rs.NodeMaskSize != r.EffectiveNodeMaskSize() {
			continue
		}
		out = append(out, activeRange{r: r, prefix: p, nms: rs.NodeMaskSize, usage: rs.Usage})
	}
	return out
}

// serving returns the ranges that serve the pool's nodes, without the one
// named exclude: the Active ranges of the pool's family with an equal
// nodeSelector that no other Active range strictly contains (NodeIPAM hands
// out blocks from those; their usage counts the blocks of the ranges inside
// them).
func (d *decider) serving(pool *poolSpec, sel *corev1.NodeSelector, union *declared.Result, exclude string) []servingRange {
	active := d.activeRanges(union, exclude)
	var out []servingRange
	for i := range active {
		a := &active[i]
		if a.prefix.Addr().Is4() != pool.prefix.Addr().Is4() || !sameSelector(a.r.NodeSelector, sel) || insideAny(a.prefix, active) {
			continue
		}
		s := servingRange{name: a.r.Name, prefix: a.prefix, nms: a.nms}
		if !a.usage.IsZero() {
			s.capacity, s.free = a.usage.Capacity, ptr.Deref(a.usage.Free, 0)
		} else {
			s.capacity, s.free = estimate(a, active)
		}
		out = append(out, s)
	}
	return out
}

// estimate returns the capacity and free blocks of an Active range NodeIPAM
// has not reported yet (it just became Active): its blocks, minus what the
// outermost reported ranges inside it hold.
func estimate(a *activeRange, active []activeRange) (capacity, free int64) {
	capacity = int64(min(cidr.BlockCount(a.prefix, int(a.nms)), math.MaxInt64))
	var inner []activeRange
	for _, o := range active {
		if cidr.StrictlyContains(a.prefix, o.prefix) {
			inner = append(inner, o)
		}
	}
	used := int64(0)
	for i := range inner {
		o := &inner[i]
		if insideAny(o.prefix, inner) || o.usage.IsZero() {
			continue
		}
		used += ptr.Deref(o.usage.Allocated, 0) + ptr.Deref(o.usage.Quarantined, 0)
	}
	return capacity, max(capacity-used, 0)
}

// insideAny reports whether some range of rs strictly contains p.
func insideAny(p netip.Prefix, rs []activeRange) bool {
	return slices.ContainsFunc(rs, func(o activeRange) bool { return cidr.StrictlyContains(o.prefix, p) })
}

// sameSelector reports whether two nodeSelectors select the same nodes by
// construction: both unset, or equal.
func sameSelector(a, b *corev1.NodeSelector) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return equality.Semantic.DeepEqual(a, b)
}

// totals sums the capacity and free blocks of the serving ranges.
func totals(rs []servingRange) (capacity, free int64) {
	for _, r := range rs {
		capacity += r.capacity
		free += r.free
	}
	return capacity, free
}

// demand returns how many of the pool's nodes wait for a block of its
// family, and when each of the pool's nodes was created.
func demand(pool *poolSpec, sel *nodeipam.NodeSelector, nodes []Node) (waiting int64, created []time.Time) {
	v4 := pool.prefix.Addr().Is4()
	for i := range nodes {
		n := &nodes[i]
		if n.Deleting {
			continue
		}
		if ok, _ := sel.Match(n.Name, n.Labels); !ok {
			continue
		}
		created = append(created, n.Created)
		if !slices.ContainsFunc(n.PodCIDRs, func(p netip.Prefix) bool { return p.Addr().Is4() == v4 }) {
			waiting++
		}
	}
	return waiting, created
}
