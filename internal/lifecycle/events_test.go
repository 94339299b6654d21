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
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/statusedit"
)

// transitionEvents are the reasons that announce a phase change.
var transitionEvents = map[string]bool{
	EventRangePending: true, EventRangeActivated: true, EventRangeDraining: true,
	EventRangeReactivated: true, EventRangeReleased: true, EventRangePurged: true,
}

// TestEveryTransitionIsRecordedAndAnnouncedOnce checks that each phase
// change, chained ones included, is one Transition and one event, and that
// a repair is counted but announced by its StatusEdited event only.
func TestEveryTransitionIsRecordedAndAnnouncedOnce(t *testing.T) {
	const cidr = "10.244.0.0/16"
	at := metav1.NewTime(t0.Add(time.Minute))
	since := ptr.To(metav1.NewTime(t0))
	tests := []struct {
		name       string
		world      func() *world
		want       []Transition
		wantEvents []string // reasons, in order
	}{
		{
			name: "added and activated in one reconcile",
			world: func() *world {
				return newWorld(specRng("a", cidr)).consumers(required("x", ack("a", cidr, pending)))
			},
			want: []Transition{
				{Range: "a", CIDR: cidr, To: pending, At: at},
				{Range: "a", CIDR: cidr, From: pending, To: active, FromSince: ptr.To(at), At: at},
			},
			wantEvents: []string{EventRangePending, EventRangeActivated, EventConsumerRegistered},
		},
		{
			name: "removed: Draining, Released and purged in one reconcile",
			world: func() *world {
				w := newWorld().status(tracked("a", cidr, active)).consumers(
					required("x", ack("a", cidr, draining)))
				w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x", Required: true}}
				return w
			},
			want: []Transition{
				{Range: "a", CIDR: cidr, From: active, To: draining, FromSince: since, At: at},
				{Range: "a", CIDR: cidr, From: draining, To: released, FromSince: ptr.To(at), At: at},
			},
			wantEvents: []string{EventRangeDraining, EventRangeReleased},
		},
		{
			name: "purged and tracked again under the same name",
			world: func() *world {
				w := newWorld(specRng("a", "10.245.0.0/16")).status(tracked("a", cidr, released)).consumers(
					required("x", ack("a", cidr, released)))
				w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x", Required: true}}
				return w
			},
			want: []Transition{
				{Range: "a", CIDR: cidr, From: released, FromSince: since, At: at},
				{Range: "a", CIDR: "10.245.0.0/16", To: pending, At: at},
			},
			wantEvents: []string{EventRangePurged, EventRangePending},
		},
		{
			name: "a phase another client set: repaired, counted, announced by StatusEdited only",
			world: func() *world {
				w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, active)).consumers(required("x"))
				w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x", Required: true}}
				w.in.Edits = []statusedit.Edit{edit("a", "phase")}
				return w
			},
			want: []Transition{
				{Range: "a", CIDR: cidr, From: active, To: pending, FromSince: since, At: at, Repair: true},
			},
			wantEvents: []string{EventStatusEdited, EventStatusEdited},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			w := tt.world()
			w.in.Now = at.Time
			out := w.step()
			g.Expect(out.Transitions).To(Equal(tt.want))
			g.Expect(reasons(out)).To(Equal(tt.wantEvents))

			// The next reconcile, from the status just written, changes
			// nothing and announces nothing.
			w.in.Edits = nil
			again := w.step()
			g.Expect(again.Transitions).To(BeEmpty())
			g.Expect(again.Events).To(BeEmpty())
		})
	}
}

