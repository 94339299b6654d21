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

package framework

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Builders in one style: a constructor with what the object cannot do
// without, setters for the rest, Obj for a copy of the result, e.g.
//
//	framework.PodNetwork().Range("a", "10.244.0.0/16").RecycleDelaySeconds(0).Obj()

// PodNetworkWrapper builds a PodNetwork.
type PodNetworkWrapper struct{ v1alpha1.PodNetwork }

// PodNetwork starts the PodNetwork singleton ("default") with no ranges.
func PodNetwork() *PodNetworkWrapper {
	return &PodNetworkWrapper{v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName}}}
}

// Name renames it (the apiserver accepts only "default").
func (w *PodNetworkWrapper) Name(name string) *PodNetworkWrapper {
	w.ObjectMeta.Name = name
	return w
}

// Range appends a range with the default node mask and no node selector.
func (w *PodNetworkWrapper) Range(name, cidr string) *PodNetworkWrapper {
	return w.Ranges(Range(name, cidr).Obj())
}

// Ranges appends ranges.
func (w *PodNetworkWrapper) Ranges(ranges ...v1alpha1.PodCIDRRange) *PodNetworkWrapper {
	w.Spec.Ranges = append(w.Spec.Ranges, ranges...)
	return w
}

// RecycleDelaySeconds sets how long a freed block stays quarantined.
func (w *PodNetworkWrapper) RecycleDelaySeconds(s int32) *PodNetworkWrapper {
	w.allocation().RecycleDelaySeconds = ptr.To(s)
	return w
}

// WhenExhausted sets what NodeIPAM does when no free block is left.
func (w *PodNetworkWrapper) WhenExhausted(p v1alpha1.WhenExhaustedPolicy) *PodNetworkWrapper {
	w.allocation().WhenExhausted = p
	return w
}

// FamilyPolicy sets which IP families NodeIPAM gives a node
// (spec.allocation.familyPolicy).
func (w *PodNetworkWrapper) FamilyPolicy(p v1alpha1.FamilyPolicy) *PodNetworkWrapper {
	w.allocation().FamilyPolicy = p
	return w
}

// allocation returns spec.allocation, setting it first if it is unset.
func (w *PodNetworkWrapper) allocation() *v1alpha1.AllocationPolicy {
	if w.Spec.Allocation == nil {
		w.Spec.Allocation = &v1alpha1.AllocationPolicy{}
	}
	return w.Spec.Allocation
}

// Obj returns a copy of the PodNetwork.
func (w *PodNetworkWrapper) Obj() *v1alpha1.PodNetwork { return w.PodNetwork.DeepCopy() }

// RangeWrapper builds a spec range.
type RangeWrapper struct{ v1alpha1.PodCIDRRange }

// Range starts a range.
func Range(name, cidr string) *RangeWrapper {
	return &RangeWrapper{v1alpha1.PodCIDRRange{Name: name, CIDR: cidr}}
}

// NodeMaskSize sets the prefix length of the nodes' blocks.
func (w *RangeWrapper) NodeMaskSize(bits int32) *RangeWrapper {
	w.PodCIDRRange.NodeMaskSize = bits
	return w
}

// NodeSelector limits the range to the nodes sel selects.
func (w *RangeWrapper) NodeSelector(sel *corev1.NodeSelector) *RangeWrapper {
	w.PodCIDRRange.NodeSelector = sel
	return w
}

// Obj returns a copy of the range.
func (w *RangeWrapper) Obj() v1alpha1.PodCIDRRange { return *w.PodCIDRRange.DeepCopy() }

// ConsumerWrapper builds a PodNetworkConsumer.
type ConsumerWrapper struct{ v1alpha1.PodNetworkConsumer }

// Consumer starts a consumer (required by the CRD's default).
func Consumer(name string) *ConsumerWrapper {
	return &ConsumerWrapper{v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

// Required says whether transitions wait for the consumer.
func (w *ConsumerWrapper) Required(required bool) *ConsumerWrapper {
	w.Spec.Required = ptr.To(required)
	return w
}

// Obj returns a copy of the consumer.
func (w *ConsumerWrapper) Obj() *v1alpha1.PodNetworkConsumer { return w.PodNetworkConsumer.DeepCopy() }

// NodeWrapper builds a Node.
type NodeWrapper struct{ corev1.Node }

// Node starts a node with no podCIDRs.
func Node(name string) *NodeWrapper {
	return &NodeWrapper{corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

// Labels sets the node's labels.
func (w *NodeWrapper) Labels(labels map[string]string) *NodeWrapper {
	w.ObjectMeta.Labels = labels
	return w
}

// PodCIDRs sets podCIDRs, and podCIDR to the first, as another allocator
// would have left them.
func (w *NodeWrapper) PodCIDRs(cidrs ...string) *NodeWrapper {
	w.Spec.PodCIDRs = cidrs
	w.Spec.PodCIDR = ""
	if len(cidrs) > 0 {
		w.Spec.PodCIDR = cidrs[0]
	}
	return w
}

// InternalIP gives the node an InternalIP address.
func (w *NodeWrapper) InternalIP(addr string) *NodeWrapper {
	w.Status.Addresses = append(w.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: addr})
	return w
}

// Obj returns a copy of the node.
func (w *NodeWrapper) Obj() *corev1.Node { return w.Node.DeepCopy() }
