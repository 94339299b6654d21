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

package chaos

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// autoscaling is the PodNetwork's spec.autoscaling of a run with the
// autoscaler: Auto, a pool per family for the nodes labelled poolLabel.
//
//   - auto4 (10.131.0.0/16, the IPv4 ranges' block size) grows by
//     ExpandThenAdd from ranges of 4 blocks: it adds one, expands it one bit
//     at a time as the pool's nodes come, and consolidates, releasing the
//     ranges a supernet covers;
//   - auto6 (the IPv6 twin of that /16) grows by Add only, an eighth of the
//     pool at a time, and gives back a range that stayed empty for 10s
//     while enough blocks stay free without it: ranges are added and
//     removed as the node waves come and go.
//
// Their selectors require the pool label and, in a dual-stack run, exclude
// the nodes of the other family alone: two requirements, more specific
// than the admin's ranges, so the pool's nodes take their blocks from the
// pools while they have some, and from the admin's ranges after.
func autoscaling(cfg Config) v1alpha1.PodNetworkAutoscaling {
	if !cfg.Autoscaler {
		return v1alpha1.PodNetworkAutoscaling{}
	}
	a := v1alpha1.PodNetworkAutoscaling{Mode: v1alpha1.AutoscalingAuto, CooldownSeconds: ptr.To[int32](10)}
	pool4 := netip.MustParsePrefix(poolCIDR4)
	if cfg.Families.has4() {
		a.Pools = append(a.Pools, v1alpha1.AutoscalingPool{
			Name:              "auto4",
			CIDR:              pool4.String(),
			RangePrefixLength: cfg.NodeMaskSize - 2,
			NodeMaskSize:      cfg.NodeMaskSize,
			NodeSelector:      poolSelector(cfg.Families, false),
			MaxRanges:         4,
			GrowBy:            v1alpha1.GrowByExpandThenAdd,
			Grow:              v1alpha1.GrowThreshold{FreeBlocksBelow: 2, FreePercentBelow: 25},
		})
	}
	if cfg.Families.has6() {
		pool6 := twin6(pool4, cfg.NodeMaskSize)
		a.Pools = append(a.Pools, v1alpha1.AutoscalingPool{
			Name:              "auto6",
			CIDR:              pool6.String(),
			RangePrefixLength: int32(pool6.Bits()) + 3, //nolint:gosec // a prefix length
			NodeMaskSize:      ipv6NodeMaskSize,
			NodeSelector:      poolSelector(cfg.Families, true),
			MaxRanges:         8,
			GrowBy:            v1alpha1.GrowByAdd,
			Grow:              v1alpha1.GrowThreshold{FreeBlocksBelow: 2, FreePercentBelow: 25},
			Shrink:            v1alpha1.ShrinkPolicy{FreePercentAbove: 60, IdleSeconds: ptr.To[int32](10)},
		})
	}
	return a
}

// poolSelector selects the pool's nodes of a family.
func poolSelector(families Families, ipv6 bool) *corev1.NodeSelector {
	reqs := []corev1.NodeSelectorRequirement{{Key: poolLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{poolValue}}}
	if sel := familySelector(families, ipv6); sel != nil {
		reqs = append(reqs, sel.NodeSelectorTerms[0].MatchExpressions...)
	}
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}}}
}
