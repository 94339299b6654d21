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

// Package declared computes the declared ranges of the cluster: the ranges
// an admin wrote in PodNetwork spec.ranges together with the ranges the
// autoscaler added in the spec of AutoscaledRangeSet "default". The union is
// computed here and nowhere else; the lifecycle, NodeIPAM and the autoscaler
// all call Union (or View), so the three can never disagree on which ranges
// exist. See docs/autoscaling.md ("The union, written once").
package declared

import (
	"fmt"
	"net/netip"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Result is the union of the admin's and the autoscaler's ranges.
type Result struct {
	// Ranges are the declared ranges: spec.ranges in order, without the
	// shadowed entries, then the autoscaler's ranges that the admin has not
	// adopted, in the set's order.
	Ranges []v1alpha1.PodCIDRRange

	// Pools maps the name of every declared range the autoscaler holds to
	// its pool. A range of spec.ranges is not in it.
	Pools map[string]string

	// Adopted are the autoscaler's ranges the admin copied into spec.ranges
	// with the same name, cidr and nodeMaskSize: they are declared once, as
	// the admin's, and the autoscaler drops its entries.
	Adopted []string

	// Shadowed are the entries of spec.ranges left out because their name is
	// the name of an autoscaled range with another cidr or nodeMaskSize. The
	// autoscaled range wins: it is already tracked and may hold nodes, and
	// no admin edit may change or remove it.
	Shadowed []Shadowed
}

// Shadowed is an entry of spec.ranges the union leaves out.
type Shadowed struct {
	// Name is the name of the entry.
	Name string
	// Message says why, in words, for the Degraded condition.
	Message string
}

// Union returns the declared ranges of the admin's spec ranges and the
// autoscaler's set (nil when there is none).
func Union(spec []v1alpha1.PodCIDRRange, set *v1alpha1.AutoscaledRangeSet) Result {
	res := Result{Pools: map[string]string{}}
	auto := map[string]*v1alpha1.AutoscaledRange{}
	var autoRanges []v1alpha1.AutoscaledRange
	if set != nil && set.Spec != nil {
		autoRanges = set.Spec.Ranges
	}
	for i := range autoRanges {
		auto[autoRanges[i].Name] = &autoRanges[i]
	}
	adopted := map[string]bool{}
	for i := range spec {
		s := &spec[i]
		a := auto[s.Name]
		switch {
		case a == nil:
			res.Ranges = append(res.Ranges, *s.DeepCopy())
		case sameRange(s, a):
			res.Ranges = append(res.Ranges, *s.DeepCopy())
			res.Adopted = append(res.Adopted, s.Name)
			adopted[s.Name] = true
		default:
			res.Shadowed = append(res.Shadowed, Shadowed{Name: s.Name, Message: fmt.Sprintf(
				"range %q (%s) is left out: the autoscaler's pool %q holds a range of that name (%s, nodeMaskSize %d); rename yours, or copy the autoscaler's range verbatim to take it over",
				s.Name, s.CIDR, a.Pool, a.CIDR, a.NodeMaskSize)})
		}
	}
	for i := range autoRanges {
		a := &autoRanges[i]
		if adopted[a.Name] {
			continue
		}
		res.Ranges = append(res.Ranges, a.AsRange())
		res.Pools[a.Name] = a.Pool
	}
	return res
}

// sameRange reports whether the admin's range s declares exactly the
// autoscaler's range a: same name, cidr and effective nodeMaskSize.
func sameRange(s *v1alpha1.PodCIDRRange, a *v1alpha1.AutoscaledRange) bool {
	sp, err1 := netip.ParsePrefix(s.CIDR)
	ap, err2 := a.Prefix()
	return err1 == nil && err2 == nil && sp.Masked() == ap.Masked() && s.EffectiveNodeMaskSize() == a.NodeMaskSize
}

// View returns a shallow copy of pn whose spec.ranges are the declared
// ranges, for readers written against the PodNetwork alone (NodeIPAM's
// configuration). It shares everything else with pn, so it is read-only
// (like an object from the cache). Its resourceVersion joins pn's and the
// set's, so a reader that caches by resourceVersion sees a change of
// either; it is a cache key only and the view must never be written back.
// View(nil, set) is nil.
func View(pn *v1alpha1.PodNetwork, set *v1alpha1.AutoscaledRangeSet) *v1alpha1.PodNetwork {
	if pn == nil {
		return nil
	}
	out := *pn
	out.Spec.Ranges = Union(pn.Spec.Ranges, set).Ranges
	if set != nil {
		out.ResourceVersion = pn.ResourceVersion + "+" + set.ResourceVersion
	}
	return &out
}
