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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Drain assist (PodNetwork spec.drainAssist, status.drainAssist): Kubernetes
// refuses any change of a node's spec.podCIDRs, so a Draining range is
// released only once the nodes holding blocks in it are replaced. Drain
// assist helps: it cordons those nodes a few at a time, evicts their pods
// through the Eviction API (PodDisruptionBudgets honoured, nothing forced)
// and hands each drained node over to what replaces machines: Karpenter
// (the Node is deleted) or a Cluster API MachineHealthCheck (the Node gets
// the condition PodCIDRReplacementNeeded). Under
// spec.allocation.familyPolicy AllOrWait it replaces the same way the nodes
// that lack an IP family an Active range selecting them has, which is how
// an IPv4 cluster becomes dual-stack. See docs/operations.md.

const (
	// DefaultDrainAssistMaxUnavailable is spec.drainAssist.maxUnavailable
	// when unset: one node at a time.
	DefaultDrainAssistMaxUnavailable = 1

	// DefaultDrainAssistNodeTimeoutSeconds is
	// spec.drainAssist.nodeTimeoutSeconds when unset.
	DefaultDrainAssistNodeTimeoutSeconds int32 = 1800

	// MaxDrainAssistListedNodes is how many nodes status.drainAssist.nodes
	// lists; the counts cover every node.
	MaxDrainAssistListedNodes = 64
)

// What drain assist writes on a node. They are its whole memory: a node
// carrying DrainAssistNodeLabel is one it is working on, whatever restarts
// or fail-overs happened since it started.
const (
	// DrainAssistNodeLabel ("true") marks a node drain assist has started:
	// it counts towards maxUnavailable until it is gone, or released.
	// `kubectl get nodes -l podnetwork.io/drain-assist` lists them.
	DrainAssistNodeLabel = "podnetwork.io/drain-assist"

	// DrainAssistStartedAnnotation holds when drain assist started the
	// node (RFC 3339); nodeTimeoutSeconds counts from it.
	DrainAssistStartedAnnotation = "podnetwork.io/drain-assist-started-at"

	// DrainAssistCordonedAnnotation ("true") says drain assist set the
	// node's spec.unschedulable itself; it uncordons only such a node when
	// it lets go of it. A node someone else cordoned stays cordoned.
	DrainAssistCordonedAnnotation = "podnetwork.io/drain-assist-cordoned"

	// DoNotDisruptAnnotation ("true"), on a node or a pod, keeps drain
	// assist away: it does not start the node, or the node the pod runs
	// on, and lets go of a node it had started. Karpenter's own
	// KarpenterDoNotDisruptAnnotation is honoured the same way.
	DoNotDisruptAnnotation = "podnetwork.io/do-not-disrupt"

	// KarpenterDoNotDisruptAnnotation is Karpenter's do-not-disrupt
	// annotation, on nodes and pods.
	KarpenterDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt"

	// KarpenterNodePoolLabel is the label Karpenter puts on the nodes of
	// its NodeClaims. With the handover Delete, drain assist deletes only a
	// node that has it or KarpenterTerminationFinalizer: deleting any other
	// Node does not replace its machine.
	KarpenterNodePoolLabel = "karpenter.sh/nodepool"

	// KarpenterTerminationFinalizer is the finalizer with which Karpenter
	// drains and terminates the machine of a deleted Node.
	KarpenterTerminationFinalizer = "karpenter.sh/termination"

	// PodCIDRReplacementNeededCondition is the Node condition drain assist
	// sets (status True) with the handover Condition, once the node is
	// drained: a Cluster API MachineHealthCheck that lists it in
	// spec.checks.unhealthyNodeConditions replaces the Machine.
	PodCIDRReplacementNeededCondition = "PodCIDRReplacementNeeded"

	// PodCIDRRangeDrainingReason is the reason of
	// PodCIDRReplacementNeededCondition; its message names the range.
	PodCIDRRangeDrainingReason = "PodCIDRRangeDraining"

	// PodCIDRFamilyMissingReason is the reason of
	// PodCIDRReplacementNeededCondition on a node that holds no podCIDR of
	// an IP family an Active range selecting it has, under
	// spec.allocation.familyPolicy AllOrWait (a conversion to dual-stack);
	// its message names the family and the range.
	PodCIDRFamilyMissingReason = "PodCIDRFamilyMissing"
)

