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
	"fmt"
	"net/netip"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/text"
)

var netipPrefixZero netip.Prefix

func netipParse(s string) (netip.Prefix, error) { return netip.ParsePrefix(s) }

func truncate(s string) string { return text.Message(s) }

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// setCondition sets a pool condition and reports whether its status or
// reason changed (a new problem to announce).
func (d *decider) setCondition(pc *poolContext, t string, status metav1.ConditionStatus, reason, msg string) bool {
	old := meta.FindStatusCondition(pc.st.Conditions, t)
	changed := old == nil || old.Status != status || old.Reason != reason || (status == metav1.ConditionTrue && old.Message != msg)
	meta.SetStatusCondition(&pc.st.Conditions, metav1.Condition{
		Type: t, Status: status, Reason: reason, Message: truncate(msg),
		ObservedGeneration: d.in.Generation, LastTransitionTime: d.now,
	})
	return changed
}

// exhausted sets the Exhausted condition: True with reason and msg, or
// False when reason is empty. It emits PoolExhausted when the condition
// turns True or its reason changes.
func (d *decider) exhausted(pc *poolContext, reason, msg string) {
	if reason == "" {
		d.setCondition(pc, v1alpha1.PoolExhaustedCondition, metav1.ConditionFalse, v1alpha1.HasRoomReason, "The pool has room for its next step, or needs none")
		return
	}
	old := meta.FindStatusCondition(pc.st.Conditions, v1alpha1.PoolExhaustedCondition)
	announce := old == nil || old.Status != metav1.ConditionTrue || old.Reason != reason
	d.setCondition(pc, v1alpha1.PoolExhaustedCondition, metav1.ConditionTrue, reason, msg)
	if announce {
		ev := warning(v1alpha1.PoolExhaustedEvent, "Grow", fmt.Sprintf("Pool %q: %s", pc.p.Name, lowerFirst(msg)))
		ev.Pool = pc.p.Name
		d.events = append(d.events, ev)
	}
}

// setBlocked sets the Blocked condition: True with reason and msg, or
// False when reason is empty. It emits PoolBlocked when the condition turns
// True or says something new.
func (d *decider) setBlocked(pc *poolContext, reason, msg string) {
	if reason == "" {
		d.setCondition(pc, v1alpha1.PoolBlockedCondition, metav1.ConditionFalse, v1alpha1.NotBlockedReason, "No range of the pool was rejected or found invalid")
		return
	}
	if d.setCondition(pc, v1alpha1.PoolBlockedCondition, metav1.ConditionTrue, reason, msg) {
		ev := warning(v1alpha1.PoolBlockedEvent, "Grow", fmt.Sprintf("Pool %q stopped growing: %s", pc.p.Name, lowerFirst(msg)))
		ev.Pool = pc.p.Name
		d.events = append(d.events, ev)
	}
}

// recommendationEvent emits RangeRecommended when the step Recommend mode
// reports changed.
func (d *decider) recommendationEvent(pc *poolContext) {
	rec := pc.st.Recommendation
	if rec == (v1alpha1.AutoscalingRecommendation{}) || (pc.prev != nil && pc.prev.Recommendation == rec) {
		return
	}
	ev := normal(v1alpha1.RangeRecommendedEvent, "Recommend", fmt.Sprintf("Pool %q (Recommend mode): %s", pc.p.Name, lowerFirst(pc.st.Message)))
	ev.Pool, ev.Range = pc.p.Name, rec.Range
	d.events = append(d.events, ev)
}

// numbers describes the pool's forecast in words.
func numbers(f forecast) string {
	s := fmt.Sprintf("%d of %d blocks free", f.free, f.capacity)
	if f.waiting > 0 {
		s += fmt.Sprintf(", %d nodes waiting", f.waiting)
	}
	if f.rate > 0 {
		e, _ := f.exhaustion()
		s += fmt.Sprintf(", %.1f nodes/min arriving, exhaustion forecast in %s (lead time %s)", f.rate*60, e.Round(time.Second), f.lead)
	}
	return s
}

// growthReason says why the pool grows.
func (d *decider) growthReason(pc *poolContext) string {
	f := pc.forecast
	if f.capacity == 0 {
		return "No Active range serves the pool's nodes"
	}
	return fmt.Sprintf("%s: the free blocks forecast %s ahead (%.0f) fall below the grow threshold",
		capitalize(numbers(f)), lookAheadLeadTimes*f.lead, f.projected())
}

func (d *decider) steadyMessage(pc *poolContext) string {
	return capitalize(numbers(pc.forecast))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// summaryLine is a pool's part of status.autoscaling.message.
func summaryLine(st *v1alpha1.AutoscalingPoolStatus) string {
	s := fmt.Sprintf("%s %s", st.Name, st.State)
	if st.FreeBlocks != nil && st.CapacityBlocks != nil {
		s += fmt.Sprintf(" %d/%d free", *st.FreeBlocks, *st.CapacityBlocks)
	}
	if st.ExhaustionSeconds != nil {
		s += fmt.Sprintf(", exhausted in %s", (time.Duration(*st.ExhaustionSeconds) * time.Second).String())
	}
	if st.Recommendation.Action != "" {
		s += fmt.Sprintf(", would %s %s", strings.ToLower(string(st.Recommendation.Action)), st.Recommendation.CIDR)
	}
	return s
}
