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

// Package slimnode holds Node, the part of a Kubernetes Node the operator
// reads, as its informer cache keeps it.
//
// A cluster may have 65,000 nodes and the cache holds each for the life of
// the process. A corev1.Node struct is 847 bytes before any of its
// contents, even with every field the operator does not read dropped, and
// the Go runtime keeps about two bytes of resident memory per live heap
// byte. Node keeps the same field paths for what it holds (Spec.PodCIDRs,
// Status.Addresses, Status.Conditions, the metadata), so code reads it as
// it reads a corev1.Node, in about a third of the heap.
package slimnode

import (
	"net/netip"
	"slices"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"podnetwork.io/operator/internal/cidr"
)

// Node is a Node with only the fields the operator's controllers read:
//
//   - metadata: name, uid, resourceVersion, creation and deletion
//     timestamps, and labels (range nodeSelectors); of the annotations,
//     only whether flanneld's public-IP ones are there (Announced);
//   - spec: podCIDRs;
//   - status: the InternalIP and ExternalIP addresses (no range may
//     contain a node address) and the NetworkUnavailable condition (the
//     adapters' proof).
//
// It is a client.Object whose kind is always v1 Node, so watch handlers,
// event recorders and object references take it as the Node it came from.
// A controller that needs another field must add it here and in From.
type Node struct {
	metav1.ObjectMeta

	Spec   Spec
	Status Status

	// Announced says which of flanneld's public-IP annotations the node
	// carries. Their values are not kept: a map of annotations would cost
	// more than the rest of the node.
	Announced Announced
}

const (
	// FlannelPublicIPAnnotation and FlannelPublicIPv6Annotation are the
	// annotations with which flanneld announces its node's address of each
	// family to the other nodes' flanneld, once it runs with the family
	// enabled (flannel's pkg/subnet/kube).
	FlannelPublicIPAnnotation   = "flannel.alpha.coreos.com/public-ip"
	FlannelPublicIPv6Annotation = "flannel.alpha.coreos.com/public-ipv6"
)

// Announced says which of flanneld's public-IP annotations a node carries
// (with a value that is not empty).
type Announced struct {
	// IPv4 is true when the node carries FlannelPublicIPAnnotation, IPv6
	// when it carries FlannelPublicIPv6Annotation.
	IPv4, IPv6 bool
}

// Spec is the part of a NodeSpec the operator reads.
type Spec struct {
	PodCIDRs []string

	// read points at PodCIDRs as ObservedPodCIDRs reads them, as many
	// prefixes as PodCIDRs has values, read once by From when every value
	// reads cleanly; nil otherwise. A pointer and not a slice: a slice
	// header would take Node from the 320-byte size class to the 352-byte
	// one, 2 MiB more at 65,000 nodes (TestNodeSizeClass).
	read *netip.Prefix
}

// ObservedPodCIDRs returns n's podCIDRs read the way Kubernetes reads them
// (cidr.ObservePrefixes). Every lifecycle, adapter and autoscaler
// reconcile reads the podCIDRs of every cached node, and NodeIPAM those of
// each node event: a node From made holds them read already, once, when
// it entered the cache, unless a value is unreadable or legacy (rare, and
// read again here with its problems). The prefixes are the cache's:
// never change them. Only From's nodes hold them, and a node From made is
// never changed (DeepCopy's copy reads them again).
func (n *Node) ObservedPodCIDRs() cidr.Observed {
	if n.Spec.read != nil {
		return cidr.Observed{Prefixes: unsafe.Slice(n.Spec.read, len(n.Spec.PodCIDRs))}
	}
	return cidr.ObservePrefixes(n.Spec.PodCIDRs)
}

// Status is the part of a NodeStatus the operator reads.
type Status struct {
	// Addresses are the node's InternalIP and ExternalIP addresses.
	Addresses []corev1.NodeAddress
	// Conditions holds the NetworkUnavailable condition, if the node has
	// one.
	Conditions []corev1.NodeCondition
}

// From returns the fields of n that Node keeps. The result shares n's
// strings, maps and slices of kept fields where it keeps them whole.
func From(n *corev1.Node) *Node {
	out := &Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:              n.Name,
			UID:               n.UID,
			ResourceVersion:   n.ResourceVersion,
			CreationTimestamp: n.CreationTimestamp,
			DeletionTimestamp: n.DeletionTimestamp,
			Labels:            n.Labels,
		},
		Spec: Spec{PodCIDRs: n.Spec.PodCIDRs, read: readPodCIDRs(n.Spec.PodCIDRs)},
		Announced: Announced{
			IPv4: n.Annotations[FlannelPublicIPAnnotation] != "",
			IPv6: n.Annotations[FlannelPublicIPv6Annotation] != "",
		},
	}
	out.Status.Addresses = ipAddresses(n.Status.Addresses)
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeNetworkUnavailable {
			out.Status.Conditions = []corev1.NodeCondition{n.Status.Conditions[i]}
			break
		}
	}
	return out
}

// readPodCIDRs returns the first of podCIDRs read, in one allocation of
// exactly their number, or nil when there are none or one cannot be read
// cleanly.
func readPodCIDRs(podCIDRs []string) *netip.Prefix {
	if len(podCIDRs) == 0 {
		return nil
	}
	read := make([]netip.Prefix, len(podCIDRs))
	for i, s := range podCIDRs {
		// cidr.ObservePrefixes' rule, value by value, into one allocation.
		p, legacy, ok := cidr.ParseObservedPrefix(s)
		if !ok || legacy != "" {
			return nil
		}
		read[i] = p
	}
	return &read[0]
}

// ipAddresses returns the InternalIP and ExternalIP addresses of addrs, the
// only types a range is checked against (cidr.IsNodeIPType): a kubelet also
// reports Hostname and InternalDNS names, each as long as the node name.
func ipAddresses(addrs []corev1.NodeAddress) []corev1.NodeAddress {
	n := 0
	for _, a := range addrs {
		if cidr.IsNodeIPType(a.Type) {
			n++
		}
	}
	if n == len(addrs) {
		return addrs
	}
	out := make([]corev1.NodeAddress, 0, n)
	for _, a := range addrs {
		if cidr.IsNodeIPType(a.Type) {
			out = append(out, a)
		}
	}
	return out
}

// nodeKind is a Node's kind: always v1 Node, never set.
type nodeKind struct{}

var gvk = corev1.SchemeGroupVersion.WithKind("Node")

func (nodeKind) SetGroupVersionKind(schema.GroupVersionKind) {}
func (nodeKind) GroupVersionKind() schema.GroupVersionKind   { return gvk }

// GetObjectKind returns v1 Node: a Node is not in any scheme, and its kind
// is how an event recorder or object reference names it.
func (*Node) GetObjectKind() schema.ObjectKind { return nodeKind{} }

// DeepCopyObject returns a deep copy of n.
func (n *Node) DeepCopyObject() runtime.Object { return n.DeepCopy() }

// DeepCopy returns a deep copy of n, equal to it but for the podCIDRs From
// read, which the copy reads again.
func (n *Node) DeepCopy() *Node {
	if n == nil {
		return nil
	}
	// Without the podCIDRs read: a copy is made to be changed, and reads
	// them again (ObservedPodCIDRs).
	out := &Node{Spec: Spec{PodCIDRs: slices.Clone(n.Spec.PodCIDRs)}, Announced: n.Announced}
	n.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Addresses = append([]corev1.NodeAddress(nil), n.Status.Addresses...)
	for i := range n.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, *n.Status.Conditions[i].DeepCopy())
	}
	return out
}
