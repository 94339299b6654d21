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

// PodNetwork conditions. The operator always writes Ready, Progressing and
// Degraded, so that kubectl wait sees them from the first reconcile on, and
// adds the abnormal-true Reconciling and Stalled, present only while true, as
// kstatus (and so Flux, Argo CD and kpt) reads them: Reconciling=True is
// InProgress, Stalled=True is Failed, Ready=True without either is Current.

const (
	// ReadyCondition is True when every range of the spec is Active, nothing
	// is in transition and the PodNetwork is not being deleted.
	ReadyCondition = "Ready"

	// ProgressingCondition is True while some range moves between phases and
	// the move only waits for consumers or nodes, not for an edit.
	ProgressingCondition = "Progressing"

	// DegradedCondition is True when something needs attention: an invalid
	// range, a rejection by a consumer or a transition that waits too long.
	DegradedCondition = "Degraded"

	// ReconcilingCondition is present, and True, only while some range moves
	// between phases (or the PodNetwork is being deleted with ranges still
	// tracked) and the move waits only for consumers or nodes. Its reason is
	// TransitionsInProgress or Deleting.
	ReconcilingCondition = "Reconciling"

	// StalledCondition is present, and True, only when nothing moves and
	// something blocks a range that only an edit can unblock: an invalid
	// range or a consumer's rejection. Its reason is InvalidRanges or
	// ConsumerRejected.
	StalledCondition = "Stalled"
)

// Reasons of the Ready condition.
const (
	// AllRangesActiveReason (Ready=True) says every spec range is Active and no
	// other range is tracked.
	AllRangesActiveReason = "AllRangesActive"

	// TransitionsInProgressReason (Ready=False, Progressing=True) says some
	// range is Pending, Draining or Released and waits for consumers to
	// acknowledge it or for nodes to give back their blocks.
	TransitionsInProgressReason = "TransitionsInProgress"

	// InvalidRangesReason (Ready=False, Degraded=True) says a spec range
	// cannot be used: it overlaps a ServiceCIDR, a node address or another
	// tracked range, or its name is still tracked with another CIDR.
	InvalidRangesReason = "InvalidRanges"

	// ConsumerRejectedReason (Ready=False, Degraded=True) says a required
	// consumer rejected a range.
	ConsumerRejectedReason = "ConsumerRejected"

	// DeletingReason (Ready=False, Progressing=True) says the PodNetwork is
	// being deleted and its ranges are being drained and released.
	DeletingReason = "Deleting"
)

// Reasons of the Progressing condition (besides TransitionsInProgressReason
// and DeletingReason).
const (
	// StableReason (Progressing=False) says no range is in transition.
	StableReason = "Stable"

	// BlockedReason (Progressing=False) says the only ranges not Active are
	// invalid or rejected; they need an edit of the spec, a ServiceCIDR, a
	// node or a consumer before anything can move.
	BlockedReason = "Blocked"
)

// Reasons of the Degraded condition (besides InvalidRangesReason and
// ConsumerRejectedReason).
const (
	// TransitionStalledReason (Degraded=True) says a range has waited longer
	// than the stall threshold for a required consumer's acknowledgement.
	TransitionStalledReason = "TransitionStalled"

	// AllocationConflictReason (Degraded=True) says NodeIPAM found node
	// podCIDRs it did not assign overlapping blocks it holds for other nodes:
	// another allocator (usually kube-controller-manager with
	// --allocate-node-cidrs) is at work. status.allocationConflicts names the
	// nodes.
	AllocationConflictReason = "AllocationConflict"

	// MalformedInputReason (Degraded=True) says a node, a ServiceCIDR or a
	// consumer's acknowledgements hold values the operator cannot read, or
	// reads only in a legacy format that other programs may read
	// differently. The message names the objects. A node whose podCIDR
	// cannot be read counts as a holder of every Draining range.
	MalformedInputReason = "MalformedInput"

	// AsExpectedReason (Degraded=False) says nothing needs attention.
	AsExpectedReason = "AsExpected"
)

// PodNetworkConsumer conditions, written by the consumer itself.
const (
	// ConsumerReadyCondition is True when the consumer runs, watches the
	// PodNetwork and can apply ranges. It says nothing about whether the
	// consumer has acknowledged the current phases; the operator reports
	// that in PodNetwork.status.consumers.
	ConsumerReadyCondition = "Ready"

	// ConsumerRunningReason (Ready=True) says the consumer runs and applies
	// ranges.
	ConsumerRunningReason = "Running"

	// ConsumerApplyFailedReason (Ready=False) says the consumer failed to apply
	// its configuration; the message says why.
	ConsumerApplyFailedReason = "ApplyFailed"
)

// InSyncLabel is set by the operator on every PodNetworkConsumer to "true"
// when the consumer has acknowledged the current phase of every range, else
// "false" (PodNetwork.status.consumers says why). It is metadata, so the
// consumer stays the only writer of its status, and it makes
// `kubectl get pnc -l podnetwork.io/in-sync=false` list the laggards.
const InSyncLabel = "podnetwork.io/in-sync"