// TestStaleStatusComputesTheSameTransitionAgain is why the controller's
// status write carries the resourceVersion its input was read at: Compute
// is a function of its input, so a status read before the previous write
// makes the same transition, with the same events, a second time.
func TestStaleStatusComputesTheSameTransitionAgain(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld().status(tracked("a", cidr, active)).consumers(required("x"))
	w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x", Required: true}}
	stale := w.in
	first := w.step()
	g.Expect(first.Transitions).To(HaveLen(1))
	g.Expect(eventsWith(first, EventRangeDraining)).To(HaveLen(1))

	fresh := Compute(w.in)
	g.Expect(fresh.Transitions).To(BeEmpty(), "from the status just written")
	g.Expect(fresh.Events).To(BeEmpty())

	stale.Now = stale.Now.Add(40 * time.Millisecond)
	again := Compute(stale)
	g.Expect(again.Transitions).To(Equal(first.Transitions), "from the status before it")
	g.Expect(eventsWith(again, EventRangeDraining)).To(HaveLen(1))
}

func TestDegradedEvents(t *testing.T) {
	cond := func(status metav1.ConditionStatus, reason string) *metav1.Condition {
		return &metav1.Condition{Type: v1alpha1.DegradedCondition, Status: status, Reason: reason}
	}
	f := &findings{
		specIssues: []finding{{name: "b", line: `range "b" (10.1.0.0/16, nodeMaskSize 24) waits until ...`}},
		stalls: []finding{
			{name: "a", cidr: "10.0.0.0/16", line: `range "a" (10.0.0.0/16) has waited since ...`},
			{name: "c", cidr: "10.2.0.0/16", line: `range "c" (10.2.0.0/16) has waited since ...`},
		},
		malformed: []string{"a node has podCIDRs ..."},
	}
	tests := []struct {
		name       string
		prev, next *metav1.Condition
		want       []string // reasons
	}{
		{"first status, stalled", nil, cond(metav1.ConditionTrue, v1alpha1.TransitionStalledReason),
			[]string{EventTransitionStalled, EventTransitionStalled}},
		{"turns True", cond(metav1.ConditionFalse, v1alpha1.AsExpectedReason), cond(metav1.ConditionTrue, v1alpha1.TransitionStalledReason),
			[]string{EventTransitionStalled, EventTransitionStalled}},
		{"keeps its reason: nothing new to announce", cond(metav1.ConditionTrue, v1alpha1.TransitionStalledReason),
			cond(metav1.ConditionTrue, v1alpha1.TransitionStalledReason), nil},
		{"changes reason to one the status records range by range", cond(metav1.ConditionTrue, v1alpha1.TransitionStalledReason),
			cond(metav1.ConditionTrue, v1alpha1.ConsumerRejectedReason), nil},
		{"changes reason to invalid ranges: the spec entries", cond(metav1.ConditionTrue, v1alpha1.TransitionStalledReason),
			cond(metav1.ConditionTrue, v1alpha1.InvalidRangesReason), []string{EventRangeInvalid}},
		{"changes reason to malformed input", cond(metav1.ConditionTrue, v1alpha1.ConsumerRejectedReason),
			cond(metav1.ConditionTrue, v1alpha1.MalformedInputReason), []string{EventMalformedInput}},
		{"turns False", cond(metav1.ConditionTrue, v1alpha1.TransitionStalledReason), cond(metav1.ConditionFalse, v1alpha1.AsExpectedReason), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, ev := range degradedEvents(tt.prev, tt.next, f) {
				got = append(got, ev.Reason)
				if ev.Reason == EventTransitionStalled && ev.Range == "" {
					t.Errorf("stall event without its range: %+v", ev)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %v, want %v", got, tt.want)
			}
		})
	}
}

// TestConditionsKeepTheirTimeWhileWaiting checks that a reconcile while a
// transition waits computes the same status as the one before, so it writes
// nothing: Reconciling, present only while true, keeps the time it became
// true instead of taking the time of every reconcile.
func TestConditionsKeepTheirTimeWhileWaiting(t *testing.T) {
	g := NewWithT(t)
	w := newWorld(specRng("a", "10.244.0.0/16")).consumers(required("x"))
	first := w.step()
	g.Expect(cond(first, v1alpha1.ReconcilingCondition).Status).To(Equal(metav1.ConditionTrue))

	w.in.Now = t0.Add(3 * time.Second)
	later := w.step()
	g.Expect(later.Conditions).To(Equal(first.Conditions))
	g.Expect(later.Events).To(BeEmpty())
}
