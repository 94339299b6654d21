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
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Holders returns the names of the nodes drain assist replaces, by name:
// those holding a block in a Draining range of in.Ranges and, under
// familyPolicy AllOrWait, those lacking a family; the nodes whose pods a
// schedule needs.
func Holders(in Input) []string {
	p := newPlanner(&in)
	out := make([]string, 0, len(p.holds))
	for name := range p.holds {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Schedule is the order in which Auto mode replaces the nodes holding
// blocks in Draining ranges (ScheduleOf).
type Schedule struct {
	// Total is the number of nodes drain assist replaces (Plan.Total), and
	// MaxUnavailable spec.drainAssist.maxUnavailable resolved against it.
	Total, MaxUnavailable int
	// InProgress are the holders that take a slot before anything starts:
	// those drain assist started already (marked), and those someone else
	// is deleting. Their State says where they are.
	InProgress []NodePlan
	// Batches are the nodes Auto mode starts, batch after batch.
	Batches []Batch
	// Skipped are the holders it never starts; Reason says why.
	Skipped []NodePlan
	// Unscheduled counts the holders neither started nor skipped: their
	// node or pods were not read (Input.Nodes without Detail).
	Unscheduled int
}

// Batch is one batch of a Schedule.
type Batch struct {
	// MaxUnavailable is maxUnavailable resolved against the holders left
	// when the batch starts: a percentage shrinks with them.
	MaxUnavailable int
	// Nodes are the nodes started, in the order Decide starts them, each
	// with the pods it evicts (Evict) and its handover.
	Nodes []NodePlan
}

// ScheduleOf runs Decide, in Auto mode whatever in.Spec.Mode says, over
// and over on in: after each round the nodes in progress and the nodes it
// started are taken out as if replaced (a replacement gets its block from
// an Active range and holds none), until it starts nothing more. So every
// rule of Decide (maxUnavailable, the order, do-not-disrupt, the
// handover's requirements, NoActiveRange) makes the schedule, and none is
// written twice. A batch is what starts while the previous one is
// replaced; drain assist itself starts the next node as soon as any slot
// frees, so batches are the pace, not a barrier. Only the nodes with a
// Detail can be started: give every holder's (Holders).
func ScheduleOf(in Input) Schedule {
	in.Spec.Mode = v1alpha1.DrainAssistAuto
	in.Deleting, in.Previous = false, nil
	in.Nodes = slices.Clone(in.Nodes)
	plan := Decide(in)
	// The nodes drain assist lets go of (they hold nothing any more, or
	// ask not to be disrupted) free their slots at once: decide again
	// without their mark.
	released := map[string]bool{}
	for i := range plan.Nodes {
		if plan.Nodes[i].Has(StepRelease) {
			released[plan.Nodes[i].Name] = true
		}
	}
	if len(released) > 0 {
		for i := range in.Nodes {
			in.Nodes[i].Marked = in.Nodes[i].Marked && !released[in.Nodes[i].Name]
		}
		plan = Decide(in)
	}
	s := Schedule{Total: plan.Total, MaxUnavailable: plan.MaxUnavailable}
	skipped := map[string]bool{}
	gone := map[string]bool{}
	for i := range plan.Nodes {
		if np := &plan.Nodes[i]; np.Busy && !np.Has(StepStart) && np.Holds() {
			s.InProgress = append(s.InProgress, *np)
			gone[np.Name] = true
		}
	}
	// Each round replaces at least one node, so there are at most as many
	// rounds as nodes.
	for range len(in.Nodes) + 1 {
		b := Batch{MaxUnavailable: plan.MaxUnavailable}
		for i := range plan.Nodes {
			np := &plan.Nodes[i]
			switch {
			case np.Has(StepStart):
				b.Nodes = append(b.Nodes, *np)
				gone[np.Name] = true
			case np.State == v1alpha1.DrainNodeSkipped && np.Holds() && !skipped[np.Name]:
				s.Skipped = append(s.Skipped, *np)
				skipped[np.Name] = true
			}
		}
		if len(b.Nodes) > 0 {
			s.Batches = append(s.Batches, b)
		}
		s.Unscheduled = plan.Waiting
		before := len(in.Nodes)
		in.Nodes = slices.DeleteFunc(in.Nodes, func(n Node) bool { return gone[n.Name] })
		if len(in.Nodes) == before {
			break
		}
		plan = Decide(in)
	}
	return s
}

// RefusingBudget returns the name of a PodDisruptionBudget of the pod's
// namespace that selects it and allows no disruption now
// (status.disruptionsAllowed 0): the Eviction API would refuse its
// eviction (429) until the budget allows one. "" when none does.
func RefusingBudget(pod *corev1.Pod, pdbs []policyv1.PodDisruptionBudget) string {
	name := BlockingBudget(pod, pdbs)
	for i := range pdbs {
		if pdbs[i].Namespace == pod.Namespace && pdbs[i].Name == name && pdbs[i].Status.DisruptionsAllowed <= 0 {
			return name
		}
	}
	return ""
}
