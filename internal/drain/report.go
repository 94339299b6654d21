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
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/text"
)

// Actions of the events, as events.k8s.io names what was done.
const (
	actionCordon    = "Cordon"
	actionEvict     = "Evict"
	actionHandOver  = "HandOver"
	actionRelease   = "Release"
	actionSkip      = "Skip"
	actionRecommend = "Recommend"
	actionReport    = "Report"
)

// reporter builds a Report.
type reporter struct {
	in      *Input
	plan    *Plan
	now     time.Time
	timeout time.Duration
	prev    map[string]v1alpha1.DrainNodeStatus
	// nodes are the plan's nodes updated with the outcomes.
	nodes  []NodePlan
	events []Event
	// deadline is the earliest future timeout of a node, zero if none.
	deadline time.Time
}

// Summarize turns the plan and what the controller did (results, by node
// name; nil when nothing was done, as in Recommend mode) into the new
// status.drainAssist, the events to emit once it is written, and when to
// look again.
func Summarize(in Input, plan Plan, results map[string]NodeResult) Report {
	r := &reporter{in: &in, plan: &plan, now: in.Now.Truncate(time.Second),
		timeout: in.Spec.EffectiveNodeTimeout(), prev: map[string]v1alpha1.DrainNodeStatus{}}
	if in.Previous != nil {
		for _, s := range in.Previous.Nodes {
			r.prev[s.Name] = s
		}
	}
	st := &v1alpha1.DrainAssistStatus{Mode: plan.Mode, Handover: in.Spec.Handover, MaxUnavailable: int32(plan.MaxUnavailable)}
	c := counts{waiting: plan.Waiting}
	busy := false
	var recommended []string
	for i := range plan.Nodes {
		np := plan.Nodes[i]
		r.outcome(&np, results[np.Name])
		r.overdue(&np)
		r.derivedEvents(&np)
		r.nodes = append(r.nodes, np)
		busy = busy || np.Busy
		if np.State == v1alpha1.DrainNodeRecommended {
			recommended = append(recommended, np.Name)
		}
		if np.Holds() {
			c.add(np.State)
		}
		if np.State != "" {
			st.Nodes = append(st.Nodes, nodeStatus(&np))
		}
	}
	sortListed(st.Nodes)
	if len(st.Nodes) > v1alpha1.MaxDrainAssistListedNodes {
		st.Nodes = st.Nodes[:v1alpha1.MaxDrainAssistListedNodes]
	}
	st.Total, st.Waiting, st.Draining = ptr.To(int32(plan.Total)), ptr.To(int32(c.waiting)), ptr.To(int32(c.draining))
	st.Blocked, st.HandedOver, st.Skipped = ptr.To(int32(c.blocked)), ptr.To(int32(c.handedOver)), ptr.To(int32(c.skipped))
	st.Message = text.Message(r.summary(&c))
	cond := r.condition(&c, recommended)
	if in.Previous != nil {
		st.Conditions = slices.Clone(in.Previous.Conditions)
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	r.conditionEvents(&cond, recommended)

	out := Report{Status: st, Events: r.events}
	if !in.Deleting && (plan.Total > 0 || busy) {
		out.RequeueAfter = in.Poll
		if !r.deadline.IsZero() {
			// Just after the deadline, so that the node is reported overdue.
			if d := r.deadline.Sub(in.Now) + time.Second; out.RequeueAfter <= 0 || d < out.RequeueAfter {
				out.RequeueAfter = d
			}
		}
	}
	return out
}

// counts are the holders by state.
type counts struct {
	waiting, draining, blocked, handedOver, skipped int
}

func (c *counts) add(s v1alpha1.DrainNodeState) {
	switch s {
	case "", v1alpha1.DrainNodeRecommended:
		c.waiting++
	case v1alpha1.DrainNodeDraining:
		c.draining++
	case v1alpha1.DrainNodeBlocked:
		c.blocked++
	case v1alpha1.DrainNodeHandedOver:
		c.handedOver++
	case v1alpha1.DrainNodeSkipped:
		c.skipped++
	}
}

// outcome updates np with what the controller did to it.
func (r *reporter) outcome(np *NodePlan, res NodeResult) {
	if !r.plan.Act {
		r.notActing(np)
		return
	}
	if np.Has(StepStart) {
		if !res.Started {
			// Not started (a conflict: the node changed): it waits.
			np.State, np.Reason, np.Message, np.Busy = "", "", "", false
			return
		}
		np.Marked, np.StartTime = true, r.now
		np.State, np.Reason = v1alpha1.DrainNodeDraining, ""
		verb := "Cordoned"
		if !np.Cordon {
			verb = "Already cordoned; started"
		}
		r.nodeEvent(np.Name, Normal, v1alpha1.DrainStartedEvent, actionCordon, fmt.Sprintf("%s to replace it: %s; %s to evict",
			verb, why(np), pods(np.PodsLeft)))
	}
	if np.Has(StepEvict) && len(res.Evictions) > 0 {
		r.evictions(np, res.Evictions)
	}
	if np.Has(StepHandOver) {
		r.handedOver(np, res)
	}
	if np.Has(StepRelease) {
		r.released(np, res)
	}
}

// notActing words what Recommend mode, or a PodNetwork being deleted,
// would have done to a started node.
func (r *reporter) notActing(np *NodePlan) {
	switch {
	case np.Has(StepRelease) && np.State == "":
		np.State, np.Message = v1alpha1.DrainNodeDraining, np.Message+"; Auto mode would release it"
	case np.Has(StepHandOver) && np.State != v1alpha1.DrainNodeRecommended:
		np.Message += "; Auto mode would " + handoverWords(np.Handover)
	}
}

func handoverWords(h v1alpha1.DrainHandover) string {
	if h == v1alpha1.HandoverCondition {
		return "set its condition " + v1alpha1.PodCIDRReplacementNeededCondition
	}
	return "delete it"
}

// evictions reports the answers of the Eviction API.
func (r *reporter) evictions(np *NodePlan, evs []Eviction) {
	var blocked, failed *Eviction
	for i := range evs {
		switch e := &evs[i]; e.Outcome {
		case Gone:
			np.PodsLeft--
		case Blocked:
			if blocked == nil {
				blocked = e
			}
		case Failed:
			if failed == nil {
				failed = e
			}
		}
	}
	np.PodsLeft = max(np.PodsLeft, 0)
	switch {
	case blocked != nil:
		np.Reason, np.Message = v1alpha1.DrainReasonEvictionBlocked, blockedMessage(blocked)
	case failed != nil:
		np.Reason, np.Message = v1alpha1.DrainReasonEvictionFailed, fmt.Sprintf("Evicting pod %s failed: %s; retrying", failed.Pod.Key(), failed.Message)
	case np.PodsLeft > 0:
		np.Reason, np.Message = v1alpha1.DrainReasonPodsTerminating, pods(np.PodsLeft)+" evicted, terminating"
	default:
		np.Reason, np.Message = "", "Drained; to be handed over"
	}
}

func blockedMessage(e *Eviction) string {
	pdb := "A PodDisruptionBudget"
	if e.PDB != "" {
		pdb = "PodDisruptionBudget " + e.PDB
	}
	return fmt.Sprintf("%s allows no disruption of pod %s now; retrying", pdb, e.Pod.Key())
}

// handedOver reports the handover.
func (r *reporter) handedOver(np *NodePlan, res NodeResult) {
	switch {
	case res.HandedOver:
		np.State, np.HandedOverAt = v1alpha1.DrainNodeHandedOver, r.now
		if np.Handover == v1alpha1.HandoverCondition {
			np.Reason, np.Message = v1alpha1.DrainReasonReplacementRequested, "Its condition "+v1alpha1.PodCIDRReplacementNeededCondition+" is True; waiting for Cluster API to replace it"
			r.nodeEvent(np.Name, Normal, v1alpha1.NodeHandedOverEvent, actionHandOver, "Drained; set condition "+v1alpha1.PodCIDRReplacementNeededCondition+" for Cluster API to replace the node")
		} else {
			np.Reason, np.Message = v1alpha1.DrainReasonDeleted, "Deleted; waiting for Karpenter to replace it"
			r.nodeEvent(np.Name, Normal, v1alpha1.NodeHandedOverEvent, actionHandOver, "Drained; deleted the node for Karpenter to replace it")
		}
	case res.HandOverError != "":
		np.State, np.Reason = v1alpha1.DrainNodeDraining, ""
		np.Message = fmt.Sprintf("Drained; handing it over failed: %s; retrying", res.HandOverError)
	}
}

// released reports the release.
func (r *reporter) released(np *NodePlan, res NodeResult) {
	switch {
	case res.Released:
		r.nodeEvent(np.Name, Normal, v1alpha1.DrainReleasedEvent, actionRelease, np.Message+"; drain assist let go of the node"+
			map[bool]string{true: " and uncordoned it", false: ""}[np.Uncordon])
		np.Marked, np.Busy, np.StartTime, np.HandedOverAt = false, false, time.Time{}, time.Time{}
	case res.ReleaseError != "":
		if np.State == "" {
			np.State = v1alpha1.DrainNodeDraining
		}
		np.Message = fmt.Sprintf("%s; releasing it failed: %s; retrying", np.Message, res.ReleaseError)
	}
}

// overdue reports a started node that has taken longer than
// nodeTimeoutSeconds to drain, or to be replaced once handed over, as
// Blocked. Nothing is forced: evictions go on being retried.
func (r *reporter) overdue(np *NodePlan) {
	var since time.Time
	var what string
	switch {
	case !np.Marked:
		return
	case np.State == v1alpha1.DrainNodeDraining && !np.StartTime.IsZero():
		since, what = np.StartTime, "not drained within %s of being cordoned at %s"
	case np.State == v1alpha1.DrainNodeHandedOver && !np.HandedOverAt.IsZero():
		since, what = np.HandedOverAt, "not replaced within %s of being handed over at %s"
	default:
		return
	}
	deadline := since.Add(r.timeout)
	if !r.now.After(deadline) {
		if r.deadline.IsZero() || deadline.Before(r.deadline) {
			r.deadline = deadline
		}
		return
	}
	msg := fmt.Sprintf(what, r.timeout, since.UTC().Format(time.RFC3339))
	if np.State == v1alpha1.DrainNodeHandedOver {
		msg += "; is " + map[bool]string{true: "a MachineHealthCheck remediating nodes with condition " + v1alpha1.PodCIDRReplacementNeededCondition,
			false: "Karpenter running"}[np.Handover == v1alpha1.HandoverCondition] + "?"
	}
	if np.Reason != v1alpha1.DrainReasonEvictionBlocked && np.Reason != v1alpha1.DrainReasonEvictionFailed {
		np.Reason = v1alpha1.DrainReasonTimeout
	}
	np.State, np.Message = v1alpha1.DrainNodeBlocked, capitalize(msg)+": "+np.Message
}

// derivedEvents announces what changed on a node since the last status:
// a PodDisruptionBudget blocking it, the node turning Blocked, a skip.
func (r *reporter) derivedEvents(np *NodePlan) {
	prev, seen := r.prev[np.Name]
	switch {
	case np.State == v1alpha1.DrainNodeDraining && np.Reason == v1alpha1.DrainReasonEvictionBlocked &&
		(!seen || prev.Reason != np.Reason || prev.Message != np.Message):
		r.nodeEvent(np.Name, Warning, v1alpha1.EvictionBlockedEvent, actionEvict, np.Message)
	case np.State == v1alpha1.DrainNodeBlocked && (!seen || prev.State != np.State):
		r.nodeEvent(np.Name, Warning, v1alpha1.DrainBlockedEvent, actionReport, np.Message)
	case np.State == v1alpha1.DrainNodeSkipped && !np.Has(StepRelease) && (!seen || prev.State != np.State || prev.Reason != np.Reason):
		r.nodeEvent(np.Name, Warning, v1alpha1.DrainSkippedEvent, actionSkip, np.Message)
	}
}

func (r *reporter) nodeEvent(node, typ, reason, action, msg string) {
	r.events = append(r.events, Event{Node: node, Type: typ, Reason: reason, Action: action, Message: text.Message(msg)})
}

// summary is status.drainAssist.message.
func (r *reporter) summary(c *counts) string {
	if r.plan.Total == 0 {
		return r.nothingToReplace()
	}
	return fmt.Sprintf("%d to replace: %d draining, %d blocked, %d handed over, %d waiting, %d skipped (at most %d at a time)",
		r.plan.Total, c.draining, c.blocked, c.handedOver, c.waiting, c.skipped, r.plan.MaxUnavailable)
}

// nothingToReplace says that no node is left to replace.
func (r *reporter) nothingToReplace() string {
	if r.in.FamilyPolicy == v1alpha1.FamilyPolicyAllOrWait {
		return "No node holds a block in a Draining range or lacks a family an Active range selecting it has (familyPolicy AllOrWait)"
	}
	return "No node holds a block in a Draining range"
}

// condition is the Complete condition.
func (r *reporter) condition(c *counts, recommended []string) metav1.Condition {
	cond := metav1.Condition{Type: v1alpha1.DrainAssistCompleteCondition, Status: metav1.ConditionFalse,
		ObservedGeneration: r.in.Generation, LastTransitionTime: metav1.NewTime(r.now)}
	switch {
	case r.in.Deleting:
		cond.Reason, cond.Message = v1alpha1.PodNetworkDeletingReason, "The PodNetwork is being deleted: every range drains, and drain assist replaces no node"
	case r.plan.Total == 0:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, v1alpha1.NoNodesToReplaceReason, r.nothingToReplace()
	case r.plan.Mode == v1alpha1.DrainAssistRecommend:
		cond.Reason = v1alpha1.RecommendingReason
		what := "with blocks in Draining ranges"
		if r.in.FamilyPolicy == v1alpha1.FamilyPolicyAllOrWait {
			what += " or lacking an IP family (familyPolicy AllOrWait)"
		}
		cond.Message = fmt.Sprintf("%s %s; Auto mode would start %s next", nodeCount(r.plan.Total), what, listWords(recommended, "none now"))
	case c.blocked+c.skipped > 0:
		cond.Reason = v1alpha1.NodesBlockedReason
		cond.Message = fmt.Sprintf("%s will not move on without help: %s", nodeCount(c.blocked+c.skipped), r.blockedWords())
	case c.draining+c.waiting > 0:
		cond.Reason, cond.Message = v1alpha1.DrainInProgressReason, capitalize(r.summary(c))
	default:
		cond.Reason, cond.Message = v1alpha1.AwaitingReplacementReason, "Every node left is handed over and waits to be replaced"
	}
	cond.Message = text.Message(cond.Message)
	return cond
}

// blockedWords lists the first blocked and skipped holders with their
// reasons and messages.
func (r *reporter) blockedWords() string {
	const limit = 5
	var parts []string
	n := 0
	for i := range r.nodes {
		np := &r.nodes[i]
		if !np.Holds() || (np.State != v1alpha1.DrainNodeBlocked && np.State != v1alpha1.DrainNodeSkipped) {
			continue
		}
		n++
		if len(parts) < limit {
			parts = append(parts, fmt.Sprintf("%s (%s: %s)", np.Name, np.Reason, np.Message))
		}
	}
	if n > limit {
		parts = append(parts, fmt.Sprintf("and %d more", n-limit))
	}
	return strings.Join(parts, "; ")
}

// conditionEvents announces a change of the condition since the last
// status, and a new recommendation.
func (r *reporter) conditionEvents(cond *metav1.Condition, recommended []string) {
	var prev *metav1.Condition
	var prevRecommended []string
	if r.in.Previous != nil {
		prev = meta.FindStatusCondition(r.in.Previous.Conditions, v1alpha1.DrainAssistCompleteCondition)
		for _, s := range r.in.Previous.Nodes {
			if s.State == v1alpha1.DrainNodeRecommended {
				prevRecommended = append(prevRecommended, s.Name)
			}
		}
	}
	switch {
	case cond.Reason == v1alpha1.NodesBlockedReason && (prev == nil || prev.Reason != cond.Reason):
		r.event(Warning, v1alpha1.DrainAssistBlockedEvent, actionReport, cond.Message)
	case cond.Status == metav1.ConditionTrue && prev != nil && prev.Status == metav1.ConditionFalse:
		r.event(Normal, v1alpha1.DrainAssistCompleteEvent, actionReport, cond.Message)
	}
	slices.Sort(recommended)
	slices.Sort(prevRecommended)
	if len(recommended) > 0 && !slices.Equal(recommended, prevRecommended) {
		r.event(Normal, v1alpha1.DrainRecommendedEvent, actionRecommend, fmt.Sprintf("Auto mode would cordon and drain %s next (at most %d at a time)",
			listWords(recommended, ""), r.plan.MaxUnavailable))
	}
}

func (r *reporter) event(typ, reason, action, msg string) {
	r.events = append(r.events, Event{Type: typ, Reason: reason, Action: action, Message: text.Message(msg)})
}

// nodeStatus is the status entry of a node.
func nodeStatus(np *NodePlan) v1alpha1.DrainNodeStatus {
	s := v1alpha1.DrainNodeStatus{Name: np.Name, State: np.State, Reason: np.Reason, Message: text.Message(np.Message)}
	if !np.StartTime.IsZero() {
		s.StartTime = ptr.To(metav1.NewTime(np.StartTime))
	}
	if np.Marked || np.State == v1alpha1.DrainNodeRecommended {
		s.PodsLeft = ptr.To(int32(np.PodsLeft))
	}
	for _, l := range np.Lacks {
		s.LacksFamilies = append(s.LacksFamilies, l.Family)
	}
	if len(np.Ranges) > 0 {
		s.Ranges = slices.Clone(np.Ranges)
		if len(s.Ranges) > v1alpha1.MaxStatusRanges {
			s.Ranges = s.Ranges[:v1alpha1.MaxStatusRanges]
		}
	}
	return s
}

// stateRank orders the listed nodes: those drain assist works on first.
var stateRank = map[v1alpha1.DrainNodeState]int{
	v1alpha1.DrainNodeBlocked: 0, v1alpha1.DrainNodeDraining: 1, v1alpha1.DrainNodeHandedOver: 2,
	v1alpha1.DrainNodeSkipped: 3, v1alpha1.DrainNodeRecommended: 4,
}

func sortListed(ns []v1alpha1.DrainNodeStatus) {
	slices.SortStableFunc(ns, func(a, b v1alpha1.DrainNodeStatus) int {
		return cmp.Or(cmp.Compare(stateRank[a.State], stateRank[b.State]), cmp.Compare(a.Name, b.Name))
	})
}

// nodeCount is "1 node" or "n nodes".
func nodeCount(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

// listWords lists the first names, or says none.
func listWords(items []string, none string) string {
	const limit = 5
	switch {
	case len(items) == 0:
		return none
	case len(items) > limit:
		return fmt.Sprintf("%s and %d more", strings.Join(items[:limit], ", "), len(items)-limit)
	}
	return strings.Join(items, ", ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
