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

package audit

import (
	"net/netip"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/lifecycle"
	"podnetwork.io/operator/internal/slimnode"
)

// NodePodCIDRs is what the nodes' podCIDRs say about the pod network.
type NodePodCIDRs struct {
	// Waiting counts the nodes that are not being deleted and have no
	// podCIDRs yet.
	Waiting int
	// Foreign counts the podCIDRs that lie outside every tracked range that
	// is not Released, with the rule of status.foreignNodes
	// (lifecycle.ForeignPodCIDRs); a podCIDR that cannot be read is not
	// counted here but in Malformed.
	Foreign int
	// Malformed counts the nodes whose podCIDRs cannot all be read, or
	// only in a legacy format: the nodes cidr.ObservePrefixes reports
	// problems for, as NodeIPAM's rebuild does.
	Malformed int
}

// CountNodePodCIDRs reads the podCIDRs of every node once, as Kubernetes
// reads them, against ranges (PodNetwork status.ranges). It allocates
// nothing per node unless the node has a foreign or legacy podCIDR: the
// metrics collector calls it at every scrape with every cached node.
func CountNodePodCIDRs(ranges []v1alpha1.RangeStatus, nodes []*slimnode.Node) NodePodCIDRs {
	tracked := trackedPrefixes(ranges)
	var out NodePodCIDRs
	var buf [2]netip.Prefix // a node has at most one podCIDR per family
	for _, n := range nodes {
		if len(n.Spec.PodCIDRs) == 0 {
			if n.DeletionTimestamp.IsZero() {
				out.Waiting++
			}
			continue
		}
		read, malformed := buf[:0], false
		// cidr.ObservePrefixes' reading, value by value, without the
		// slices it builds for its report.
		for _, s := range n.Spec.PodCIDRs {
			p, legacy, ok := cidr.ParseObservedPrefix(s)
			if !ok || legacy != "" {
				malformed = true
			}
			if ok {
				read = append(read, p)
			}
		}
		if malformed {
			out.Malformed++
		}
		out.Foreign += len(lifecycle.ForeignPodCIDRs(read, tracked))
	}
	return out
}

// trackedPrefixes returns the prefixes of the ranges that are not
// Released.
func trackedPrefixes(ranges []v1alpha1.RangeStatus) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(ranges))
	for i := range ranges {
		if ranges[i].Phase == v1alpha1.RangePhaseReleased {
			continue
		}
		if p, err := netip.ParsePrefix(ranges[i].CIDR); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}
