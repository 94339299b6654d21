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

package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/drain"
)

// DrainSchedule is how drain assist would replace the nodes that hold
// blocks in Draining ranges once a change settles: PlanReport's
// drainSchedule. It is internal/drain's own decision (drain.ScheduleOf)
// on what the plugin read, with the PodDisruptionBudgets that would
// refuse an eviction today.
type DrainSchedule struct {
	// Mode and Handover are spec.drainAssist's once the change is applied.
	// The batches are what mode Auto does, whatever Mode says.
	Mode     v1alpha1.DrainAssistMode `json:"mode"`
	Handover v1alpha1.DrainHandover   `json:"handover,omitempty"`
	// MaxUnavailable is spec.drainAssist.maxUnavailable as written ("1"
	// when unset, or a percentage), MaxUnavailableNodes that resolved
	// against Nodes.
	MaxUnavailable      string `json:"maxUnavailable"`
	MaxUnavailableNodes int    `json:"maxUnavailableNodes"`
	// NodeTimeoutSeconds is how long a node may take to drain, and then to
	// be replaced, before drain assist reports it Blocked.
	NodeTimeoutSeconds int64 `json:"nodeTimeoutSeconds"`
	// Nodes counts the nodes drain assist replaces: holding a block in a
	// Draining range or, under familyPolicy AllOrWait, lacking a family.
	Nodes int `json:"nodes"`
	// InProgress are the nodes drain assist started already, or someone
	// else deletes: they take their slots first.
	InProgress []DrainNodePlan `json:"inProgress"`
	// Batches are the nodes drain assist starts, batch after batch.
	Batches []DrainBatch `json:"batches"`
	// Skipped are the nodes it never starts; they keep their ranges
	// Draining until someone replaces them.
	Skipped []DrainNodePlan `json:"skipped"`
	// Warnings say what needs the admin before or during the drain.
	Warnings []string `json:"warnings"`
	// Unreadable are the pods or PodDisruptionBudgets the plugin was not
	// allowed to read: the schedule then leaves out what depends on them.
	Unreadable []Unreadable `json:"unreadable,omitempty"`
}

// DrainBatch is one batch of the schedule.
type DrainBatch struct {
	// MaxUnavailable is maxUnavailable resolved against the nodes left
	// when the batch starts: a percentage shrinks with them.
	MaxUnavailable int             `json:"maxUnavailable"`
	Nodes          []DrainNodePlan `json:"nodes"`
}

// DrainNodePlan is what drain assist would do with one node.
type DrainNodePlan struct {
	Name string `json:"name"`
	// Ranges are the Draining ranges the node holds a block in; Lacks the
	// families it holds no block of while an Active range selecting it
	// has one (familyPolicy AllOrWait), "IPv6 (range v6)".
	Ranges []string `json:"ranges"`
	Lacks  []string `json:"lacks,omitempty"`
	// State, Reason and Message are drain assist's report on a node in
	// progress or skipped, as status.drainAssist.nodes would have it.
	State   v1alpha1.DrainNodeState  `json:"state,omitempty"`
	Reason  v1alpha1.DrainNodeReason `json:"reason,omitempty"`
	Message string                   `json:"message,omitempty"`
	// PodsToEvict counts the pods it would evict (never a DaemonSet's, a
	// mirror or a finished pod); absent when the pods could not be read.
	PodsToEvict *int `json:"podsToEvict,omitempty"`
	// BlockedBy are the PodDisruptionBudgets that allow no disruption now
	// of a pod it would evict: the Eviction API refuses (429) until they
	// do, and the node waits.
	BlockedBy []BudgetBlock `json:"blockedBy,omitempty"`
}

// BudgetBlock is a PodDisruptionBudget that blocks the eviction of pods.
type BudgetBlock struct {
	// PodDisruptionBudget is "namespace/name".
	PodDisruptionBudget string `json:"podDisruptionBudget"`
	// Pods are the pods it protects on the node, "namespace/name".
	Pods []string `json:"pods"`
}

// DrainReads is what the schedule reads beyond the Cluster.
type DrainReads struct {
	// Pods are the pods of the nodes DrainHolders named, by node name.
	Pods map[string][]corev1.Pod
	// PodsRead is false when the pods could not be read; PDBsRead when
	// the PodDisruptionBudgets could not.
	PodsRead, PDBsRead bool
	// PDBs are every PodDisruptionBudget.
	PDBs []policyv1.PodDisruptionBudget
	// Unreadable says what could not be read and why.
	Unreadable []Unreadable
}

// ResourcePDBs names PodDisruptionBudgets in Unreadable.
const ResourcePDBs = "poddisruptionbudgets"

// DrainHolders returns the nodes drain assist replaces once the plan p of
// spec settles (drain.Holders): those holding a block in a range it
// leaves Draining and, under familyPolicy AllOrWait, those lacking a
// family; the nodes whose pods the schedule needs.
func DrainHolders(c *Cluster, p *PlanReport, spec v1alpha1.PodNetworkSpec) []string {
	return drain.Holders(drainInput(c, p, spec, nil))
}

