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

package v1alpha1

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// AutoscaledRangeSetName is the name of the only AutoscaledRangeSet.
	AutoscaledRangeSetName = "default"

	// MaxAutoscaledRanges is the maximum number of ranges in
	// AutoscaledRangeSet.spec.ranges. With MaxSpecRanges it fills
	// MaxStatusRanges.
	MaxAutoscaledRanges = 64
)

// AutoscaledRange is a range the autoscaler added. Once written it never
// changes: the autoscaler removes it by deleting the entry, after which it
// drains like a range removed from PodNetwork spec.ranges.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="an autoscaled range is immutable: delete the entry to retire the range"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || self.nodeMaskSize >= cidr(self.cidr).prefixLength()",message="nodeMaskSize must be at least the prefix length of cidr"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || self.nodeMaskSize <= (cidr(self.cidr).ip().family() == 4 ? 30 : 126)",message="nodeMaskSize must be at most 30 for an IPv4 range and at most 126 for an IPv6 range"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || self.nodeMaskSize <= cidr(self.cidr).prefixLength() + 24",message="nodeMaskSize must be at most 24 bits longer than the prefix length of cidr"
type AutoscaledRange struct {
	// name is the name of the range, "<pool>-<n>", unique among the ranges
	// of this set and of PodNetwork spec.ranges.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name,omitempty"`

	// pool is the name of the pool of spec.autoscaling the range was carved
	// from.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	Pool string `json:"pool,omitempty"`

	// cidr is the prefix of the range in canonical form.
	// +required
	CIDR CIDRString `json:"cidr,omitempty"`

	// nodeMaskSize is the prefix length of the node blocks of the range,
	// always explicit.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=126
	NodeMaskSize int32 `json:"nodeMaskSize,omitempty"`

	// nodeSelector is the pool's nodeSelector when the range was added.
	// +optional
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty"`

	// addedTime is when the autoscaler added the range; with the time the
	// range became Active it gives the lead time of the next step.
	// +required
	AddedTime *metav1.Time `json:"addedTime,omitempty"`
}

// Prefix parses cidr.
func (r *AutoscaledRange) Prefix() (netip.Prefix, error) {
	return netip.ParsePrefix(string(r.CIDR))
}

// AsRange returns the range as it is declared to the lifecycle and NodeIPAM.
func (r *AutoscaledRange) AsRange() PodCIDRRange {
	return PodCIDRRange{Name: r.Name, CIDR: string(r.CIDR), NodeMaskSize: r.NodeMaskSize, NodeSelector: r.NodeSelector.DeepCopy()}
}

// AutoscaledRangeSetSpec holds the ranges the autoscaler added.
//
// +kubebuilder:validation:XValidation:rule="!has(self.ranges) || self.ranges.all(a, self.ranges.all(b, a.name >= b.name || !isCIDR(a.cidr) || !isCIDR(b.cidr) || !(cidr(a.cidr).containsCIDR(cidr(b.cidr)) || cidr(b.cidr).containsCIDR(cidr(a.cidr))) || (cidr(a.cidr).prefixLength() != cidr(b.cidr).prefixLength() && a.nodeMaskSize == b.nodeMaskSize)))",message="ranges must not overlap; the only exception is a range that strictly contains other ranges of the same IP family with the same nodeMaskSize (expansion in place)"
type AutoscaledRangeSetSpec struct {
	// ranges are the ranges the autoscaler added, keyed by name. The
	// lifecycle declares them together with PodNetwork spec.ranges.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Ranges []AutoscaledRange `json:"ranges,omitempty"`
}

// AutoscaledRangeSet holds, in its spec, the ranges the autoscaler added to
// the pod network. It is a singleton named "default" that only the
// autoscaler writes: keeping its ranges out of the PodNetwork's spec means
// no kubectl apply, replace or GitOps sync of the admin's PodNetwork can
// remove them, and keeping them in a spec (not a status) means a backup
// restores them. See docs/autoscaling.md.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=ars
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'default'",message="AutoscaledRangeSet is a singleton: its name must be \"default\""
type AutoscaledRangeSet struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the autoscaled ranges; unset means none.
	// +optional
	Spec *AutoscaledRangeSetSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// AutoscaledRangeSetList is a list of AutoscaledRangeSets.
type AutoscaledRangeSetList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the AutoscaledRangeSets.
	Items []AutoscaledRangeSet `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &AutoscaledRangeSet{}, &AutoscaledRangeSetList{})
}
