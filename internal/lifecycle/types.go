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
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/declared"
	"podnetwork.io/operator/internal/statusedit"
)

// DefaultStallAfter is how long a range may wait for a required consumer's
// acknowledgement before the PodNetwork reports Degraded=TransitionStalled.
const DefaultStallAfter = 10 * time.Minute

// Input is everything Compute needs. The caller reads it from the cluster;
// Compute never talks to the API server.
type Input struct {
	// Now is the current time. Phase and condition timestamps use it,
	// truncated to seconds.
	Now time.Time

	// Generation is the metadata.generation of the PodNetwork; it is stamped
	// on the conditions and reported as status.observedGeneration.
	Generation int64

	// Deleting is true when the PodNetwork has a deletionTimestamp. Every
	// range is then treated as removed from the spec.
	Deleting bool

	// Spec are the declared ranges: spec.ranges of the PodNetwork together
	// with the autoscaler's ranges (declared.Union(...).Ranges).
	Spec []v1alpha1.PodCIDRRange

	// Pools maps each range of Spec the autoscaler holds to its pool
	// (declared.Union(...).Pools); status.ranges[].pool shows it.
	Pools map[string]string

	// Shadowed are the entries of spec.ranges the union left out
	// (declared.Union(...).Shadowed); Degraded names them.
	Shadowed []declared.Shadowed

	// Status is the current status of the PodNetwork: its ranges, consumer
	// summaries and conditions are the previous state of the machine.
	Status v1alpha1.PodNetworkStatus

	// Consumers are all PodNetworkConsumers, including the ones being
	// deleted.
	Consumers []Consumer

	// Usage is the block usage per range name as reported by NodeIPAM. When
	// nil the usage already in status is kept; otherwise ranges missing from
	// the map get no usage.
	Usage map[string]v1alpha1.RangeUsage

	// Nodes are all nodes: their pod CIDRs (to find the holders of Draining
	// ranges and foreign nodes) and their addresses (which no range may
	// contain).
	Nodes []Node

	// ServiceCIDRs are all ServiceCIDRs, including the ones being deleted,
	// which may still hold service addresses. No Pending range may overlap
	// them.
	ServiceCIDRs []ServiceCIDR

	// StallAfter is how long a range may wait for a required consumer before
	// Degraded=TransitionStalled. Zero means DefaultStallAfter; a negative
	// value disables stall detection.
	StallAfter time.Duration

	// Edits are the changes other clients made to Status that the operator
	// has not overwritten yet (statusedit.Find on the PodNetwork's
	// managedFields). Compute does not trust what they set: see repair.
	Edits []statusedit.Edit
}

// Consumer is what Compute needs to know about one PodNetworkConsumer.
type Consumer struct {
	// Name is the name of the PodNetworkConsumer.
	Name string
	// Required is spec.required (default true).
	Required bool
	// Deleting is true when the consumer has a deletionTimestamp; it is then
	// no longer waited for nor listed.
	Deleting bool
	// Acks is status.ranges of the consumer.
	Acks []v1alpha1.ConsumerRangeStatus
	// RegisteredAt is when the consumer was created; stall detection waits
	// StallAfter from then at the earliest.
	RegisteredAt time.Time
}

// ConsumerFrom converts a PodNetworkConsumer.
func ConsumerFrom(c *v1alpha1.PodNetworkConsumer) Consumer {
	return Consumer{
		Name:     c.Name,
		Required: c.IsRequired(),
		Deleting: !c.DeletionTimestamp.IsZero(),
		Acks:     c.Status.Ranges,
		// Truncated like every timestamp the lifecycle compares.
		RegisteredAt: c.CreationTimestamp.Time,
	}
}

// Node is what Compute needs to know about one node.
type Node struct {
	// Name is the name of the node.
	Name string
	// PodCIDRs is spec.podCIDRs of the node.
	PodCIDRs []netip.Prefix
	// Addresses are the node's addresses (status.addresses), which must not
	// fall inside a pod range.
	Addresses []netip.Addr
	// UnreadablePodCIDRs are the podCIDRs that could not be read at all
	// (cidr.ObservePrefixes). Nothing tells which addresses they stand for,
	// so the node counts as a holder of every Draining range.
	UnreadablePodCIDRs []string
	// Problems say what is wrong with the podCIDRs and addresses that could
	// not be read, or only in a legacy format; Degraded reports them.
	Problems []string
}

// ServiceCIDR is what Compute needs to know about one ServiceCIDR.
type ServiceCIDR struct {
	// Name is the name of the ServiceCIDR.
	Name string
	// CIDRs is spec.cidrs of the ServiceCIDR.
	CIDRs []netip.Prefix
	// Deleting is true when the ServiceCIDR has a deletionTimestamp.
	Deleting bool
	// Problems say what is wrong with the cidrs that could not be read, or
	// only in a legacy format; Degraded reports them.
	Problems []string
}

