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

package adapters

import (
	"net/netip"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/slimnode"
)

// Input is what an adapter knows about the cluster when it decides which
// ranges its component can take.
type Input struct {
	// PodNetwork is PodNetwork "default"; its status says which ranges are
	// desired (v1alpha1.DesiredRanges).
	PodNetwork *v1alpha1.PodNetwork
	// Previous are the adapter's own acknowledgements from its
	// PodNetworkConsumer status. A Pending range the adapter already accepted
	// keeps priority over ranges added after it, so a newcomer can never
	// displace it.
	Previous []v1alpha1.ConsumerRangeStatus
	// ServiceCIDRs are the prefixes of every ServiceCIDR, including those being
	// deleted (they may still hold allocated Service IPs).
	ServiceCIDRs []NamedPrefix
	// NodeAddresses are the InternalIP and ExternalIP addresses of the nodes.
	NodeAddresses []NodeAddress
	// NodePodCIDRs are the podCIDRs of the nodes. Only adapters whose
	// component must cover every podCIDR in use (flannel) pass them to Decide.
	NodePodCIDRs []NamedPrefix
	// Limits are the shortest covering prefixes the adapter may write.
	Limits Limits
	// RunningOn are the nodes that host a pod of the component's DaemonSet,
	// sorted. A setting that applies to every node (flannel's EnableIPv6)
	// must suit each of them.
	RunningOn []string
	// NodeIPAM is true when the operator's own NodeIPAM assigns node
	// podCIDRs (it runs in this process, --enable-node-ipam): only then
	// does spec.allocation.familyPolicy decide which families a node that
	// joins gets. Whether it is the only allocator is read from the
	// PodNetwork (status.allocationConflicts names another one at work).
	// The kubectl plugin, which cannot tell, leaves it false: its
	// prediction never turns a family on that the adapter would not.
	NodeIPAM bool
	// Unannounced lists, per IP family (cidr.IPv4, cidr.IPv6), the nodes
	// that do not carry flanneld's public-IP annotation of that family
	// (slimnode.Announced), sorted: flanneld writes it when it starts with
	// the family enabled, and a flanneld learns another node's lease of a
	// family only from a Node that carries it (flannel's "peers announced"
	// rollout, docs/consumers/flannel.md).
	Unannounced map[string][]string
	// Template are the pod-template annotations of the component's
	// DaemonSet (empty, not nil, when it has none): where an adapter finds
	// the marks its rollouts left (Plan.Template). Read them, never change
	// them. nil means unknown (the kubectl plugin does not read them): a
	// plan then takes every mark as set, and predicts what the adapter
	// does once its rollouts are done.
	Template map[string]string
}

// NamedPrefix is a prefix and the name of the object it comes from (a
// ServiceCIDR or a node).
type NamedPrefix struct {
	Name   string
	Prefix netip.Prefix
}

// NodeAddress is an address of a node.
type NodeAddress struct {
	Node string
	Addr netip.Addr
}

// Limits bound how short a covering prefix may be, per family. A /8 IPv4
// clusterCIDR already marks 16 million addresses as pod traffic; a shorter one
// is almost certainly a mistake (two unrelated ranges far apart), so the
// adapter rejects the range that would cause it.
type Limits struct {
	// IPv4 is the shortest IPv4 prefix length allowed (default 8).
	IPv4 int
	// IPv6 is the shortest IPv6 prefix length allowed (default 32).
	IPv6 int
}

// DefaultLimits are the limits used when the operator's flags leave them
// unset.
var DefaultLimits = Limits{IPv4: 8, IPv6: 32}

// For returns the limit of a family ("IPv4" or "IPv6").
func (l Limits) For(family string) int {
	if family == cidr.IPv4 {
		return l.IPv4
	}
	return l.IPv6
}

// InputFrom converts what an adapter (or the kubectl plugin predicting one)
// read into an Input: the PodNetwork, the adapter's previous
// acknowledgements, the nodes and the ServiceCIDRs. Addresses and prefixes
// are read the way Kubernetes reads them; the ones that cannot be read at
// all are skipped (the lifecycle reports them in Degraded), so a broken
// object never stops the adapter. RunningOn, NodeIPAM and Template are
// left for the caller, which knows the component's pods and DaemonSet.
func InputFrom(pn *v1alpha1.PodNetwork, previous []v1alpha1.ConsumerRangeStatus,
	nodes []*slimnode.Node, serviceCIDRs []networkingv1.ServiceCIDR, limits Limits) Input {
	in := Input{PodNetwork: pn, Previous: previous, Limits: limits}
	var unannounced4, unannounced6 []string
	for i := range serviceCIDRs {
		for _, p := range cidr.ParseObserved(serviceCIDRs[i].Spec.CIDRs) {
			in.ServiceCIDRs = append(in.ServiceCIDRs, NamedPrefix{Name: serviceCIDRs[i].Name, Prefix: p})
		}
	}
	for _, n := range nodes {
		for _, p := range n.ObservedPodCIDRs().Prefixes {
			in.NodePodCIDRs = append(in.NodePodCIDRs, NamedPrefix{Name: n.Name, Prefix: p})
		}
		addrs, _ := cidr.NodeAddresses(n.Status.Addresses) // the lifecycle reports the problems
		for _, a := range addrs {
			in.NodeAddresses = append(in.NodeAddresses, NodeAddress{Node: n.Name, Addr: a})
		}
		if !n.Announced.IPv4 {
			unannounced4 = append(unannounced4, n.Name)
		}
		if !n.Announced.IPv6 {
			unannounced6 = append(unannounced6, n.Name)
		}
	}
	for family, names := range map[string][]string{cidr.IPv4: unannounced4, cidr.IPv6: unannounced6} {
		if len(names) > 0 {
			if in.Unannounced == nil {
				in.Unannounced = map[string][]string{}
			}
			slices.Sort(names)
			in.Unannounced[family] = names
		}
	}
	return in
}
