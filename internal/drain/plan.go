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

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// planner holds what Candidates and Decide share.
type planner struct {
	in     *Input
	mode   v1alpha1.DrainAssistMode
	ranges ranges
	// holds is what every node holds, by name.
	holds map[string][]held
	total int
	max   int
	// busy counts the nodes that take a slot: every marked node, and every
	// holder someone else is deleting.
	busy int
	// skipped are the nodes the last status reported Skipped.
	skipped map[string]v1alpha1.DrainNodeStatus
}

func newPlanner(in *Input) *planner {
	p := &planner{in: in, mode: in.Spec.EffectiveMode(), ranges: readRanges(in),
		holds: map[string][]held{}, skipped: map[string]v1alpha1.DrainNodeStatus{}}
	for i := range in.Nodes {
		n := &in.Nodes[i]
		hs := p.ranges.holdings(n)
		if len(hs) > 0 {
			p.holds[n.Name] = hs
			p.total++
		}
		if n.Marked || (n.Deleting && len(hs) > 0) {
			p.busy++
		}
	}
	p.max = in.Spec.EffectiveMaxUnavailable(p.total)
	if in.Previous != nil {
		for _, s := range in.Previous.Nodes {
			if s.State == v1alpha1.DrainNodeSkipped {
				p.skipped[s.Name] = s
			}
		}
	}
	return p
}

// free is how many nodes may be started now.
func (p *planner) free() int {
	if p.mode == v1alpha1.DrainAssistOff || p.in.Deleting {
		return 0
	}
	return max(0, p.max-p.busy)
}

// order returns the nodes that could be started, in the order drain
// assist starts them: unmarked holders that are not being deleted, by
// name, those the last status reported Skipped last (so that a few
// do-not-disrupt nodes do not take every look).
func (p *planner) order() []*Node {
	var out []*Node
	for i := range p.in.Nodes {
		n := &p.in.Nodes[i]
		if !n.Marked && !n.Deleting && len(p.holds[n.Name]) > 0 {
			out = append(out, n)
		}
	}
	slices.SortStableFunc(out, func(a, b *Node) int {
		_, sa := p.skipped[a.Name]
		_, sb := p.skipped[b.Name]
		switch {
		case sa == sb:
			return cmp.Compare(a.Name, b.Name)
		case sa:
			return 1
		default:
			return -1
		}
	})
	return out
}

// Candidates returns the unstarted nodes the controller should read whole
// (the node and its pods) for Decide to start: as many as there are free
// slots, plus CandidateMargin, in the order Decide starts them; none while no
// slot is free.
func Candidates(in Input) []string {
	p := newPlanner(&in)
	free := p.free()
	if free == 0 {
		return nil
	}
	var out []string
	for _, n := range p.order() {
		if len(out) == free+CandidateMargin {
			break
		}
		if _, ok := p.ranges.replaceable(p.holds[n.Name]); ok {
			out = append(out, n.Name)
		}
	}
	return out
}