// DrainAssistMode says whether drain assist acts.
// +kubebuilder:validation:Enum=Off;Recommend;Auto
type DrainAssistMode string

const (
	// DrainAssistOff does and reports nothing: the admin replaces the
	// holders of Draining ranges by hand.
	DrainAssistOff DrainAssistMode = "Off"
	// DrainAssistRecommend reports which nodes it would start next (status,
	// the DrainRecommended event, metrics) and changes nothing.
	DrainAssistRecommend DrainAssistMode = "Recommend"
	// DrainAssistAuto cordons, evicts and hands nodes over.
	DrainAssistAuto DrainAssistMode = "Auto"
)

// DrainHandover says what drain assist does with a drained node so that
// it gets replaced.
// +kubebuilder:validation:Enum=Delete;Condition
type DrainHandover string

const (
	// HandoverDelete deletes the Node. Karpenter's termination finalizer
	// then terminates the machine and Karpenter provisions a replacement.
	// Only for nodes Karpenter manages: deleting any other Node leaves its
	// machine running, and its kubelet registers it again with the old
	// network state.
	HandoverDelete DrainHandover = "Delete"
	// HandoverCondition sets the Node condition PodCIDRReplacementNeeded to
	// True, for a Cluster API MachineHealthCheck to remediate (replace)
	// the Machine.
	HandoverCondition DrainHandover = "Condition"
)

// DrainAssist configures drain assist.
//
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:XValidation:rule="!has(self.mode) || self.mode == 'Off' || has(self.handover)",message="handover is required unless mode is Off: Delete (Karpenter replaces a deleted node) or Condition (a Cluster API MachineHealthCheck replaces a node with the PodCIDRReplacementNeeded condition)"
type DrainAssist struct {
	// mode is Off (the default: nothing happens), Recommend (the nodes it
	// would start next are reported, nothing changes) or Auto.
	// +optional
	// +kubebuilder:default=Off
	Mode DrainAssistMode `json:"mode,omitempty"`

	// maxUnavailable is how many of the nodes holding blocks in Draining
	// ranges (and, under familyPolicy AllOrWait, lacking a family) drain
	// assist works on at once, from cordon until the node is gone: a
	// number (at least 1) or a percentage of those nodes ("10%", rounded
	// down, at least one node). Defaults to 1.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 : self.matches('^([1-9][0-9]?|100)%$')",message="maxUnavailable must be a number of nodes of at least 1, or a percentage from 1% to 100% such as \"10%\""
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// nodeTimeoutSeconds is how long a node may take to drain (from
	// cordon to handover), and then to be replaced (from handover until
	// the Node is gone), before drain assist reports it Blocked. It never
	// forces anything: it keeps retrying evictions and waits for help.
	// Defaults to 1800.
	// +optional
	// +kubebuilder:default=1800
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=604800
	NodeTimeoutSeconds int32 `json:"nodeTimeoutSeconds,omitempty"`

	// handover is what drain assist does with a drained node so that it is
	// replaced: Delete deletes the Node (only a node Karpenter manages,
	// labelled karpenter.sh/nodepool or with the karpenter.sh/termination
	// finalizer), Condition sets its condition PodCIDRReplacementNeeded to
	// True for a Cluster API MachineHealthCheck. Required unless mode is
	// Off.
	// +optional
	Handover DrainHandover `json:"handover,omitempty"`
}

// EffectiveMode returns mode or its default, Off.
func (d *DrainAssist) EffectiveMode() DrainAssistMode {
	if d.Mode == "" {
		return DrainAssistOff
	}
	return d.Mode
}

