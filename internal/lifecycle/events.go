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
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/text"
)

// events derives the events of one Compute from what it changed, in this
// order: the StatusEdited events of repair (which explain the phase changes
// it made, and answer Input.Edits), one event per transition, the new
// problems and rejections of each range, the problems only Degraded records
// when Degraded changes, and the consumers that appeared or went. Apart from
// the answers to Input.Edits, each is about a difference between the
// previous status (Input.Status) and the new one, so a status that does not
// change announces nothing; the caller emits them only after the status
// write that carries the change, conditional on the resourceVersion the
// change was computed from, succeeded, so a decision computed from a stale
// read announces nothing either.
func (c *computer) events(out *Output, f *findings) []Event {
	evs := slices.Clone(c.repairs)
	for _, t := range c.transitions {
		if ev, ok := c.transitionEvent(t); ok {
			evs = append(evs, ev)
		}
	}
	for _, name := range c.sortedNames() {
		evs = append(evs, rangeEvents(c.entries[name])...)
	}
	evs = append(evs, degradedEvents(
		meta.FindStatusCondition(c.in.Status.Conditions, v1alpha1.DegradedCondition),
		meta.FindStatusCondition(out.Conditions, v1alpha1.DegradedCondition), f)...)
	evs = append(evs, c.consumerEvents(out.Consumers)...)
	// A note the API refuses loses the event; the status has the whole text.
	for i := range evs {
		evs[i].Message = text.Message(evs[i].Message)
	}
	return evs
}

// transitionEvent is the one event that announces t. A repair has none: its
// StatusEdited event says what was done and why.
func (c *computer) transitionEvent(t Transition) (Event, bool) {
	if t.Repair {
		return Event{}, false
	}
	id := fmt.Sprintf("Range %q (%s)", t.Range, t.CIDR)
	var ev Event
	switch {
	case t.From == "":
		ev = normal(EventRangePending, "Track", id+" was added to the spec and is Pending")
	case t.To == "":
		ev = normal(EventRangePurged, "Purge", id+" was removed from every required consumer's configuration and is no longer tracked")
	case t.From == v1alpha1.RangePhasePending && t.To == v1alpha1.RangePhaseActive:
		ev = normal(EventRangeActivated, "Activate", id+" is Active: every required consumer accepted it")
	case t.From == v1alpha1.RangePhasePending && t.To == v1alpha1.RangePhaseReleased:
		ev = normal(EventRangeReleased, "Release", id+" left the spec before it became Active and is Released")
	case t.From == v1alpha1.RangePhaseActive && t.To == v1alpha1.RangePhaseDraining:
		why := "left the spec"
		if c.in.Deleting {
			why = "is being removed because the PodNetwork is being deleted"
		}
		ev = normal(EventRangeDraining, "Drain", id+" "+why+" and is Draining: no new node blocks are allocated from it")
	case t.From == v1alpha1.RangePhaseDraining && t.To == v1alpha1.RangePhaseActive:
		ev = normal(EventRangeReactivated, "Reactivate", id+" is back in the spec and Active again")
	case t.From == v1alpha1.RangePhaseDraining && t.To == v1alpha1.RangePhaseReleased:
		ev = normal(EventRangeReleased, "Release",
			id+" is Released: every required consumer stopped placing addresses in it and no node holds a block in it")
	default:
		// The state machine makes no other transition.
		return Event{}, false
	}
	ev.Range, ev.CIDR = t.Range, t.CIDR
	return ev, true
}