// Event reasons. Each event carries the range and/or consumer it is about.
const (
	// EventRangePending (Normal): a spec range is now tracked as Pending.
	EventRangePending = "RangePending"
	// EventRangeInvalid (Warning): a range, or a spec entry, cannot be used;
	// emitted when the problem first appears or changes.
	EventRangeInvalid = "RangeInvalid"
	// EventRangeActivated (Normal): Pending → Active.
	EventRangeActivated = "RangeActivated"
	// EventRangeDraining (Normal): Active → Draining.
	EventRangeDraining = "RangeDraining"
	// EventRangeReactivated (Normal): Draining → Active.
	EventRangeReactivated = "RangeReactivated"
	// EventRangeReleased (Normal): Pending or Draining → Released.
	EventRangeReleased = "RangeReleased"
	// EventRangePurged (Normal): a Released range is no longer tracked.
	EventRangePurged = "RangePurged"
	// EventConsumerRejected (Warning): a consumer rejected the current phase
	// of a range.
	EventConsumerRejected = "ConsumerRejected"
	// EventConsumerRegistered (Normal): a consumer appeared.
	EventConsumerRegistered = "ConsumerRegistered"
	// EventConsumerRemoved (Normal): a consumer is being deleted or is gone,
	// and is no longer waited for.
	EventConsumerRemoved = "ConsumerRemoved"
	// EventTransitionStalled (Warning): a range has waited longer than
	// StallAfter for a required consumer.
	EventTransitionStalled = "TransitionStalled"
	// EventStatusEdited (Warning): another client changed the status; says
	// what the operator did about it.
	EventStatusEdited = "StatusEdited"
	// EventMalformedInput (Warning): a node, a ServiceCIDR or a consumer's
	// acknowledgements hold values the operator cannot read, or reads only
	// in a legacy format; emitted when the problem first appears or changes.
	EventMalformedInput = "MalformedInput"
)

// Transition is one phase change of one range, made by one Compute. Several
// can chain for one range in one Compute (added and activated at once); each
// is recorded, announced by exactly one event and counted once.
type Transition struct {
	// Range and CIDR are the range's name and cidr.
	Range string
	CIDR  string
	// From is the phase the range left; "" for a range that was not
	// tracked and is now Pending.
	From v1alpha1.RangePhase
	// To is the phase the range entered; "" for a Released range that is
	// purged (no longer tracked).
	To v1alpha1.RangePhase
	// FromSince is when the range entered From, as the status said; nil
	// when From is "".
	FromSince *metav1.Time
	// At is when the transition happened: Input.Now, truncated to seconds.
	At metav1.Time
	// Repair is true when the range was moved because its status could not
	// be trusted (another client set it). Its StatusEdited event says why,
	// so it has no transition event; From and FromSince are what the other
	// client wrote, so no duration is measured from them.
	Repair bool
}

// Event is an event the caller should emit (after the status write
// succeeded), regarding the PodNetwork and related to Consumer, if any.
type Event struct {
	// Type is corev1.EventTypeNormal or corev1.EventTypeWarning.
	Type string
	// Reason is one of the Event* constants.
	Reason string
	// Action is what the operator did or observed, for the events.k8s.io API.
	Action string
	// Message is a sentence for humans.
	Message string
	// Range is the name of the range the event is about, if any.
	Range string
	// CIDR is the cidr of that range, if any.
	CIDR string
	// Consumer is the name of the consumer the event is about, if any.
	Consumer string
}

func normal(reason, action, message string) Event {
	return Event{Type: corev1.EventTypeNormal, Reason: reason, Action: action, Message: message}
}

func warning(reason, action, message string) Event {
	return Event{Type: corev1.EventTypeWarning, Reason: reason, Action: action, Message: message}
}

// Output is the new state computed by Compute.
type Output struct {
	// ObservedGeneration is Input.Generation.
	ObservedGeneration int64
	// Ranges is the new status.ranges, sorted by name.
	Ranges []v1alpha1.RangeStatus
	// Consumers is the new status.consumers, sorted by name.
	Consumers []v1alpha1.ConsumerSummary
	// Summary is the new status.summary.
	Summary v1alpha1.PodNetworkSummary
	// Conditions is Input.Status.Conditions with Ready, Progressing and
	// Degraded set (lastTransitionTime kept when the status did not change).
	Conditions []metav1.Condition
	// ForeignNodeCount and ForeignNodes report nodes with a pod CIDR outside
	// every tracked range.
	ForeignNodeCount int32
	ForeignNodes     []string
	// Transitions are the phase changes, in the order they were made. The
	// caller counts them (once each) after the status write that carries
	// them succeeded.
	Transitions []Transition
	// Events are the events to emit, in order, after that write succeeded.
	Events []Event
	// FinalizerRemovable is true when the PodNetwork is being deleted and no
	// range is tracked any more.
	FinalizerRemovable bool
	// RequeueAfter, when positive, is when Compute should run again even if
	// nothing changes (the next stall deadline).
	RequeueAfter time.Duration
}

// ApplyTo writes the output into status. It leaves status.quarantine, which
// NodeIPAM owns, alone.
func (o *Output) ApplyTo(status *v1alpha1.PodNetworkStatus) {
	status.ObservedGeneration = ptr.To(o.ObservedGeneration)
	status.Conditions = o.Conditions
	summary := o.Summary
	status.Summary = &summary
	status.Ranges = o.Ranges
	status.Consumers = o.Consumers
	status.ForeignNodeCount = o.ForeignNodeCount
	status.ForeignNodes = o.ForeignNodes
}