// EffectiveMaxUnavailable returns maxUnavailable resolved against the
// number of nodes holding blocks in Draining ranges: a number as it is, a
// percentage rounded down; at least 1. A value that cannot be read (the
// CRD refuses it) counts as the default.
func (d *DrainAssist) EffectiveMaxUnavailable(nodes int) int {
	v := intstr.FromInt32(DefaultDrainAssistMaxUnavailable)
	if d.MaxUnavailable != nil {
		v = *d.MaxUnavailable
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, nodes, false)
	if err != nil {
		n = DefaultDrainAssistMaxUnavailable
	}
	return max(n, 1)
}

// EffectiveNodeTimeout returns nodeTimeoutSeconds, or its default, as a
// duration.
func (d *DrainAssist) EffectiveNodeTimeout() time.Duration {
	s := DefaultDrainAssistNodeTimeoutSeconds
	if d.NodeTimeoutSeconds != 0 {
		s = d.NodeTimeoutSeconds
	}
	return time.Duration(s) * time.Second
}

// DrainNodeState says where drain assist is with a node.
// +kubebuilder:validation:Enum=Recommended;Draining;Blocked;HandedOver;Skipped
type DrainNodeState string

const (
	// DrainNodeRecommended: Recommend mode would start this node next.
	DrainNodeRecommended DrainNodeState = "Recommended"
	// DrainNodeDraining: drain assist cordoned the node and evicts its
	// pods.
	DrainNodeDraining DrainNodeState = "Draining"
	// DrainNodeBlocked: drain assist started the node and it does not
	// move on by itself: nodeTimeoutSeconds passed (draining, or waiting
	// to be replaced), or its handover is refused. The node still counts
	// towards maxUnavailable.
	DrainNodeBlocked DrainNodeState = "Blocked"
	// DrainNodeHandedOver: the node is drained and was deleted (Delete) or
	// has the condition PodCIDRReplacementNeeded (Condition); it waits to
	// be replaced, and counts towards maxUnavailable until it is gone.
	DrainNodeHandedOver DrainNodeState = "HandedOver"
	// DrainNodeSkipped: drain assist will not start the node (reason
	// says why); it needs the admin.
	DrainNodeSkipped DrainNodeState = "Skipped"
)

// DrainNodeReason says why a node is in its state.
// +kubebuilder:validation:Enum=Evicting;PodsTerminating;EvictionBlocked;EvictionFailed;Timeout;NodeDoNotDisrupt;PodDoNotDisrupt;NotKarpenterManaged;NoActiveRange;Deleted;ReplacementRequested
type DrainNodeReason string

const (
	// DrainReasonEvicting: pods are left to evict.
	DrainReasonEvicting DrainNodeReason = "Evicting"
	// DrainReasonPodsTerminating: every pod left was evicted and is
	// terminating.
	DrainReasonPodsTerminating DrainNodeReason = "PodsTerminating"
	// DrainReasonEvictionBlocked: a PodDisruptionBudget allows no
	// disruption now (the eviction was answered 429); the message names
	// it. Drain assist retries.
	DrainReasonEvictionBlocked DrainNodeReason = "EvictionBlocked"
	// DrainReasonEvictionFailed: an eviction failed otherwise (for example
	// a pod matched by several PodDisruptionBudgets); the message says
	// how. Drain assist retries.
	DrainReasonEvictionFailed DrainNodeReason = "EvictionFailed"
	// DrainReasonTimeout: the node has drained, or waited to be replaced,
	// longer than nodeTimeoutSeconds; the message says what it still waits
	// for.
	DrainReasonTimeout DrainNodeReason = "Timeout"
	// DrainReasonNodeDoNotDisrupt: the node has the do-not-disrupt
	// annotation (podnetwork.io/do-not-disrupt or
	// karpenter.sh/do-not-disrupt).
	DrainReasonNodeDoNotDisrupt DrainNodeReason = "NodeDoNotDisrupt"
	// DrainReasonPodDoNotDisrupt: a pod on the node has the do-not-disrupt
	// annotation; the message names it.
	DrainReasonPodDoNotDisrupt DrainNodeReason = "PodDoNotDisrupt"
	// DrainReasonNotKarpenterManaged: the handover is Delete and nothing
	// says Karpenter manages the node (no karpenter.sh/nodepool label, no
	// karpenter.sh/termination finalizer): deleting it would not replace
	// its machine.
	DrainReasonNotKarpenterManaged DrainNodeReason = "NotKarpenterManaged"
	// DrainReasonNoActiveRange: no Active range of the family of the
	// node's Draining block could give its replacement a block.
	DrainReasonNoActiveRange DrainNodeReason = "NoActiveRange"
	// DrainReasonDeleted: the Node was deleted (handover Delete).
	DrainReasonDeleted DrainNodeReason = "Deleted"
	// DrainReasonReplacementRequested: the Node has the condition
	// PodCIDRReplacementNeeded (handover Condition).
	DrainReasonReplacementRequested DrainNodeReason = "ReplacementRequested"
)