// PlanDrain returns the drain schedule of the plan p of spec, the proposed
// spec (its drainAssist, its familyPolicy, its ranges); nil when drain
// assist would replace no node.
func PlanDrain(c *Cluster, p *PlanReport, spec v1alpha1.PodNetworkSpec, reads DrainReads) *DrainSchedule {
	s := drain.ScheduleOf(drainInput(c, p, spec, &reads))
	if s.Total == 0 {
		return nil
	}
	da := spec.DrainAssist
	out := &DrainSchedule{
		Mode: da.EffectiveMode(), Handover: da.Handover, MaxUnavailable: strconv.Itoa(v1alpha1.DefaultDrainAssistMaxUnavailable),
		MaxUnavailableNodes: s.MaxUnavailable, NodeTimeoutSeconds: seconds(da.EffectiveNodeTimeout()), Nodes: s.Total,
		InProgress: []DrainNodePlan{}, Batches: []DrainBatch{}, Skipped: []DrainNodePlan{}, Warnings: []string{},
		Unreadable: reads.Unreadable,
	}
	if da.MaxUnavailable != nil {
		out.MaxUnavailable = da.MaxUnavailable.String()
	}
	pods := podIndex(reads)
	for i := range s.InProgress {
		out.InProgress = append(out.InProgress, drainNodePlan(&s.InProgress[i], true, reads, pods))
	}
	for _, b := range s.Batches {
		batch := DrainBatch{MaxUnavailable: b.MaxUnavailable, Nodes: []DrainNodePlan{}}
		for i := range b.Nodes {
			batch.Nodes = append(batch.Nodes, drainNodePlan(&b.Nodes[i], false, reads, pods))
		}
		out.Batches = append(out.Batches, batch)
	}
	for i := range s.Skipped {
		out.Skipped = append(out.Skipped, drainNodePlan(&s.Skipped[i], true, reads, pods))
	}
	out.Warnings = drainWarnings(out, reads)
	return out
}

// drainInput is drain assist's Input once the plan settles: the ranges in
// their eventual phases (a range the plan purges is gone), the proposed
// spec's drainAssist, familyPolicy and declared ranges, every node read
// whole with its pods when reads has them. When the pods could not be
// read, a node not started yet is given none, so that the node's own rules
// still schedule it (its PodsToEvict is left out), and a started one is
// reported as drain assist reports a node whose pods it could not read.
func drainInput(c *Cluster, p *PlanReport, spec v1alpha1.PodNetworkSpec, reads *DrainReads) drain.Input {
	in := drain.Input{Spec: spec.DrainAssist, FamilyPolicy: spec.Allocation.EffectiveFamilyPolicy(), Declared: c.Declared(spec.Ranges).Ranges}
	for _, r := range p.Ranges {
		if r.Eventually == Purged || r.Eventually == "" {
			continue
		}
		rs := v1alpha1.RangeStatus{Name: r.Name, CIDR: r.CIDR, Phase: r.Eventually}
		if r.Invalid != "" {
			// Drain assist leaves an invalid range's nodes alone.
			rs.InvalidReason = v1alpha1.RangeInvalidReason(strings.SplitN(r.Invalid, ":", 2)[0])
		}
		in.Ranges = append(in.Ranges, rs)
	}
	podsRead := reads != nil && reads.PodsRead
	for i := range c.Nodes {
		n := &c.Nodes[i]
		var pods []corev1.Pod
		if reads != nil {
			pods = reads.Pods[n.Name]
		}
		_, started := n.Labels[v1alpha1.DrainAssistNodeLabel]
		in.Nodes = append(in.Nodes, drain.FullNodeFrom(n, pods, podsRead || !started))
	}
	slices.SortFunc(in.Nodes, func(a, b drain.Node) int { return cmp.Compare(a.Name, b.Name) })
	return in
}

// podIndex finds the pods read by "namespace/name".
func podIndex(reads DrainReads) map[string]*corev1.Pod {
	ix := map[string]*corev1.Pod{}
	for _, pods := range reads.Pods {
		for i := range pods {
			ix[pods[i].Namespace+"/"+pods[i].Name] = &pods[i]
		}
	}
	return ix
}

