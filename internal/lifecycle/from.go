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

package lifecycle

import (
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/declared"
	"podnetwork.io/operator/internal/slimnode"
	"podnetwork.io/operator/internal/statusedit"
)

// NodeFrom converts a Node: its podCIDRs and addresses, read the way
// Kubernetes reads them with the rules every controller shares
// (cidr.ObservePrefixes, cidr.NodeAddresses). The values that cannot be
// read, or only in a legacy format, are handed on for Degraded to name, and
// never stop the lifecycle. It copies out what it reads, so n may be shared
// with a cache.
func NodeFrom(n *slimnode.Node) Node {
	pods := n.ObservedPodCIDRs()
	addrs, addrProblems := cidr.NodeAddresses(n.Status.Addresses)
	out := Node{Name: n.Name, PodCIDRs: pods.Prefixes, UnreadablePodCIDRs: pods.Unreadable, Addresses: addrs}
	for _, p := range pods.Problems {
		out.Problems = append(out.Problems, "podCIDR "+p)
	}
	out.Problems = append(out.Problems, addrProblems...)
	return out
}

// ServiceCIDRFrom converts a ServiceCIDR, its prefixes read the way
// Kubernetes reads them.
func ServiceCIDRFrom(s *networkingv1.ServiceCIDR) ServiceCIDR {
	cidrs := cidr.ObservePrefixes(s.Spec.CIDRs)
	return ServiceCIDR{Name: s.Name, Deleting: !s.DeletionTimestamp.IsZero(), CIDRs: cidrs.Prefixes, Problems: cidrs.Problems}
}

// Objects are the API objects Compute depends on, as read by the lifecycle
// controller (from its cache) or by the kubectl plugin (from the API
// server), so both build the same Input.
type Objects struct {
	// PodNetwork is PodNetwork "default".
	PodNetwork *v1alpha1.PodNetwork
	// Declared are the declared ranges Compute tracks: declared.Union of
	// spec.ranges (the PodNetwork's, or the plugin's proposed list) and
	// AutoscaledRangeSet "default".
	Declared     declared.Result
	Consumers    []v1alpha1.PodNetworkConsumer
	Nodes        []*slimnode.Node
	ServiceCIDRs []networkingv1.ServiceCIDR
}

// InputFrom builds the Input of Compute from objs at now. The status
// fields other clients set are found in the PodNetwork's managedFields
// (statusedit.Find), so Compute does not trust them.
func InputFrom(objs Objects, now time.Time, stallAfter time.Duration) Input {
	pn := objs.PodNetwork
	in := Input{
		Edits:        statusedit.Find(pn.ManagedFields),
		Now:          now,
		Generation:   pn.Generation,
		Deleting:     !pn.DeletionTimestamp.IsZero(),
		Spec:         objs.Declared.Ranges,
		Pools:        objs.Declared.Pools,
		Shadowed:     objs.Declared.Shadowed,
		Status:       pn.Status,
		StallAfter:   stallAfter,
		Consumers:    make([]Consumer, 0, len(objs.Consumers)),
		Nodes:        make([]Node, 0, len(objs.Nodes)),
		ServiceCIDRs: make([]ServiceCIDR, 0, len(objs.ServiceCIDRs)),
	}
	for i := range objs.Consumers {
		in.Consumers = append(in.Consumers, ConsumerFrom(&objs.Consumers[i]))
	}
	for _, n := range objs.Nodes {
		in.Nodes = append(in.Nodes, NodeFrom(n))
	}
	for i := range objs.ServiceCIDRs {
		in.ServiceCIDRs = append(in.ServiceCIDRs, ServiceCIDRFrom(&objs.ServiceCIDRs[i]))
	}
	return in
}