// Drain assist's condition: status.drainAssist.conditions holds Complete,
// and the lifecycle controller mirrors it into status.conditions as
// DrainAssistComplete, so that
// `kubectl wait --for=condition=DrainAssistComplete podnetwork/default`
// waits for every holder of a Draining range to be replaced.
const (
	// DrainAssistCompleteCondition is the type of the condition in
	// status.drainAssist.conditions.
	DrainAssistCompleteCondition = "Complete"

	// DrainAssistCompletePodNetworkCondition is the same condition in
	// status.conditions. It is present only while spec.drainAssist.mode is
	// not Off.
	DrainAssistCompletePodNetworkCondition = "DrainAssistComplete"

	// NoNodesToReplaceReason (True): no node holds a block in a Draining
	// range.
	NoNodesToReplaceReason = "NoNodesToReplace"
	// DrainInProgressReason (False): nodes are being drained, or wait for
	// their turn.
	DrainInProgressReason = "DrainInProgress"
	// AwaitingReplacementReason (False): every node left was handed over
	// and waits for Karpenter or Cluster API to replace it.
	AwaitingReplacementReason = "AwaitingReplacement"
	// NodesBlockedReason (False): a node is Blocked or Skipped and will not
	// move without help; the message names them.
	NodesBlockedReason = "NodesBlocked"
	// RecommendingReason (False): Recommend mode; status.drainAssist.nodes
	// lists the nodes it would start next.
	RecommendingReason = "Recommending"
	// PodNetworkDeletingReason (False): the PodNetwork is being deleted,
	// which drains every range; drain assist does nothing then.
	PodNetworkDeletingReason = "PodNetworkDeleting"
)

// Event reasons of drain assist (reporting controller
// podnetwork-drain-assist).
const (
	// DrainStartedEvent (Normal, on the Node): cordoned, evictions start.
	DrainStartedEvent = "DrainStarted"
	// EvictionBlockedEvent (Warning, on the Node): a PodDisruptionBudget
	// refused an eviction; the note names it.
	EvictionBlockedEvent = "EvictionBlocked"
	// DrainBlockedEvent (Warning, on the Node): the node turned Blocked.
	DrainBlockedEvent = "DrainBlocked"
	// DrainSkippedEvent (Warning, on the Node): the node will not be
	// started (do-not-disrupt, not managed by Karpenter, no Active range).
	DrainSkippedEvent = "DrainSkipped"
	// NodeHandedOverEvent (Normal, on the Node): deleted, or marked
	// PodCIDRReplacementNeeded.
	NodeHandedOverEvent = "NodeHandedOver"
	// DrainReleasedEvent (Normal, on the Node): the node no longer holds a
	// block in a Draining range (the range is back in the spec) or asked
	// not to be disrupted; drain assist let go of it and uncordoned it if
	// it had cordoned it.
	DrainReleasedEvent = "DrainReleased"
	// DrainRecommendedEvent (Normal, on the PodNetwork): Recommend mode
	// would start other nodes than before.
	DrainRecommendedEvent = "DrainRecommended"
	// DrainAssistBlockedEvent (Warning, on the PodNetwork): the condition
	// turned to NodesBlocked.
	DrainAssistBlockedEvent = "DrainAssistBlocked"
	// DrainAssistCompleteEvent (Normal, on the PodNetwork): no node holds a
	// block in a Draining range any more.
	DrainAssistCompleteEvent = "DrainAssistComplete"
)

