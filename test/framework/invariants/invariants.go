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

// Package invariants checks, from outside the operator, the promises NodeIPAM
// makes about node podCIDRs. The envtest suites and the e2e test use it the
// same way: feed the Checker every PodNetwork they see (a watch is best, so
// no Active phase is missed), then check the nodes.
//
// It is deliberately independent of the operator's code (no allocator, no
// internal/nodeipam): a checker that shares the code it checks shares its
// bugs.
package invariants

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// DefaultFieldManager is the field manager NodeIPAM writes podCIDRs with.
const DefaultFieldManager = "podnetwork-operator/node-ipam"

// Checker remembers every range seen Active and checks nodes against them.
// It is safe for concurrent use.
type Checker struct {
	// FieldManager identifies podCIDRs the operator assigned (from the
	// node's managedFields); DefaultFieldManager when empty.
	FieldManager string

	mu     sync.Mutex
	active map[string]ActiveRange // by "name cidr": every range ever seen Active
}

// ActiveRange is a range seen Active, and since when (its phaseSince the
// first time it was seen Active; zero if the status did not say).
type ActiveRange struct {
	Name   string
	Prefix netip.Prefix
	Since  time.Time
}

// ObserveRanges records the ranges pn shows Active.
func (c *Checker) ObserveRanges(pn *podnetworkv1alpha1.PodNetwork) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active == nil {
		c.active = map[string]ActiveRange{}
	}
	for _, rs := range pn.Status.Ranges {
		if rs.Phase != podnetworkv1alpha1.RangePhaseActive {
			continue
		}
		p, err := netip.ParsePrefix(rs.CIDR)
		if err != nil {
			continue
		}
		key := rs.Name + " " + rs.CIDR
		if old, seen := c.active[key]; seen && !old.Since.IsZero() && (rs.PhaseSince.IsZero() || old.Since.Before(rs.PhaseSince.Time)) {
			continue
		}
		c.active[key] = ActiveRange{Name: rs.Name, Prefix: p.Masked(), Since: ptr.Deref(rs.PhaseSince, metav1.Time{}).Time}
	}
}

// ActiveRanges returns every range seen Active, sorted by name.
func (c *Checker) ActiveRanges() []ActiveRange {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]ActiveRange, 0, len(c.active))
	for _, r := range c.active {
		out = append(out, r)
	}
	slices.SortFunc(out, func(x, y ActiveRange) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// Check verifies the nodes:
//
//   - each node has at most one podCIDR per IP family, and podCIDR is the
//     first of podCIDRs;
//   - no two nodes have overlapping podCIDRs;
//   - every podCIDR the operator assigned lies inside a range that was seen
//     Active, and was assigned no earlier than that range first became
//     Active (both times are whole seconds: the node's managedFields time of
//     the operator's write, the range's phaseSince).
func (c *Checker) Check(nodes []corev1.Node) error {
	var errs []error
	for i := range nodes {
		errs = append(errs, Shape(&nodes[i]))
	}
	for _, o := range Overlaps(nodes) {
		errs = append(errs, errors.New(o.String()))
	}
	errs = append(errs, c.outsideActive(nodes)...)
	return errors.Join(errs...)
}

func (c *Checker) outsideActive(nodes []corev1.Node) []error {
	active := c.ActiveRanges()
	var errs []error
	for i := range nodes {
		n := &nodes[i]
		assigned, at := AssignedBy(n, c.fieldManager())
		if !assigned {
			continue
		}
		for _, p := range PodCIDRs(n) {
			var containing []ActiveRange
			for _, r := range active {
				if r.Prefix.Bits() <= p.Bits() && r.Prefix.Contains(p.Addr()) {
					containing = append(containing, r)
				}
			}
			switch {
			case len(containing) == 0:
				errs = append(errs, fmt.Errorf("node %s: podCIDR %s was assigned by %s but lies in no range seen Active (%v)", n.Name, p, c.fieldManager(), active))
			case !slices.ContainsFunc(containing, func(r ActiveRange) bool { return at.IsZero() || r.Since.IsZero() || !at.Before(r.Since) }):
				errs = append(errs, fmt.Errorf("node %s: podCIDR %s was assigned at %s, before its range became Active (%v)", n.Name, p, at.UTC().Format(time.RFC3339), containing))
			}
		}
	}
	return errs
}

func (c *Checker) fieldManager() string {
	if c.FieldManager == "" {
		return DefaultFieldManager
	}
	return c.FieldManager
}

// AssignedBy reports whether manager owns the node's spec.podCIDRs, and
// when it last wrote them (zero if unknown).
func AssignedBy(n *corev1.Node, manager string) (bool, time.Time) {
	for _, mf := range n.ManagedFields {
		if mf.Manager == manager && mf.FieldsV1 != nil && strings.Contains(mf.FieldsV1.GetRawString(), `"f:podCIDRs"`) {
			var at time.Time
			if mf.Time != nil {
				at = mf.Time.Time
			}
			return true, at
		}
	}
	return false, time.Time{}
}

// Overlap is a pair of nodes whose podCIDRs overlap.
type Overlap struct {
	Node, Other               string
	NodePodCIDR, OtherPodCIDR netip.Prefix
}

func (o Overlap) String() string {
	return fmt.Sprintf("nodes %s (%s) and %s (%s) have overlapping podCIDRs", o.Node, o.NodePodCIDR, o.Other, o.OtherPodCIDR)
}

// Overlaps returns every pair of distinct nodes with overlapping podCIDRs,
// by comparing every pair: slow and obviously right.
func Overlaps(nodes []corev1.Node) []Overlap {
	var out []Overlap
	for i := range nodes {
		for j := i + 1; j < len(nodes); j++ {
			for _, p := range PodCIDRs(&nodes[i]) {
				for _, q := range PodCIDRs(&nodes[j]) {
					if p.Overlaps(q) {
						out = append(out, Overlap{Node: nodes[i].Name, NodePodCIDR: p, Other: nodes[j].Name, OtherPodCIDR: q})
					}
				}
			}
		}
	}
	return out
}

// Shape checks one node's podCIDR fields: at most one podCIDR per IP
// family, podCIDR is the first of podCIDRs, every podCIDR parses.
func Shape(n *corev1.Node) error {
	if len(n.Spec.PodCIDRs) == 0 {
		if n.Spec.PodCIDR != "" {
			return fmt.Errorf("node %s: podCIDR %s without podCIDRs", n.Name, n.Spec.PodCIDR)
		}
		return nil
	}
	if n.Spec.PodCIDR != n.Spec.PodCIDRs[0] {
		return fmt.Errorf("node %s: podCIDR %q is not podCIDRs[0] %q", n.Name, n.Spec.PodCIDR, n.Spec.PodCIDRs[0])
	}
	ps := PodCIDRs(n)
	if len(ps) != len(n.Spec.PodCIDRs) {
		return fmt.Errorf("node %s: unparsable podCIDRs %v", n.Name, n.Spec.PodCIDRs)
	}
	if len(ps) > 2 || (len(ps) == 2 && ps[0].Addr().Is4() == ps[1].Addr().Is4()) {
		return fmt.Errorf("node %s: podCIDRs %v are not at most one per IP family", n.Name, n.Spec.PodCIDRs)
	}
	return nil
}

// PodCIDRs returns the node's spec.podCIDRs that parse, masked.
func PodCIDRs(n *corev1.Node) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range n.Spec.PodCIDRs {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}