// rangeEvents announces the problem (invalidReason and invalidMessage) and
// the rejections of e that differ from its previous status entry: new, or
// changed, or of a range that moved.
func rangeEvents(e *entry) []Event {
	var evs []Event
	prev := e.prev
	same := prev != nil && !e.moved && prev.CIDR == e.st.CIDR && prev.Phase == e.st.Phase
	if e.st.InvalidReason != "" && !(same && prev.InvalidReason == e.st.InvalidReason && prev.InvalidMessage == e.st.InvalidMessage) {
		msg := fmt.Sprintf("Range %q (%s) cannot be used: %s", e.st.Name, e.st.CIDR, e.st.InvalidMessage)
		switch e.st.Phase {
		case v1alpha1.RangePhaseActive:
			msg = fmt.Sprintf("Active range %q (%s) conflicts: %s", e.st.Name, e.st.CIDR, e.st.InvalidMessage)
		case v1alpha1.RangePhaseDraining, v1alpha1.RangePhaseReleased:
			msg = fmt.Sprintf("%s range %q (%s) is never released: %s", e.st.Phase, e.st.Name, e.st.CIDR, e.st.InvalidMessage)
		}
		ev := warning(EventRangeInvalid, "Validate", msg)
		ev.Range, ev.CIDR = e.st.Name, e.st.CIDR
		evs = append(evs, ev)
	}
	for _, r := range e.st.Rejections {
		if same && slices.Contains(prev.Rejections, r) {
			continue
		}
		ev := warning(EventConsumerRejected, "Reject", fmt.Sprintf("Consumer %q rejected range %q (%s) in phase %s: %s",
			r.Consumer, e.st.Name, e.st.CIDR, e.st.Phase, r.Message))
		ev.Range, ev.CIDR, ev.Consumer = e.st.Name, e.st.CIDR, r.Consumer
		evs = append(evs, ev)
	}
	return evs
}

// degradedEvents announces the problems that nothing but the Degraded
// condition records (spec entries that cannot be tracked, stalled
// transitions, malformed input) when Degraded turns True with their reason,
// or changes to it: one event per problem of that reason. The status keeps
// no record of them one by one to compare with, unlike a range's problem
// and rejections (rangeEvents), so the change of the condition is what
// announces them; the previous message is not searched for each sentence,
// which failed whenever the message was cut short or a sentence changed. A
// problem of another kind, or one more of the same kind while Degraded keeps
// its reason, is in the message but has no event of its own.
func degradedEvents(prev, next *metav1.Condition, f *findings) []Event {
	if next == nil || next.Status != metav1.ConditionTrue ||
		(prev != nil && prev.Status == metav1.ConditionTrue && prev.Reason == next.Reason) {
		return nil
	}
	var evs []Event
	switch next.Reason {
	case v1alpha1.InvalidRangesReason:
		// The tracked ranges that cannot be used have their own event.
		for _, s := range f.specIssues {
			ev := warning(EventRangeInvalid, "Validate", capitalize(s.line))
			ev.Range = s.name
			evs = append(evs, ev)
		}
	case v1alpha1.TransitionStalledReason:
		for _, s := range f.stalls {
			ev := warning(EventTransitionStalled, "Wait", capitalize(s.line))
			ev.Range, ev.CIDR = s.name, s.cidr
			evs = append(evs, ev)
		}
	case v1alpha1.MalformedInputReason:
		for _, line := range f.malformed {
			evs = append(evs, warning(EventMalformedInput, "Validate", capitalize(line)))
		}
	}
	return evs
}

// consumerEvents announces the consumers that appeared in status.consumers
// and those no longer there because they are being deleted or gone.
func (c *computer) consumerEvents(summaries []v1alpha1.ConsumerSummary) []Event {
	prev := map[string]bool{}
	for _, s := range c.in.Status.Consumers {
		prev[s.Name] = true
	}
	var evs []Event
	for _, s := range summaries {
		if prev[s.Name] {
			continue
		}
		how := "required: transitions now wait for its acknowledgements"
		if !s.Required {
			how = "not required: it is shown but never waited for"
		}
		ev := normal(EventConsumerRegistered, "Register", fmt.Sprintf("Consumer %q registered (%s)", s.Name, how))
		ev.Consumer = s.Name
		evs = append(evs, ev)
	}
	current := map[string]bool{}
	for _, cons := range c.consumers {
		current[cons.Name] = true
	}
	var gone []string
	for name := range prev {
		if !current[name] {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		ev := normal(EventConsumerRemoved, "Unregister",
			fmt.Sprintf("Consumer %q is being deleted or is gone: transitions no longer wait for it", name))
		ev.Consumer = name
		evs = append(evs, ev)
	}
	return evs
}