// Decide decides what to do with every node holding a block in a Draining
// range, and with every node drain assist started. It never plans a start
// that would make more than MaxUnavailable nodes take a slot, never starts
// a node twice (a marked node is never started), and plans every marked
// node: it is driven on, reported, or released.
func Decide(in Input) Plan {
	p := newPlanner(&in)
	out := Plan{Mode: p.mode, Act: p.mode == v1alpha1.DrainAssistAuto && !in.Deleting,
		Total: p.total, MaxUnavailable: p.max, Busy: p.busy}
	for i := range in.Nodes {
		n := &in.Nodes[i]
		hs := p.holds[n.Name]
		switch {
		case n.Marked:
			out.Nodes = append(out.Nodes, p.planMarked(n, hs))
		case n.Deleting && len(hs) > 0:
			out.Nodes = append(out.Nodes, NodePlan{Name: n.Name, Ranges: names(hs), Lacks: lacked(hs), Busy: true,
				State: v1alpha1.DrainNodeHandedOver, Reason: v1alpha1.DrainReasonDeleted,
				Message: "Being deleted (not by drain assist); waiting for it to be gone"})
		}
	}
	free := p.free()
	for _, n := range p.order() {
		np, eligible := p.planCandidate(n)
		switch {
		case !eligible && np.State != "":
			out.Nodes = append(out.Nodes, np)
			continue
		case !eligible || free == 0:
			out.Waiting++
			continue
		}
		free--
		out.Busy++
		np.Busy = true
		if out.Act {
			np.Steps = append([]Step{StepStart}, np.Steps...)
		} else {
			np.State, np.Message, np.Steps, np.Evict = v1alpha1.DrainNodeRecommended, "Would be cordoned and drained next: "+np.Message, nil, nil
		}
		out.Nodes = append(out.Nodes, np)
	}
	slices.SortFunc(out.Nodes, func(a, b NodePlan) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// planCandidate plans an unstarted holder: eligible when it may be
// started, with its evictions planned; otherwise its State says why not,
// or is empty while it waits to be read.
func (p *planner) planCandidate(n *Node) (NodePlan, bool) {
	hs := p.holds[n.Name]
	np := NodePlan{Name: n.Name, Ranges: names(hs), Lacks: lacked(hs), Handover: p.in.Spec.Handover}
	skip := func(reason v1alpha1.DrainNodeReason, msg string) (NodePlan, bool) {
		np.State, np.Reason, np.Message = v1alpha1.DrainNodeSkipped, reason, msg
		return np, false
	}
	if fam, ok := p.ranges.replaceable(hs); !ok {
		return skip(v1alpha1.DrainReasonNoActiveRange, fmt.Sprintf("No Active %s range could give a replacement node a block", fam))
	}
	d := n.Detail
	if d == nil {
		if s, ok := p.skipped[n.Name]; ok && s.Reason != v1alpha1.DrainReasonNoActiveRange {
			// Not read this time: the last report stands.
			return skip(s.Reason, s.Message)
		}
		return np, false
	}
	switch {
	case d.DoNotDisrupt != "":
		return skip(v1alpha1.DrainReasonNodeDoNotDisrupt, fmt.Sprintf("The node is annotated %s", d.DoNotDisrupt))
	case p.in.Spec.Handover == v1alpha1.HandoverDelete && !d.KarpenterManaged:
		return skip(v1alpha1.DrainReasonNotKarpenterManaged, notKarpenterMessage)
	case !d.PodsRead:
		return np, false
	}
	left, toEvict, dnd := classify(d.Pods)
	if dnd != nil {
		return skip(v1alpha1.DrainReasonPodDoNotDisrupt, fmt.Sprintf("Pod %s is annotated %s", dnd.Key(), dnd.DoNotDisrupt))
	}
	np.Cordon = !d.Unschedulable
	np.PodsLeft = len(left)
	np.Message = fmt.Sprintf("%s; %s to evict", why(&np), pods(len(left)))
	if len(toEvict) > 0 {
		np.Steps, np.Evict = []Step{StepEvict}, toEvict
	} else if len(left) == 0 {
		// Nothing to evict: started and handed over at once.
		p.handover(&np)
	}
	return np, true
}

// notKarpenterMessage says why a node is not deleted.
const notKarpenterMessage = "Nothing says Karpenter manages the node (no karpenter.sh/nodepool label, no karpenter.sh/termination finalizer): " +
	"deleting it would not replace its machine, whose kubelet would register it again with its old network state"

// planMarked plans a node drain assist started.
func (p *planner) planMarked(n *Node, hs []held) NodePlan {
	np := NodePlan{Name: n.Name, Ranges: names(hs), Lacks: lacked(hs), Marked: true, Busy: true, Handover: p.in.Spec.Handover}
	d := n.Detail
	if d == nil {
		np.State, np.Message = v1alpha1.DrainNodeDraining, "Not read yet"
		return np
	}
	np.StartTime, np.HandedOverAt = d.StartedAt, d.HandedOverAt
	np.Uncordon, np.RemoveCondition = d.CordonedByUs, d.ReplacementRequested
	release := func(state v1alpha1.DrainNodeState, reason v1alpha1.DrainNodeReason, msg string) NodePlan {
		np.Steps = []Step{StepRelease}
		np.State, np.Reason, np.Message = state, reason, msg
		return np
	}
	switch {
	case n.Deleting:
		np.State, np.Reason, np.Message = v1alpha1.DrainNodeHandedOver, v1alpha1.DrainReasonDeleted, "Deleted; waiting for it to be gone"
		return np
	case len(hs) == 0:
		return release("", "", "It no longer holds a block in a Draining range, nor lacks a family (familyPolicy AllOrWait)")
	case d.DoNotDisrupt != "":
		return release(v1alpha1.DrainNodeSkipped, v1alpha1.DrainReasonNodeDoNotDisrupt, fmt.Sprintf("The node is annotated %s", d.DoNotDisrupt))
	case d.ReplacementRequested:
		np.State, np.Reason = v1alpha1.DrainNodeHandedOver, v1alpha1.DrainReasonReplacementRequested
		np.Message = "Its condition " + v1alpha1.PodCIDRReplacementNeededCondition + " is True; waiting for Cluster API to replace it"
		return np
	case !d.PodsRead:
		np.State, np.Message = v1alpha1.DrainNodeDraining, "Its pods were not read"
		return np
	}
	left, toEvict, dnd := classify(d.Pods)
	if dnd != nil {
		return release(v1alpha1.DrainNodeSkipped, v1alpha1.DrainReasonPodDoNotDisrupt, fmt.Sprintf("Pod %s is annotated %s", dnd.Key(), dnd.DoNotDisrupt))
	}
	np.PodsLeft = len(left)
	np.State = v1alpha1.DrainNodeDraining
	switch {
	case len(toEvict) > 0:
		np.Reason, np.Message = v1alpha1.DrainReasonEvicting, pods(len(left))+" left to evict"
		np.Steps, np.Evict = []Step{StepEvict}, toEvict
	case len(left) > 0:
		np.Reason, np.Message = v1alpha1.DrainReasonPodsTerminating, pods(len(left))+" evicted, terminating"
	case np.Handover == v1alpha1.HandoverDelete && !d.KarpenterManaged:
		np.State, np.Reason, np.Message = v1alpha1.DrainNodeBlocked, v1alpha1.DrainReasonNotKarpenterManaged, "Drained, not deleted: "+notKarpenterMessage
	default:
		np.Message = "Drained; to be handed over"
		p.handover(&np)
	}
	return np
}

// handover plans the handover of a drained node.
func (p *planner) handover(np *NodePlan) {
	np.Steps = append(np.Steps, StepHandOver)
	if np.Handover == v1alpha1.HandoverCondition {
		np.ConditionReason, np.ConditionMessage = v1alpha1.PodCIDRRangeDrainingReason, conditionMessage(p.ranges, np.Ranges)
		if len(np.Ranges) == 0 {
			np.ConditionReason, np.ConditionMessage = v1alpha1.PodCIDRFamilyMissingReason, lacksMessage(np.Lacks)
		}
	}
}

// why says why drain assist replaces a node, for messages and events:
// "it holds a block of Draining range old", "it lacks an IPv6 podCIDR;
// familyPolicy AllOrWait (Active range v6 selects it)", or both.
func why(np *NodePlan) string {
	var parts []string
	if len(np.Ranges) > 0 {
		parts = append(parts, "it holds a block of Draining range "+strings.Join(np.Ranges, ", "))
	}
	for _, l := range np.Lacks {
		parts = append(parts, fmt.Sprintf("it lacks an %s podCIDR; familyPolicy AllOrWait (Active range %s selects it)", l.Family, l.Range))
	}
	return strings.Join(parts, ", and ")
}

// lacksMessage is the message of the PodCIDRReplacementNeeded condition of
// a node replaced for a family it lacks.
func lacksMessage(ls []Lack) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, fmt.Sprintf("an %s podCIDR (Active range %s selects the node)", l.Family, l.Range))
	}
	return "The node lacks " + strings.Join(parts, " and ") + " and spec.allocation.familyPolicy is AllOrWait" +
		"; node podCIDRs cannot change, so only a replacement node gets every family"
}

// conditionMessage is the message of the node's PodCIDRReplacementNeeded
// condition: it names the ranges.
func conditionMessage(r ranges, rangeNames []string) string {
	var parts []string
	for _, d := range r.draining {
		if slices.Contains(rangeNames, d.name) {
			parts = append(parts, fmt.Sprintf("%s (%s)", d.name, d.prefix))
		}
	}
	return "The node holds a pod CIDR block of Draining range " + strings.Join(parts, ", ") +
		"; node podCIDRs cannot change, so only a replacement node gets a block of an Active range"
}

// classify sorts a node's pods: left are those drain assist must see gone
// (not DaemonSet, not mirror, not finished), toEvict those of them not yet
// terminating, and dnd the first of those with a do-not-disrupt annotation.
func classify(ps []Pod) (left, toEvict []Pod, dnd *Pod) {
	for i := range ps {
		pod := &ps[i]
		if pod.DaemonSet || pod.Mirror || pod.Finished {
			continue
		}
		left = append(left, *pod)
		if pod.DoNotDisrupt != "" && !pod.Terminating && dnd == nil {
			dnd = pod
		}
		if !pod.Terminating {
			toEvict = append(toEvict, *pod)
		}
	}
	return left, toEvict, dnd
}

func pods(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}