// DrainNodeStatus is drain assist's report on one node.
type DrainNodeStatus struct {
	// name is the node.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// state is Recommended, Draining, Blocked, HandedOver or Skipped.
	// +required
	State DrainNodeState `json:"state,omitempty"`

	// reason says why the node is in its state.
	// +optional
	Reason DrainNodeReason `json:"reason,omitempty"`

	// message says the same in words: the PodDisruptionBudget that blocks
	// an eviction, the pod that must not be disrupted, how long it waits.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`

	// startTime is when drain assist cordoned the node.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// podsLeft is the number of pods drain assist still has to evict, or
	// waits for while they terminate (DaemonSet and mirror pods are never
	// evicted and not counted).
	// +optional
	// +kubebuilder:validation:Minimum=0
	PodsLeft *int32 `json:"podsLeft,omitempty"`

	// ranges are the Draining ranges the node holds a block in.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=128
	// +kubebuilder:validation:items:MaxLength=63
	Ranges []string `json:"ranges,omitempty"`

	// lacksFamilies are the IP families the node holds no podCIDR of while
	// an Active range selecting it has them, under
	// spec.allocation.familyPolicy AllOrWait: drain assist replaces it so
	// that its replacement gets every family (a conversion to dual-stack).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=2
	LacksFamilies []IPFamily `json:"lacksFamilies,omitempty"`
}

// DrainAssistStatus is drain assist's report. Only drain assist writes it;
// it is left out while mode is Off.
type DrainAssistStatus struct {
	// conditions hold Complete, which the lifecycle mirrors into
	// status.conditions as DrainAssistComplete.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// mode is the mode drain assist acted in.
	// +optional
	Mode DrainAssistMode `json:"mode,omitempty"`

	// handover is the handover it acted with.
	// +optional
	Handover DrainHandover `json:"handover,omitempty"`

	// maxUnavailable is spec.drainAssist.maxUnavailable resolved against
	// total.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxUnavailable int32 `json:"maxUnavailable,omitempty"`

	// total is the number of nodes holding a block in a Draining range
	// and, under spec.allocation.familyPolicy AllOrWait, of the nodes
	// lacking an IP family an Active range selecting them has: the nodes
	// left to replace.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Total *int32 `json:"total,omitempty"`

	// waiting is how many of them drain assist has not started yet.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Waiting *int32 `json:"waiting,omitempty"`

	// draining is how many it cordoned and drains.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Draining *int32 `json:"draining,omitempty"`

	// blocked is how many it started and cannot finish without help.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Blocked *int32 `json:"blocked,omitempty"`

	// handedOver is how many are drained and wait to be replaced: done,
	// as far as drain assist is concerned.
	// +optional
	// +kubebuilder:validation:Minimum=0
	HandedOver *int32 `json:"handedOver,omitempty"`

	// skipped is how many it will not start (do-not-disrupt, not managed
	// by Karpenter, no Active range to replace them from).
	// +optional
	// +kubebuilder:validation:Minimum=0
	Skipped *int32 `json:"skipped,omitempty"`

	// message summarises the counts in one line, for kubectl get -o wide.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`

	// nodes report on the nodes drain assist works on, then the ones it
	// skips, then (Recommend) the ones it would start next: at most 64,
	// keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Nodes []DrainNodeStatus `json:"nodes,omitempty"`
}

// IsSet reports whether spec.drainAssist is configured.
func (d *DrainAssist) IsSet() bool {
	return d.Mode != "" || d.MaxUnavailable != nil || d.NodeTimeoutSeconds != 0 || d.Handover != ""
}