// drainNodePlan reports a node of the schedule; report keeps drain
// assist's state, reason and message (in progress, skipped).
func drainNodePlan(np *drain.NodePlan, report bool, reads DrainReads, pods map[string]*corev1.Pod) DrainNodePlan {
	out := DrainNodePlan{Name: np.Name, Ranges: slices.Clone(np.Ranges)}
	if out.Ranges == nil {
		out.Ranges = []string{}
	}
	for _, l := range np.Lacks {
		out.Lacks = append(out.Lacks, fmt.Sprintf("%s (range %s)", l.Family, l.Range))
	}
	if report {
		out.State, out.Reason, out.Message = np.State, np.Reason, np.Message
	}
	if !reads.PodsRead || np.State == v1alpha1.DrainNodeSkipped {
		return out
	}
	out.PodsToEvict = ptr.To(len(np.Evict))
	for _, pod := range np.Evict {
		p := pods[pod.Key()]
		if p == nil {
			continue
		}
		name := drain.RefusingBudget(p, reads.PDBs)
		if name == "" {
			continue
		}
		key := p.Namespace + "/" + name
		i := slices.IndexFunc(out.BlockedBy, func(b BudgetBlock) bool { return b.PodDisruptionBudget == key })
		if i < 0 {
			out.BlockedBy = append(out.BlockedBy, BudgetBlock{PodDisruptionBudget: key})
			i = len(out.BlockedBy) - 1
		}
		out.BlockedBy[i].Pods = append(out.BlockedBy[i].Pods, pod.Key())
	}
	return out
}

// drainWarnings says what needs the admin: a mode that does not act, a
// handover that needs Karpenter or a MachineHealthCheck, skipped nodes
// that keep their ranges Draining, PodDisruptionBudgets that block, what
// could not be read.
func drainWarnings(s *DrainSchedule, reads DrainReads) []string {
	out := []string{}
	switch s.Mode {
	case v1alpha1.DrainAssistOff:
		out = append(out, "drain assist is Off (spec.drainAssist.mode): nothing replaces these nodes; replace them yourself, "+
			"or set mode Auto with a handover (docs/operations.md#retire-a-range-hands-free); the batches are what Auto would do")
	case v1alpha1.DrainAssistRecommend:
		out = append(out, "drain assist is in mode Recommend: it reports the next nodes and changes nothing; the batches are what Auto would do")
	}
	var notKarpenter []string
	for _, n := range s.Skipped {
		if n.Reason == v1alpha1.DrainReasonNotKarpenterManaged {
			notKarpenter = append(notKarpenter, n.Name)
		}
	}
	if len(notKarpenter) > 0 {
		pronoun := map[bool]string{true: "it", false: "them"}[len(notKarpenter) == 1]
		out = append(out, fmt.Sprintf("handover Delete: no Karpenter NodeClaim owns %s (no karpenter.sh/nodepool label, no karpenter.sh/termination finalizer), "+
			"so drain assist will not delete %s: deleting a Node does not replace its machine, whose kubelet registers it again with its old network state. "+
			"Replace %s through %s node group, or use handover Condition with Cluster API",
			list(notKarpenter, len(notKarpenter), 10), pronoun, pronoun, map[bool]string{true: "its", false: "their"}[len(notKarpenter) == 1]))
	}
	if s.Handover == v1alpha1.HandoverCondition && s.Mode != v1alpha1.DrainAssistOff {
		out = append(out, fmt.Sprintf("handover Condition: up to %s at a time get the condition %s; the MachineHealthCheck that remediates them "+
			"must allow at least as many unhealthy Machines (remediation.triggerIf), or it stops remediating",
			count(s.MaxUnavailableNodes, "node"), v1alpha1.PodCIDRReplacementNeededCondition))
	}
	if n := len(s.Skipped); n > 0 {
		out = append(out, fmt.Sprintf("%s will be skipped: %s Draining until %s replaced by hand, or the reason is gone",
			count(n, "node"), map[bool]string{true: "it keeps its ranges", false: "they keep their ranges"}[n == 1], map[bool]string{true: "it is", false: "they are"}[n == 1]))
	}
	blocked := map[string][]string{}
	var budgets []string
	for _, n := range s.allNodes() {
		for _, b := range n.BlockedBy {
			if _, seen := blocked[b.PodDisruptionBudget]; !seen {
				budgets = append(budgets, b.PodDisruptionBudget)
			}
			blocked[b.PodDisruptionBudget] = append(blocked[b.PodDisruptionBudget], n.Name)
		}
	}
	for _, b := range budgets {
		out = append(out, fmt.Sprintf("PodDisruptionBudget %s allows no disruption now: %s would wait for it, and be reported Blocked after %s",
			b, list(blocked[b], len(blocked[b]), 10), ageOf(s.NodeTimeoutSeconds)))
	}
	if !reads.PodsRead {
		out = append(out, "the pods of these nodes could not be read: pods annotated do-not-disrupt and the PodDisruptionBudgets they fall under are not checked")
	} else if !reads.PDBsRead {
		out = append(out, "the PodDisruptionBudgets could not be read: which of them would block an eviction is not checked")
	}
	return out
}

// allNodes are every node of the schedule, in progress first.
func (s *DrainSchedule) allNodes() []DrainNodePlan {
	out := slices.Clone(s.InProgress)
	for _, b := range s.Batches {
		out = append(out, b.Nodes...)
	}
	return out
}
