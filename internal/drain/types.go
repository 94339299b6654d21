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

package drain

import (
	"net/netip"
	"time"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// CandidateMargin is how many unstarted nodes Candidates names beyond the
// free slots, so that a few skipped nodes (do-not-disrupt) do not keep a
// free slot empty for a whole poll interval.
const CandidateMargin = 10

// Input is what Candidates, Decide and Summarize read.
type Input struct {
	// Now is the current time.
	Now time.Time
	// Generation is the PodNetwork's metadata.generation, stamped on the
	// condition.
	Generation int64
	// Spec is spec.drainAssist.
	Spec v1alpha1.DrainAssist
	// Deleting is true when the PodNetwork is being deleted: every range
	// drains then, and drain assist must not replace every node.
	Deleting bool
	// Ranges is status.ranges: the Draining ranges and the Active ones
	// that cover blocks or will give replacements theirs.
	Ranges []v1alpha1.RangeStatus
	// FamilyPolicy is spec.allocation.familyPolicy (empty means
	// Independent). Under AllOrWait a node that holds no podCIDR of a
	// family an Active range selecting it has is replaced like a holder
	// of a Draining range: NodeIPAM gives its replacement every family.
	FamilyPolicy v1alpha1.FamilyPolicy
	// Declared are the declared ranges (spec.ranges with the
	// autoscaler's), for the nodeSelector of each Active range; read only
	// under AllOrWait.
	Declared []v1alpha1.PodCIDRRange
	// Nodes are every node, sorted by name. Whether a node is Marked must
	// come from a fresh read (the controller lists the marked nodes from
	// the API server, not from its cache): it is what maxUnavailable
	// counts.
	Nodes []Node
	// Previous is the status.drainAssist last written, nil if none: events
	// are derived from what changed since, and a node reported Skipped
	// keeps that report while it is not read again.
	Previous *v1alpha1.DrainAssistStatus
	// Poll is how long to wait before looking again while nodes are left
	// to replace: pods are not watched.
	Poll time.Duration
}

// Node is what drain assist knows of a node.
type Node struct {
	// Name is the node's name.
	Name string
	// PodCIDRs are its spec.podCIDRs that could be read.
	PodCIDRs []netip.Prefix
	// Unreadable is true when a podCIDR could not be read: nothing says
	// where the node's block lies, so drain assist never starts it (the
	// lifecycle reports it as MalformedInput).
	Unreadable bool
	// Marked is true when the node carries v1alpha1.DrainAssistNodeLabel:
	// drain assist started it.
	Marked bool
	// Deleting is true when the node has a deletionTimestamp.
	Deleting bool
	// Labels are the node's labels, for the nodeSelectors of the ranges.
	Labels map[string]string
	// Detail is the rest of the node and its pods, read for marked nodes
	// and Candidates only; nil when not read.
	Detail *Detail
}

// Detail is what drain assist reads of a node it works on or may start.
type Detail struct {
	// StartedAt is v1alpha1.DrainAssistStartedAnnotation; zero when absent
	// or unreadable (then no timeout applies).
	StartedAt time.Time
	// CordonedByUs is true when v1alpha1.DrainAssistCordonedAnnotation is
	// "true": drain assist set spec.unschedulable.
	CordonedByUs bool
	// Unschedulable is spec.unschedulable.
	Unschedulable bool
	// DoNotDisrupt is the do-not-disrupt annotation the node carries, ""
	// when none.
	DoNotDisrupt string
	// KarpenterManaged is true when the node has the karpenter.sh/nodepool
	// label or the karpenter.sh/termination finalizer.
	KarpenterManaged bool
	// ReplacementRequested is true when the node's
	// PodCIDRReplacementNeeded condition is True.
	ReplacementRequested bool
	// HandedOverAt is when the node was handed over: its
	// deletionTimestamp, or when its PodCIDRReplacementNeeded condition
	// turned True; zero when it was not.
	HandedOverAt time.Time
	// PodsRead is true when Pods were listed.
	PodsRead bool
	// Pods are the pods bound to the node.
	Pods []Pod
}

// Pod is what drain assist knows of a pod.
type Pod struct {
	Namespace, Name string
	// DaemonSet is true for a pod a DaemonSet controls; Mirror for a
	// static pod's mirror. Neither is ever evicted.
	DaemonSet, Mirror bool
	// DoNotDisrupt is the do-not-disrupt annotation the pod carries, ""
	// when none.
	DoNotDisrupt string
	// Terminating is true when the pod has a deletionTimestamp.
	Terminating bool
	// Finished is true when the pod Succeeded or Failed: it holds nothing.
	Finished bool
}

// Key is "namespace/name".
func (p Pod) Key() string { return p.Namespace + "/" + p.Name }

// Step is one thing the controller does to a node, in the order a
// NodePlan lists them; it stops at the first that fails.
type Step string

const (
	// StepStart labels the node, records the start time and, if Cordon,
	// cordons it: one patch conditional on the node's resourceVersion.
	StepStart Step = "Start"
	// StepEvict evicts NodePlan.Evict through the Eviction API.
	StepEvict Step = "Evict"
	// StepHandOver deletes the node (Delete) or sets its
	// PodCIDRReplacementNeeded condition (Condition).
	StepHandOver Step = "HandOver"
	// StepRelease removes what drain assist wrote on the node: the
	// condition if RemoveCondition, then the label and annotations, and
	// spec.unschedulable if Uncordon.
	StepRelease Step = "Release"
)

// NodePlan is what drain assist plans for one node and how it reports it.
type NodePlan struct {
	Name string
	// Ranges are the Draining ranges the node holds a block in.
	Ranges []string
	// Lacks are the families the node holds no podCIDR of while an Active
	// range selecting it has one (familyPolicy AllOrWait).
	Lacks []Lack
	// Marked is Node.Marked.
	Marked bool
	// Busy is true when the node takes one of the maxUnavailable slots.
	Busy bool
	// State, Reason and Message are the report before the steps run;
	// Summarize updates them from the outcomes. An empty State is a node that
	// waits its turn, counted but not listed.
	State   v1alpha1.DrainNodeState
	Reason  v1alpha1.DrainNodeReason
	Message string
	// StartTime is when drain assist started the node (zero if not), and
	// HandedOverAt when it handed it over: nodeTimeoutSeconds counts from
	// the one of them that applies to State.
	StartTime, HandedOverAt time.Time
	// PodsLeft counts the pods to evict or being evicted.
	PodsLeft int
	// Steps are what to do, in order.
	Steps []Step
	// Cordon: StepStart also sets spec.unschedulable.
	Cordon bool
	// Evict are the pods StepEvict evicts.
	Evict []Pod
	// Handover is how StepHandOver hands the node over;
	// ConditionReason and ConditionMessage are the reason and message of
	// its PodCIDRReplacementNeeded condition.
	Handover         v1alpha1.DrainHandover
	ConditionReason  string
	ConditionMessage string
	// Uncordon and RemoveCondition tell StepRelease what to undo.
	Uncordon, RemoveCondition bool
}

// Lack is a family a node holds no podCIDR of, and the Active range that
// would give a node joining now a block of it.
type Lack struct {
	Family v1alpha1.IPFamily
	Range  string
}

// Holds reports whether the node is one drain assist replaces: it holds a
// block in a Draining range or lacks a family.
func (n *NodePlan) Holds() bool { return len(n.Ranges) > 0 || len(n.Lacks) > 0 }

// Has reports whether the plan has step s.
func (n *NodePlan) Has(s Step) bool {
	for _, x := range n.Steps {
		if x == s {
			return true
		}
	}
	return false
}

// Plan is drain assist's decision (Decide).
type Plan struct {
	// Mode is the effective mode; Act is true when the steps are to be
	// carried out (Auto, and the PodNetwork is not being deleted).
	Mode v1alpha1.DrainAssistMode
	Act  bool
	// Total is the number of nodes holding a block in a Draining range.
	Total int
	// MaxUnavailable is spec.drainAssist.maxUnavailable resolved against
	// Total.
	MaxUnavailable int
	// Busy is how many nodes take a slot after the planned starts (or, in
	// Recommend mode, the recommended ones): never more than
	// MaxUnavailable once one is planned.
	Busy int
	// Nodes are the plans of every node with something to do or report,
	// sorted by name.
	Nodes []NodePlan
	// Waiting counts the holders not started, not skipped.
	Waiting int
}

// EvictionOutcome is how the Eviction API answered.
type EvictionOutcome string

const (
	// Evicted: the eviction was accepted (the pod terminates).
	Evicted EvictionOutcome = "Evicted"
	// Gone: the pod no longer exists, or is another pod by now.
	Gone EvictionOutcome = "Gone"
	// Blocked: 429, a PodDisruptionBudget allows no disruption now.
	Blocked EvictionOutcome = "Blocked"
	// Failed: any other error.
	Failed EvictionOutcome = "Failed"
)

// Eviction is the outcome of one eviction.
type Eviction struct {
	Pod     Pod
	Outcome EvictionOutcome
	// PDB names the PodDisruptionBudget that blocked it, "namespace/name",
	// when known.
	PDB string
	// Message is the API server's answer, for Failed.
	Message string
}

// NodeResult is what the controller did to one node. A step that was not
// tried leaves its field zero.
type NodeResult struct {
	// Started is true when StepStart succeeded; StartError says why it
	// failed otherwise.
	Started    bool
	StartError string
	// Evictions are the outcomes of StepEvict, one per pod tried.
	Evictions []Eviction
	// HandedOver is true when StepHandOver succeeded; HandOverError says
	// why it failed otherwise.
	HandedOver    bool
	HandOverError string
	// Released is true when StepRelease succeeded; ReleaseError says why
	// it failed otherwise.
	Released     bool
	ReleaseError string
}

// Event is an event to emit, after the status write, on a node (Node set)
// or on the PodNetwork.
type Event struct {
	Node    string
	Type    string
	Reason  string
	Action  string
	Message string
}

// Event types, as events.k8s.io names them.
const (
	Normal  = "Normal"
	Warning = "Warning"
)

// Report is what to write and announce after the steps ran (Summarize).
type Report struct {
	// Status is the new status.drainAssist.
	Status *v1alpha1.DrainAssistStatus
	// Events are to be emitted once Status is written.
	Events []Event
	// RequeueAfter is when to look again (0: only on a watch event).
	RequeueAfter time.Duration
}
