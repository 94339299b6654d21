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
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/text"
)

// ownConditions are the condition types the lifecycle writes.
var ownConditions = []string{v1alpha1.ReadyCondition, v1alpha1.ProgressingCondition, v1alpha1.DegradedCondition,
	v1alpha1.ReconcilingCondition, v1alpha1.StalledCondition, v1alpha1.DrainAssistCompletePodNetworkCondition}

// conditions returns the previous conditions with the lifecycle's own set to
// what their functions below compute from f. A condition keeps its
// lastTransitionTime while its status stays the same (meta.SetStatusCondition),
// Reconciling and Stalled included: they are present only while true, and a
// time refreshed on every reconcile would make every reconcile a status
// write.
func (c *computer) conditions(f *findings, s *v1alpha1.PodNetworkSummary) []metav1.Condition {
	// Conditions of other types are kept, but never so many that the
	// operator's own would overflow the list's MaxItems: the status write
	// would be refused on every reconcile.
	conds := make([]metav1.Condition, 0, len(c.in.Status.Conditions)+len(ownConditions))
	others := 0
	for _, cond := range c.in.Status.Conditions {
		if !slices.Contains(ownConditions, cond.Type) {
			if others >= maxConditions-len(ownConditions) {
				continue
			}
			others++
		}
		conds = append(conds, *cond.DeepCopy())
	}
	set := func(t string, want *metav1.Condition) {
		if want == nil {
			meta.RemoveStatusCondition(&conds, t)
			return
		}
		want.Type = t
		want.ObservedGeneration = c.in.Generation
		want.LastTransitionTime = c.now
		meta.SetStatusCondition(&conds, *want)
	}
	set(v1alpha1.ReadyCondition, c.ready(f, s))
	set(v1alpha1.ProgressingCondition, c.progressing(f))
	set(v1alpha1.ReconcilingCondition, c.reconciling(f))
	set(v1alpha1.StalledCondition, stalled(f))
	set(v1alpha1.DegradedCondition, degraded(f))
	set(v1alpha1.DrainAssistCompletePodNetworkCondition, drainAssistComplete(c.in.Status.DrainAssist))
	return conds
}

// drainAssistComplete mirrors drain assist's Complete condition
// (status.drainAssist, which drain assist alone writes) into
// status.conditions, which the lifecycle alone writes, so that kubectl wait
// --for=condition=DrainAssistComplete sees it; absent while drain assist
// reports nothing (mode Off).
func drainAssistComplete(da *v1alpha1.DrainAssistStatus) *metav1.Condition {
	if da == nil {
		return nil
	}
	src := meta.FindStatusCondition(da.Conditions, v1alpha1.DrainAssistCompleteCondition)
	if src == nil {
		return nil
	}
	return condition(src.Status, src.Reason, src.Message)
}

func condition(status metav1.ConditionStatus, reason, message string) *metav1.Condition {
	return &metav1.Condition{Status: status, Reason: reason, Message: message}
}

// ready: True when every declared range is Active and nothing waits.
func (c *computer) ready(f *findings, s *v1alpha1.PodNetworkSummary) *metav1.Condition {
	notReady := concat(f.blocking, f.rejections, f.waits)
	switch {
	case c.in.Deleting:
		msg := "The PodNetwork is being deleted and every range has been purged"
		if len(c.entries) > 0 {
			msg = fmt.Sprintf("The PodNetwork is being deleted; %d ranges are still tracked: %s", len(c.entries), joinLines(f.waits))
		}
		return condition(metav1.ConditionFalse, v1alpha1.DeletingReason, text.Truncate(msg, maxConditionMessage))
	case len(f.blocking) > 0:
		return condition(metav1.ConditionFalse, v1alpha1.InvalidRangesReason, joinLines(notReady))
	case len(f.rejections) > 0:
		return condition(metav1.ConditionFalse, v1alpha1.ConsumerRejectedReason, joinLines(notReady))
	case len(f.waits) > 0 || s.ActiveRanges != s.TotalRanges:
		return condition(metav1.ConditionFalse, v1alpha1.TransitionsInProgressReason, joinLines(notReady))
	case s.TotalRanges == 0:
		return condition(metav1.ConditionTrue, v1alpha1.AllRangesActiveReason, "No ranges are configured")
	default:
		return condition(metav1.ConditionTrue, v1alpha1.AllRangesActiveReason, allActiveMessage(s.TotalRanges))
	}
}

// progressing: True while a transition waits only for consumers or nodes.
func (c *computer) progressing(f *findings) *metav1.Condition {
	switch {
	case len(f.waits) > 0 && c.in.Deleting:
		return condition(metav1.ConditionTrue, v1alpha1.DeletingReason, joinLines(f.waits))
	case len(f.waits) > 0:
		return condition(metav1.ConditionTrue, v1alpha1.TransitionsInProgressReason, joinLines(f.waits))
	case len(f.blocking)+len(f.rejections) > 0:
		return condition(metav1.ConditionFalse, v1alpha1.BlockedReason, joinLines(concat(f.blocking, f.rejections)))
	default:
		return condition(metav1.ConditionFalse, v1alpha1.StableReason, "No range is in transition")
	}
}

// reconciling, for kstatus (InProgress): present only while something
// moves.
func (c *computer) reconciling(f *findings) *metav1.Condition {
	switch {
	case len(f.waits) > 0 && c.in.Deleting:
		return condition(metav1.ConditionTrue, v1alpha1.DeletingReason, joinLines(f.waits))
	case len(f.waits) > 0:
		return condition(metav1.ConditionTrue, v1alpha1.TransitionsInProgressReason, joinLines(f.waits))
	}
	return nil
}

// stalled, for kstatus (Failed): present only when nothing moves without an
// edit, and nothing else moves.
func stalled(f *findings) *metav1.Condition {
	switch {
	case len(f.waits) > 0:
		return nil
	case len(f.blocking) > 0:
		return condition(metav1.ConditionTrue, v1alpha1.InvalidRangesReason, joinLines(concat(f.blocking, f.rejections)))
	case len(f.rejections) > 0:
		return condition(metav1.ConditionTrue, v1alpha1.ConsumerRejectedReason, joinLines(f.rejections))
	}
	return nil
}

// degraded: True when something needs attention, with the reason of the
// most pressing kind and every finding in the message. NodeIPAM reports
// podCIDRs that another allocator wrote over blocks it holds; the lifecycle
// surfaces them because one Degraded condition must say everything that
// needs attention.
func degraded(f *findings) *metav1.Condition {
	all := concat(f.invalid, lineTexts(f.specIssues), f.rejections, lineTexts(f.stalls), f.conflicts, f.malformed)
	switch {
	case len(f.invalid)+len(f.specIssues) > 0:
		return condition(metav1.ConditionTrue, v1alpha1.InvalidRangesReason, joinLines(all))
	case len(f.rejections) > 0:
		return condition(metav1.ConditionTrue, v1alpha1.ConsumerRejectedReason, joinLines(all))
	case len(f.stalls) > 0:
		return condition(metav1.ConditionTrue, v1alpha1.TransitionStalledReason, joinLines(all))
	case len(f.conflicts) > 0:
		return condition(metav1.ConditionTrue, v1alpha1.AllocationConflictReason, joinLines(all))
	case len(f.malformed) > 0:
		return condition(metav1.ConditionTrue, v1alpha1.MalformedInputReason, joinLines(all))
	default:
		return condition(metav1.ConditionFalse, v1alpha1.AsExpectedReason, "Nothing needs attention")
	}
}
