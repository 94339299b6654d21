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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AckResult is a consumer's answer to the current phase of a range.
// +kubebuilder:validation:Enum=Accepted;Rejected
type AckResult string

const (
	// AckAccepted means the consumer has applied the phase (see RangePhase and
	// protocol.go for what applying each phase means).
	AckAccepted AckResult = "Accepted"

	// AckRejected means the consumer cannot apply the phase. Its message says
	// why. A required consumer rejecting Pending keeps the range Pending.
	AckRejected AckResult = "Rejected"
)

// PodNetworkConsumerSpec registers a consumer. It is never empty once stored:
// the apiserver defaults required.
// +kubebuilder:validation:MinProperties=1
type PodNetworkConsumerSpec struct {
	// required says whether range transitions wait for this consumer's
	// acknowledgements. Defaults to true. A consumer that is not required is
	// shown in PodNetwork status but never waited for.
	// +optional
	// +kubebuilder:default=true
	Required *bool `json:"required,omitempty"`

	// description says in words what the consumer is.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Description string `json:"description,omitempty"`
}

// ConsumerRangeStatus is a consumer's acknowledgement of one range. It counts
// only if name, cidr and phase all equal the range's current ones in
// PodNetwork.status.ranges; an acknowledgement of an earlier phase, or of an
// earlier range that had the same name, never counts. It describes the state
// the consumer has currently applied, so each consumer keeps one entry per
// range name and overwrites it as the range moves on.
type ConsumerRangeStatus struct {
	// name is the name of the range.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name,omitempty"`

	// cidr is the prefix of the range, copied from PodNetwork.status.ranges.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=43
	CIDR string `json:"cidr,omitempty"`

	// phase is the phase of the range the consumer has applied (or rejected).
	// +required
	Phase RangePhase `json:"phase,omitempty"`

	// result is Accepted when the consumer has applied the phase and Rejected
	// when it cannot.
	// +required
	Result AckResult `json:"result,omitempty"`

	// message explains the result; it is required in practice for Rejected.
	// Leave it out rather than writing an empty one.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`

	// lastTransitionTime is when phase or result last changed.
	// +optional
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}

// PodNetworkConsumerStatus is written only by the consumer itself, with
// server-side apply under its own field manager. It is never empty: it
// defaults to observedGeneration 0.
// +kubebuilder:validation:MinProperties=1
type PodNetworkConsumerStatus struct {
	// conditions describe the consumer. The consumer sets Ready when it is
	// running and watching the PodNetwork; the operator's view of whether it
	// is in sync is in PodNetwork.status.consumers.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the metadata.generation of this object the
	// consumer last acted on; 0 until the consumer first writes its status.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`

	// ranges are the consumer's acknowledgements, one per range name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Ranges []ConsumerRangeStatus `json:"ranges,omitempty"`
}

// PodNetworkConsumer registers one component that must know the pod network
// (NodeIPAM, kube-proxy, the CNI plugin, ...). Its name is the consumer's
// name. The consumer acknowledges every phase of every range in its status;
// PodNetwork ranges change phase only once every required consumer has
// acknowledged the current one.
//
// The printer columns show what the consumer reports about itself (Ready).
// Whether it is in sync with the current ranges is computed by the operator
// and shown in PodNetwork.status.consumers, because the operator never writes
// a consumer's status.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=pnc
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Required",type=boolean,JSONPath=`.spec.required`,description="Whether transitions wait for this consumer"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Ready condition reported by the consumer"
// +kubebuilder:printcolumn:name="In sync",type=string,JSONPath=`.metadata.labels.podnetwork\.io/in-sync`,description="Whether the consumer acknowledged the current phase of every range (set by the operator)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Description",type=string,priority=10,JSONPath=`.spec.description`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="the name of a PodNetworkConsumer must be a DNS label (at most 63 lower-case alphanumerics or '-')"
type PodNetworkConsumer struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The default of spec is not {}: the apiserver checks a default as
	// written, before the defaults nested in it apply, and an empty spec is
	// not valid (MinProperties=1).

	// spec registers the consumer. When it is left out it defaults to
	// required: true.
	// +optional
	// +kubebuilder:default={required: true}
	Spec PodNetworkConsumerSpec `json:"spec,omitzero"`

	// status holds the consumer's acknowledgements. It defaults to
	// observedGeneration 0, so a consumer that has not answered yet reads as
	// not reconciled to kstatus.
	// +optional
	// +kubebuilder:default={observedGeneration: 0}
	Status PodNetworkConsumerStatus `json:"status,omitzero"`
}

// IsRequired returns spec.required, which defaults to true.
func (c *PodNetworkConsumer) IsRequired() bool {
	return c.Spec.Required == nil || *c.Spec.Required
}

// GetConditions returns the conditions of the consumer.
func (c *PodNetworkConsumer) GetConditions() []metav1.Condition {
	return c.Status.Conditions
}

// SetConditions replaces the conditions of the consumer.
func (c *PodNetworkConsumer) SetConditions(conditions []metav1.Condition) {
	c.Status.Conditions = conditions
}

// +kubebuilder:object:root=true

// PodNetworkConsumerList is a list of PodNetworkConsumers.
type PodNetworkConsumerList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the PodNetworkConsumers.
	Items []PodNetworkConsumer `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &PodNetworkConsumer{}, &PodNetworkConsumerList{})
}
