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

package autoscale

import (
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Input is everything Decide needs; the caller reads it from the cluster.
type Input struct {
	// Now is the current time.
	Now time.Time

	// Generation is the PodNetwork's metadata.generation, stamped on the
	// pool conditions.
	Generation int64

	// Autoscaling is spec.autoscaling of the PodNetwork.
	Autoscaling v1alpha1.PodNetworkAutoscaling

	// Spec is spec.ranges of the PodNetwork: the admin's ranges.
	Spec []v1alpha1.PodCIDRRange

	// Set is spec.ranges of AutoscaledRangeSet "default".
	Set []v1alpha1.AutoscaledRange

	// Status is the PodNetwork's status: the tracked ranges with their
	// phases and usage, the consumers (which are required) and the previous
	// status.autoscaling (idle clocks, conditions, what was reported).
	Status v1alpha1.PodNetworkStatus

	// Nodes are all nodes.
	Nodes []Node

	// ServiceCIDRs are the prefixes of every ServiceCIDR, including those
	// being deleted.
	ServiceCIDRs []netip.Prefix
}

// Node is what Decide needs to know about one node.
type Node struct {
	// Name is the node's name (a nodeSelector may match on it).
	Name string
	// Labels are the node's labels.
	Labels map[string]string
	// Created is the node's creationTimestamp: arrivals give the demand rate.
	Created time.Time
	// Deleting is true when the node has a deletionTimestamp.
	Deleting bool
	// PodCIDRs is spec.podCIDRs.
	PodCIDRs []netip.Prefix
	// Addresses are the node's InternalIP and ExternalIP addresses, which no
	// carved range may contain.
	Addresses []netip.Addr
}

// Output is what Decide decided.
type Output struct {
	// Set is the new spec.ranges of AutoscaledRangeSet "default".
	Set []v1alpha1.AutoscaledRange
	// SetChanged is true when Set differs from Input.Set.
	SetChanged bool
	// Status is the new status.autoscaling; nil when spec.autoscaling is
	// unset.
	Status *v1alpha1.AutoscalingStatus
	// Events are the events to emit after the writes succeeded, in order.
	Events []Event
	// Steps are the steps taken (or, in Recommend mode, recommended), for
	// the metrics.
	Steps []Step
	// RequeueAfter is when Decide should run again even if nothing changes:
	// the forecast moves with time, idle clocks and cooldowns expire.
	RequeueAfter time.Duration
}

// Event is an event on PodNetwork "default".
type Event struct {
	// Type is corev1.EventTypeNormal or corev1.EventTypeWarning.
	Type string
	// Reason is one of the v1alpha1 autoscaler event reasons.
	Reason string
	// Action is what the autoscaler did, for the events.k8s.io API.
	Action string
	// Message is a sentence for humans.
	Message string
	// Pool is the pool the event is about.
	Pool string
	// Range is the range the event is about, if any.
	Range string
}

// Step is one step of a pool.
type Step struct {
	Pool string
	// Action is Expand, Add or Remove, or Consolidate for the removal of a
	// range an expansion covers.
	Action string
	// Recommended is true in Recommend mode: nothing was written.
	Recommended bool
}

// ActionConsolidate is the Step action of removing a range an Active
// expansion of the same pool strictly contains.
const ActionConsolidate = "Consolidate"

func normal(reason, action, message string) Event {
	return Event{Type: corev1.EventTypeNormal, Reason: reason, Action: action, Message: message}
}

func warning(reason, action, message string) Event {
	return Event{Type: corev1.EventTypeWarning, Reason: reason, Action: action, Message: message}
}
