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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func TestNewSpecRangeBecomesPending(t *testing.T) {
	g := NewWithT(t)
	w := newWorld(specRng("a", "10.244.0.0/16")).consumers(required("x"), required("y"))
	out := w.step()

	r := rangeOf(out, "a")
	g.Expect(r).NotTo(BeNil())
	g.Expect(r.Phase).To(Equal(pending))
	g.Expect(r.CIDR).To(Equal("10.244.0.0/16"))
	g.Expect(r.IPFamily).To(Equal(v1alpha1.IPv4))
	g.Expect(r.NodeMaskSize).To(Equal(int32(24)))
	g.Expect(r.PhaseSince.Time).To(Equal(t0))
	g.Expect(r.Awaiting).To(Equal([]string{"x", "y"}))
	g.Expect(r.Message).To(Equal("Waiting for consumers x and y to accept it"))
	g.Expect(reasons(out)).To(Equal([]string{EventRangePending, EventConsumerRegistered, EventConsumerRegistered}))

	g.Expect(cond(out, v1alpha1.ReadyCondition)).To(beCondition(v1alpha1.ReadyCondition, metav1.ConditionFalse, v1alpha1.TransitionsInProgressReason))
	g.Expect(cond(out, v1alpha1.ReadyCondition).Message).To(Equal(`Range "a" (10.244.0.0/16) is Pending, waiting for consumers x and y to accept it`))
	g.Expect(cond(out, v1alpha1.ProgressingCondition)).To(beCondition(v1alpha1.ProgressingCondition, metav1.ConditionTrue, v1alpha1.TransitionsInProgressReason))
	g.Expect(cond(out, v1alpha1.DegradedCondition)).To(beCondition(v1alpha1.DegradedCondition, metav1.ConditionFalse, v1alpha1.AsExpectedReason))
	g.Expect(cond(out, v1alpha1.ReconcilingCondition)).To(beCondition(v1alpha1.ReconcilingCondition, metav1.ConditionTrue, v1alpha1.TransitionsInProgressReason))
	g.Expect(cond(out, v1alpha1.StalledCondition).Type).To(BeEmpty(), "Stalled is present only when true")
	g.Expect(cond(out, v1alpha1.ReadyCondition).ObservedGeneration).To(Equal(int64(1)))
	g.Expect(out.Summary).To(Equal(v1alpha1.PodNetworkSummary{TotalRanges: 1, PendingRanges: 1}))
	g.Expect(out.ObservedGeneration).To(Equal(int64(1)))
}

func TestIPv6DefaultsAndExplicitNodeMaskSize(t *testing.T) {
	g := NewWithT(t)
	out := newWorld(specRng("v6", "fd00:10:244::/48"), specRng("small", "10.0.0.0/25", 28)).step()
	g.Expect(rangeOf(out, "v6").NodeMaskSize).To(Equal(int32(64)))
	g.Expect(rangeOf(out, "v6").IPFamily).To(Equal(v1alpha1.IPv6))
	g.Expect(rangeOf(out, "small").NodeMaskSize).To(Equal(int32(28)))
}

func TestPendingToActive(t *testing.T) {
	const cidr = "10.244.0.0/16"
	tests := []struct {
		name       string
		consumers  []Consumer
		wantPhase  v1alpha1.RangePhase
		wantAwait  []string
		wantEvents []string
	}{
		{
			name:       "no consumers: activated at once",
			wantPhase:  active,
			wantEvents: []string{EventRangeActivated},
		},
		{
			name:       "every required consumer acked Pending",
			consumers:  []Consumer{required("x", ack("a", cidr, pending)), required("y", ack("a", cidr, pending))},
			wantPhase:  active,
			wantEvents: []string{EventRangeActivated},
		},
		{
			name:      "one required consumer has not acked",
			consumers: []Consumer{required("x", ack("a", cidr, pending)), required("y")},
			wantPhase: pending,
			wantAwait: []string{"y"},
		},
		{
			name:      "stale ack: earlier phase with the same name and cidr",
			consumers: []Consumer{required("x", ack("a", cidr, released))},
			wantPhase: pending,
			wantAwait: []string{"x"},
		},
		{
			name:      "stale ack: same name, other cidr",
			consumers: []Consumer{required("x", ack("a", "10.245.0.0/16", pending))},
			wantPhase: pending,
			wantAwait: []string{"x"},
		},
		{
			name:      "ack of another range name",
			consumers: []Consumer{required("x", ack("b", cidr, pending))},
			wantPhase: pending,
			wantAwait: []string{"x"},
		},
		{
			name:      "ack with an unknown result",
			consumers: []Consumer{required("x", v1alpha1.ConsumerRangeStatus{Name: "a", CIDR: cidr, Phase: pending, Result: "Maybe"})},
			wantPhase: pending,
			wantAwait: []string{"x"},
		},
		{
			name:       "non-required consumers are never waited for",
			consumers:  []Consumer{required("x", ack("a", cidr, pending)), optional("z")},
			wantPhase:  active,
			wantEvents: []string{EventRangeActivated},
		},
		{
			name:       "a consumer being deleted is not waited for",
			consumers:  []Consumer{required("x", ack("a", cidr, pending)), {Name: "y", Required: true, Deleting: true}},
			wantPhase:  active,
			wantEvents: []string{EventRangeActivated},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, pending)).consumers(tc.consumers...)
			for _, c := range tc.consumers {
				if !c.Deleting {
					w.in.Status.Consumers = append(w.in.Status.Consumers, v1alpha1.ConsumerSummary{Name: c.Name, Required: c.Required})
				}
			}
			w.in.Now = t0.Add(time.Minute)
			out := w.step()
			g.Expect(phaseOf(out, "a")).To(Equal(tc.wantPhase))
			g.Expect(rangeOf(out, "a").Awaiting).To(Equal(tc.wantAwait))
			g.Expect(reasons(out)).To(Equal(tc.wantEvents))
			if tc.wantPhase == active {
				g.Expect(rangeOf(out, "a").PhaseSince.Time).To(Equal(t0.Add(time.Minute)))
				g.Expect(cond(out, v1alpha1.ReadyCondition)).To(beCondition(v1alpha1.ReadyCondition, metav1.ConditionTrue, v1alpha1.AllRangesActiveReason))
				g.Expect(cond(out, v1alpha1.ReadyCondition).Message).To(Equal("The only range is Active"))
				g.Expect(cond(out, v1alpha1.ProgressingCondition)).To(beCondition(v1alpha1.ProgressingCondition, metav1.ConditionFalse, v1alpha1.StableReason))
				g.Expect(cond(out, v1alpha1.ReconcilingCondition).Type).To(BeEmpty(), "Reconciling is removed once nothing moves")
				g.Expect(cond(out, v1alpha1.StalledCondition).Type).To(BeEmpty())
				g.Expect(out.Summary).To(Equal(v1alpha1.PodNetworkSummary{TotalRanges: 1, ActiveRanges: 1}))
			} else {
				g.Expect(rangeOf(out, "a").PhaseSince.Time).To(Equal(t0))
			}
		})
	}
}

func TestNewRangeWithAcksAlreadyInPlaceIsActivatedInOneCompute(t *testing.T) {
	g := NewWithT(t)
	// A consumer that acked the range as soon as it appeared in a status the
	// operator failed to write still counts: acks describe the consumer's
	// current state.
	out := newWorld(specRng("a", "10.0.0.0/16")).consumers(required("x", ack("a", "10.0.0.0/16", pending))).step()
	g.Expect(phaseOf(out, "a")).To(Equal(active))
	g.Expect(reasons(out)).To(Equal([]string{EventRangePending, EventRangeActivated, EventConsumerRegistered}))
}

func TestRejection(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, pending)).consumers(
		required("x", ack("a", cidr, pending)),
		required("y", reject(ack("a", cidr, pending), "the CNI config only supports one IPv4 range")),
	)
	w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x"}, {Name: "y"}}
	out := w.step()

	r := rangeOf(out, "a")
	g.Expect(r.Phase).To(Equal(pending))
	g.Expect(r.Awaiting).To(BeEmpty())
	g.Expect(r.Rejections).To(Equal([]v1alpha1.RangeRejection{{Consumer: "y", Message: "the CNI config only supports one IPv4 range"}}))
	g.Expect(r.Message).To(Equal("Rejected by required consumers y; it stays Pending until they accept it"))
	g.Expect(out.Events).To(HaveLen(1))
	g.Expect(out.Events[0]).To(Equal(Event{
		Type: corev1.EventTypeWarning, Reason: EventConsumerRejected, Action: "Reject",
		Message: `Consumer "y" rejected range "a" (10.244.0.0/16) in phase Pending: the CNI config only supports one IPv4 range`,
		Range:   "a", CIDR: cidr, Consumer: "y",
	}))
	g.Expect(cond(out, v1alpha1.ReadyCondition)).To(beCondition(v1alpha1.ReadyCondition, metav1.ConditionFalse, v1alpha1.ConsumerRejectedReason))
	g.Expect(cond(out, v1alpha1.ReadyCondition).Message).To(ContainSubstring(`Consumer "y" rejected range "a"`))
	g.Expect(cond(out, v1alpha1.ProgressingCondition)).To(beCondition(v1alpha1.ProgressingCondition, metav1.ConditionFalse, v1alpha1.BlockedReason))
	g.Expect(cond(out, v1alpha1.DegradedCondition)).To(beCondition(v1alpha1.DegradedCondition, metav1.ConditionTrue, v1alpha1.ConsumerRejectedReason))
	g.Expect(cond(out, v1alpha1.StalledCondition)).To(beCondition(v1alpha1.StalledCondition, metav1.ConditionTrue, v1alpha1.ConsumerRejectedReason))
	g.Expect(cond(out, v1alpha1.ReconcilingCondition).Type).To(BeEmpty())
	g.Expect(consumerSummary(out, "y").InSync).To(BeFalse())
	g.Expect(consumerSummary(out, "y").Message).To(ContainSubstring("Rejected a (Pending): the CNI config"))

	// The same rejection does not emit a second event.
	w.in.Now = t0.Add(time.Minute)
	g.Expect(w.step().Events).To(BeEmpty())

	// A new message is a new rejection.
	w.in.Consumers[1] = required("y", reject(ack("a", cidr, pending), "still no"))
	g.Expect(reasons(w.step())).To(Equal([]string{EventConsumerRejected}))

	// Once the consumer accepts, the range becomes Active.
	w.in.Consumers[1] = required("y", ack("a", cidr, pending))
	out = w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(active))
	g.Expect(rangeOf(out, "a").Rejections).To(BeEmpty())
	g.Expect(cond(out, v1alpha1.DegradedCondition).Status).To(Equal(metav1.ConditionFalse))
}

func TestNonRequiredConsumerIsShownButNeverBlocks(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld(specRng("a", cidr)).consumers(optional("z", reject(ack("a", cidr, pending), "no thanks")))
	out := w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(active))
	g.Expect(cond(out, v1alpha1.DegradedCondition).Status).To(Equal(metav1.ConditionFalse))
	g.Expect(cond(out, v1alpha1.ReadyCondition).Status).To(Equal(metav1.ConditionTrue))
	s := consumerSummary(out, "z")
	g.Expect(s).NotTo(BeNil())
	g.Expect(s.Required).To(BeFalse())
	g.Expect(s.InSync).To(BeFalse())
	g.Expect(s.Message).To(Equal("Has not acknowledged a (Active). Not required: shown but never waited for"))
}

func TestActiveToDraining(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld().status(tracked("a", cidr, active)).consumers(required("x", ack("a", cidr, active)))
	w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x", Required: true, InSync: true}}
	w.in.Nodes = []Node{node("n1", "10.244.1.0/24"), node("n2", "10.245.0.0/24")}
	w.in.Now = t0.Add(time.Hour)
	out := w.step()

	r := rangeOf(out, "a")
	g.Expect(r.Phase).To(Equal(draining))
	g.Expect(r.PhaseSince.Time).To(Equal(t0.Add(time.Hour)))
	g.Expect(r.Awaiting).To(Equal([]string{"x"}))
	g.Expect(r.Holders).To(Equal([]string{"n1"}))
	g.Expect(r.HolderCount).To(Equal(int32(1)))
	g.Expect(r.Message).To(Equal("Waiting for consumers x to acknowledge Draining and 1 nodes to give back their blocks (n1)"))
	g.Expect(out.Events).To(ConsistOf(Event{
		Type: corev1.EventTypeNormal, Reason: EventRangeDraining, Action: "Drain",
		Message: `Range "a" (10.244.0.0/16) left the spec and is Draining: no new node blocks are allocated from it`,
		Range:   "a", CIDR: cidr,
	}))
	g.Expect(out.ForeignNodeCount).To(Equal(int32(1)))
	g.Expect(out.ForeignNodes).To(Equal([]string{"n2"}))
	g.Expect(cond(out, v1alpha1.ReadyCondition)).To(beCondition(v1alpha1.ReadyCondition, metav1.ConditionFalse, v1alpha1.TransitionsInProgressReason))
	g.Expect(out.Summary).To(Equal(v1alpha1.PodNetworkSummary{DrainingRanges: 1}))
}

func TestDrainingToReleased(t *testing.T) {
	const cidr = "10.244.0.0/16"
	tests := []struct {
		name        string
		consumers   []Consumer
		nodes       []Node
		extra       []v1alpha1.RangeStatus
		wantPhase   v1alpha1.RangePhase
		wantHolders []string
	}{
		{
			name:      "every required consumer acked Draining and no holders",
			consumers: []Consumer{required("x", ack("a", cidr, draining)), optional("z")},
			wantPhase: released,
		},
		{
			name:      "a required consumer has not acked Draining",
			consumers: []Consumer{required("x", ack("a", cidr, draining)), required("y", ack("a", cidr, active))},
			wantPhase: draining,
		},
		{
			name:      "stale Draining ack for another cidr",
			consumers: []Consumer{required("x", ack("a", "10.0.0.0/16", draining))},
			wantPhase: draining,
		},
		{
			name:        "a node still holds a block",
			consumers:   []Consumer{required("x", ack("a", cidr, draining))},
			nodes:       []Node{node("n1", "10.244.3.0/24"), node("n2", "fd00::/64", "10.244.7.0/24")},
			wantPhase:   draining,
			wantHolders: []string{"n1", "n2"},
		},
		{
			name:        "a node block larger than the range overlaps it",
			consumers:   []Consumer{required("x", ack("a", cidr, draining))},
			nodes:       []Node{node("n1", "10.0.0.0/8")},
			wantPhase:   draining,
			wantHolders: []string{"n1"},
		},
		{
			name:      "holders inside an Active supernet do not block",
			consumers: []Consumer{required("x", ack("a", cidr, draining))},
			nodes:     []Node{node("n1", "10.244.3.0/24")},
			extra:     []v1alpha1.RangeStatus{tracked("big", "10.0.0.0/8", active)},
			wantPhase: released,
		},
		{
			name:        "holders inside a Pending supernet still block",
			consumers:   []Consumer{required("x", ack("a", cidr, draining))},
			nodes:       []Node{node("n1", "10.244.3.0/24")},
			extra:       []v1alpha1.RangeStatus{tracked("big", "10.0.0.0/8", pending)},
			wantPhase:   draining,
			wantHolders: []string{"n1"},
		},
		{
			name:        "holders inside a Draining supernet still block",
			consumers:   []Consumer{required("x", ack("a", cidr, draining))},
			nodes:       []Node{node("n1", "10.244.3.0/24")},
			extra:       []v1alpha1.RangeStatus{tracked("big", "10.0.0.0/8", draining)},
			wantPhase:   draining,
			wantHolders: []string{"n1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			w := newWorld().status(append([]v1alpha1.RangeStatus{tracked("a", cidr, draining)}, tc.extra...)...).consumers(tc.consumers...)
			for _, r := range tc.extra {
				if r.Phase != draining {
					w.in.Spec = append(w.in.Spec, specRng(r.Name, r.CIDR))
				}
			}
			w.in.Nodes = tc.nodes
			out := w.step()
			g.Expect(phaseOf(out, "a")).To(Equal(tc.wantPhase))
			g.Expect(rangeOf(out, "a").Holders).To(Equal(tc.wantHolders))
			g.Expect(rangeOf(out, "a").HolderCount).To(Equal(int32(len(tc.wantHolders))))
			if tc.wantPhase == released {
				g.Expect(eventsWith(out, EventRangeReleased)).To(HaveLen(1))
				g.Expect(rangeOf(out, "a").Awaiting).To(Equal(requiredNames(tc.consumers)))
			}
		})
	}
}

func requiredNames(cs []Consumer) []string {
	var out []string
	for _, c := range cs {
		if c.Required && !c.Deleting {
			out = append(out, c.Name)
		}
	}
	return out
}

func TestManyHoldersAreCappedButCounted(t *testing.T) {
	g := NewWithT(t)
	w := newWorld().status(tracked("a", "10.0.0.0/16", draining))
	for i := range 25 {
		w.in.Nodes = append(w.in.Nodes, node(string(rune('a'+i))+"-node", netipPrefix(10, 0, i, 0, 24)))
	}
	out := w.step()
	r := rangeOf(out, "a")
	g.Expect(r.HolderCount).To(Equal(int32(25)))
	g.Expect(r.Holders).To(HaveLen(v1alpha1.MaxListedNodes))
	g.Expect(r.Holders[0]).To(Equal("a-node"))
	g.Expect(cond(out, v1alpha1.ProgressingCondition).Message).To(ContainSubstring("25 nodes to give back their blocks (a-node, b-node, c-node, d-node, e-node and 15 more)"))
}

func netipPrefix(a, b, c, d, bits int) string {
	return itoa(a) + "." + itoa(b) + "." + itoa(c) + "." + itoa(d) + "/" + itoa(bits)
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

func TestReleasedToPurged(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld().status(tracked("a", cidr, released)).consumers(required("x", ack("a", cidr, draining)), required("y", ack("a", cidr, released)))
	out := w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(released))
	g.Expect(rangeOf(out, "a").Awaiting).To(Equal([]string{"x"}))
	g.Expect(rangeOf(out, "a").Message).To(Equal("Waiting for consumers x to acknowledge Released"))

	w.in.Consumers[0] = required("x", ack("a", cidr, released))
	out = w.step()
	g.Expect(out.Ranges).To(BeEmpty())
	g.Expect(out.Events).To(ConsistOf(Event{
		Type: corev1.EventTypeNormal, Reason: EventRangePurged, Action: "Purge",
		Message: `Range "a" (10.244.0.0/16) was removed from every required consumer's configuration and is no longer tracked`,
		Range:   "a", CIDR: cidr,
	}))
	g.Expect(cond(out, v1alpha1.ReadyCondition)).To(beCondition(v1alpha1.ReadyCondition, metav1.ConditionTrue, v1alpha1.AllRangesActiveReason))
	g.Expect(cond(out, v1alpha1.ReadyCondition).Message).To(Equal("No ranges are configured"))
}

func TestPendingThatLeavesTheSpecIsReleasedWithoutDraining(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld().status(tracked("a", cidr, pending)).consumers(required("x", ack("a", cidr, pending)))
	out := w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(released))
	g.Expect(reasons(out)).To(ContainElement(EventRangeReleased))
	g.Expect(eventsWith(out, EventRangeReleased)[0].Message).To(ContainSubstring("left the spec before it became Active"))
	g.Expect(rangeOf(out, "a").Awaiting).To(Equal([]string{"x"}))
}

func TestFullLifecycleChainsWithinOneCompute(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	// Every consumer already reports the states the range is about to
	// reach: the range moves through all of them in one call.
	w := newWorld().status(tracked("a", cidr, active)).consumers(required("x", ack("a", cidr, draining)))
	w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x", Required: true}}
	out := w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(released))
	g.Expect(reasons(out)).To(Equal([]string{EventRangeDraining, EventRangeReleased}))
}

func TestReAddDuringDrain(t *testing.T) {
	const cidr = "10.244.0.0/16"
	t.Run("same name and cidr: Active again", func(t *testing.T) {
		g := NewWithT(t)
		w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, draining))
		w.in.Nodes = []Node{node("n1", "10.244.0.0/24")}
		out := w.step()
		g.Expect(phaseOf(out, "a")).To(Equal(active))
		g.Expect(reasons(out)).To(Equal([]string{EventRangeReactivated}))
		g.Expect(rangeOf(out, "a").Holders).To(BeEmpty())
	})
	t.Run("same name, other cidr: waits for the purge", func(t *testing.T) {
		g := NewWithT(t)
		w := newWorld(specRng("a", "10.245.0.0/16")).status(tracked("a", cidr, draining)).consumers(required("x"))
		w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x"}}
		out := w.step()
		g.Expect(out.Ranges).To(HaveLen(1))
		g.Expect(rangeOf(out, "a").CIDR).To(Equal(cidr))
		g.Expect(phaseOf(out, "a")).To(Equal(draining))
		line := `Range "a" (10.245.0.0/16, nodeMaskSize 24) waits until the range tracked under the same name (10.244.0.0/16, nodeMaskSize 24, Draining) has been purged`
		g.Expect(cond(out, v1alpha1.DegradedCondition)).To(beCondition(v1alpha1.DegradedCondition, metav1.ConditionTrue, v1alpha1.InvalidRangesReason))
		g.Expect(cond(out, v1alpha1.DegradedCondition).Message).To(Equal(line))
		g.Expect(cond(out, v1alpha1.ReadyCondition)).To(beCondition(v1alpha1.ReadyCondition, metav1.ConditionFalse, v1alpha1.InvalidRangesReason))
		g.Expect(eventsWith(out, EventRangeInvalid)).To(ConsistOf(Event{
			Type: corev1.EventTypeWarning, Reason: EventRangeInvalid, Action: "Validate", Message: line, Range: "a",
		}))
		// Not repeated while the problem stays the same.
		g.Expect(eventsWith(w.step(), EventRangeInvalid)).To(BeEmpty())

		// Once the old range is released and purged, the new one starts.
		w.in.Consumers = []Consumer{required("x", ack("a", cidr, draining))}
		out = w.step()
		g.Expect(phaseOf(out, "a")).To(Equal(released))
		w.in.Consumers = []Consumer{required("x", ack("a", cidr, released))}
		out = w.step()
		g.Expect(reasons(out)).To(Equal([]string{EventRangePurged, EventRangePending}))
		g.Expect(rangeOf(out, "a").CIDR).To(Equal("10.245.0.0/16"))
		g.Expect(phaseOf(out, "a")).To(Equal(pending))
		g.Expect(cond(out, v1alpha1.DegradedCondition).Status).To(Equal(metav1.ConditionFalse))
	})
	t.Run("same name and cidr, other nodeMaskSize: waits for the purge", func(t *testing.T) {
		g := NewWithT(t)
		w := newWorld(specRng("a", cidr, 26)).status(tracked("a", cidr, draining)).consumers(required("x"))
		out := w.step()
		g.Expect(phaseOf(out, "a")).To(Equal(draining))
		g.Expect(cond(out, v1alpha1.DegradedCondition).Message).To(ContainSubstring("nodeMaskSize 26) waits until the range tracked under the same name"))
	})
}

func TestNameReuse(t *testing.T) {
	const cidr = "10.244.0.0/16"
	t.Run("re-added while Released: stays Released until purged, then a new Pending", func(t *testing.T) {
		g := NewWithT(t)
		w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, released)).consumers(required("x", ack("a", cidr, draining)))
		out := w.step()
		g.Expect(phaseOf(out, "a")).To(Equal(released))
		g.Expect(rangeOf(out, "a").Message).To(Equal("Waiting for consumers x to acknowledge Released. It is back in the spec and becomes Pending again once it has been purged"))
		g.Expect(cond(out, v1alpha1.ReadyCondition).Reason).To(Equal(v1alpha1.TransitionsInProgressReason))
		g.Expect(cond(out, v1alpha1.DegradedCondition).Status).To(Equal(metav1.ConditionFalse))
		g.Expect(out.Summary).To(Equal(v1alpha1.PodNetworkSummary{TotalRanges: 1, ReleasedRanges: 1}))

		w.in.Now = t0.Add(time.Minute)
		w.in.Consumers = []Consumer{required("x", ack("a", cidr, released))}
		out = w.step()
		g.Expect(reasons(out)).To(Equal([]string{EventRangePurged, EventRangePending}))
		r := rangeOf(out, "a")
		g.Expect(r.Phase).To(Equal(pending))
		g.Expect(r.PhaseSince.Time).To(Equal(t0.Add(time.Minute)))
		// The consumer's Released ack does not count for the new Pending range.
		g.Expect(r.Awaiting).To(Equal([]string{"x"}))
	})
	t.Run("pending range whose cidr changed: the old one is released first", func(t *testing.T) {
		g := NewWithT(t)
		w := newWorld(specRng("a", "10.245.0.0/16")).status(tracked("a", cidr, pending)).consumers(required("x", ack("a", cidr, pending)))
		out := w.step()
		g.Expect(phaseOf(out, "a")).To(Equal(released))
		g.Expect(rangeOf(out, "a").CIDR).To(Equal(cidr))
		g.Expect(cond(out, v1alpha1.ReadyCondition).Reason).To(Equal(v1alpha1.InvalidRangesReason))
	})
	t.Run("cidr still tracked under another name", func(t *testing.T) {
		g := NewWithT(t)
		w := newWorld(specRng("b", cidr)).status(tracked("a", cidr, released)).consumers(
			required("x", ack("a", cidr, draining), ack("b", cidr, pending)))
		out := w.step()
		b := rangeOf(out, "b")
		g.Expect(b.Phase).To(Equal(pending))
		g.Expect(b.InvalidReason).To(Equal(v1alpha1.RangeInvalidRangeConflict))
		g.Expect(b.InvalidMessage).To(Equal(`cidr 10.244.0.0/16 is still tracked as range "a" (Released); it can be used under another name once "a" has been purged`))
		g.Expect(b.Awaiting).To(BeEmpty())
		g.Expect(eventsWith(out, EventRangeInvalid)).To(HaveLen(1))
		g.Expect(cond(out, v1alpha1.ReadyCondition).Reason).To(Equal(v1alpha1.InvalidRangesReason))
		g.Expect(cond(out, v1alpha1.DegradedCondition).Reason).To(Equal(v1alpha1.InvalidRangesReason))
		g.Expect(cond(out, v1alpha1.ProgressingCondition).Status).To(Equal(metav1.ConditionTrue)) // "a" still moves

		// Once "a" is purged, "b" is valid and (already acked) activated.
		w.in.Consumers = []Consumer{required("x", ack("a", cidr, released), ack("b", cidr, pending))}
		out = w.step()
		g.Expect(reasons(out)).To(Equal([]string{EventRangePurged, EventRangeActivated}))
		g.Expect(phaseOf(out, "b")).To(Equal(active))
		g.Expect(rangeOf(out, "b").InvalidReason).To(BeEmpty())
	})
}

func TestLateConsumerRegistration(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, active)).consumers(required("x", ack("a", cidr, active)))
	w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x", Required: true, InSync: true}}
	out := w.step()
	g.Expect(out.Events).To(BeEmpty())
	g.Expect(consumerSummary(out, "x").InSync).To(BeTrue())
	g.Expect(consumerSummary(out, "x").Message).To(BeEmpty())

	w.in.Consumers = append(w.in.Consumers, required("late"))
	out = w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(active)) // not demoted
	g.Expect(out.Events).To(ConsistOf(Event{
		Type: corev1.EventTypeNormal, Reason: EventConsumerRegistered, Action: "Register",
		Message:  `Consumer "late" registered (required: transitions now wait for its acknowledgements)`,
		Consumer: "late",
	}))
	s := consumerSummary(out, "late")
	g.Expect(s.InSync).To(BeFalse())
	g.Expect(s.Message).To(Equal("Has not acknowledged a (Active)"))
	g.Expect(cond(out, v1alpha1.ReadyCondition).Status).To(Equal(metav1.ConditionTrue))

	// Later transitions wait for it.
	w.in.Spec = nil
	w.in.Consumers[0] = required("x", ack("a", cidr, draining))
	out = w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(draining))
	g.Expect(rangeOf(out, "a").Awaiting).To(Equal([]string{"late"}))
}

func TestConsumerRemoval(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, pending)).consumers(required("x", ack("a", cidr, pending)), required("y"), required("gone"))
	w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x"}, {Name: "y"}, {Name: "gone"}}
	out := w.step()
	g.Expect(rangeOf(out, "a").Awaiting).To(Equal([]string{"gone", "y"}))

	// "gone" disappears, "y" is being deleted: neither is waited for.
	w.in.Consumers = []Consumer{required("x", ack("a", cidr, pending)), {Name: "y", Required: true, Deleting: true}}
	out = w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(active))
	g.Expect(reasons(out)).To(Equal([]string{EventRangeActivated, EventConsumerRemoved, EventConsumerRemoved}))
	g.Expect(eventsWith(out, EventConsumerRemoved)[0].Consumer).To(Equal("gone"))
	g.Expect(eventsWith(out, EventConsumerRemoved)[1].Message).To(Equal(`Consumer "y" is being deleted or is gone: transitions no longer wait for it`))
	g.Expect(out.Consumers).To(HaveLen(1))
	g.Expect(out.Consumers[0].Name).To(Equal("x"))
}

func TestExpansionInPlace(t *testing.T) {
	g := NewWithT(t)
	const small, big = "10.244.0.0/16", "10.0.0.0/8"
	w := newWorld(specRng("small", small), specRng("big", big)).status(tracked("small", small, active)).consumers(required("x", ack("small", small, active)))
	w.in.Nodes = []Node{node("n1", "10.244.0.0/24"), node("n2", "10.244.1.0/24")}
	out := w.step()
	g.Expect(phaseOf(out, "big")).To(Equal(pending))
	g.Expect(rangeOf(out, "big").InvalidReason).To(BeEmpty())
	g.Expect(rangeOf(out, "small").CoveredBy).To(BeEmpty()) // big is not Active yet

	w.in.Consumers = []Consumer{required("x", ack("small", small, active), ack("big", big, pending))}
	out = w.step()
	g.Expect(phaseOf(out, "big")).To(Equal(active))
	g.Expect(rangeOf(out, "small").CoveredBy).To(Equal("big"))
	g.Expect(out.Summary.ActiveRanges).To(Equal(int32(2)))

	// The contained range leaves the spec: its blocks stay valid under "big",
	// so it is released without replacing nodes.
	w.in.Spec = []v1alpha1.PodCIDRRange{specRng("big", big)}
	w.in.Consumers = []Consumer{required("x", ack("small", small, draining), ack("big", big, active))}
	out = w.step()
	g.Expect(reasons(out)).To(Equal([]string{EventRangeDraining, EventRangeReleased}))
	g.Expect(phaseOf(out, "small")).To(Equal(released))
	g.Expect(rangeOf(out, "small").Holders).To(BeEmpty())
	g.Expect(out.ForeignNodeCount).To(BeZero())
}

func TestExpansionWithDifferentNodeMaskSizeIsInvalid(t *testing.T) {
	g := NewWithT(t)
	// The CRD rejects this spec; the state machine defends itself anyway.
	w := newWorld(specRng("small", "10.244.0.0/16"), specRng("big", "10.0.0.0/8", 26)).status(tracked("small", "10.244.0.0/16", active))
	out := w.step()
	big := rangeOf(out, "big")
	g.Expect(big.Phase).To(Equal(pending))
	g.Expect(big.InvalidReason).To(Equal(v1alpha1.RangeInvalidRangeConflict))
	g.Expect(big.InvalidMessage).To(ContainSubstring(`overlaps range "small" (10.244.0.0/16, Active) but has nodeMaskSize 26 instead of 24`))
	g.Expect(phaseOf(out, "small")).To(Equal(active))
}

func TestDuplicateSpecCIDRsAreBothInvalid(t *testing.T) {
	g := NewWithT(t)
	out := newWorld(specRng("a", "10.244.0.0/16"), specRng("b", "10.244.0.0/16")).step()
	g.Expect(rangeOf(out, "a").InvalidMessage).To(Equal(`has the same cidr as range "b"`))
	g.Expect(rangeOf(out, "b").InvalidMessage).To(Equal(`has the same cidr as range "a"`))
	g.Expect(phaseOf(out, "a")).To(Equal(pending))
	g.Expect(phaseOf(out, "b")).To(Equal(pending))
}

func TestInvalidRanges(t *testing.T) {
	const cidr = "10.96.0.0/16"
	tests := []struct {
		name       string
		svcs       []ServiceCIDR
		nodes      []Node
		spec       v1alpha1.PodCIDRRange
		wantReason v1alpha1.RangeInvalidReason
		wantMsg    string
		// fixedBy, when set, is the spec that fixes the problem; otherwise
		// removing the ServiceCIDRs and nodes does.
		fixedBy []v1alpha1.PodCIDRRange
	}{
		{
			name:       "overlaps a ServiceCIDR",
			svcs:       []ServiceCIDR{svc("kubernetes", "10.96.0.0/12", false)},
			spec:       specRng("a", cidr),
			wantReason: v1alpha1.RangeInvalidServiceCIDROverlap,
			wantMsg:    `overlaps ServiceCIDR "kubernetes" (10.96.0.0/12)`,
		},
		{
			name:       "overlaps a ServiceCIDR being deleted",
			svcs:       []ServiceCIDR{svc("extra", "10.96.128.0/20", true)},
			spec:       specRng("a", cidr),
			wantReason: v1alpha1.RangeInvalidServiceCIDROverlap,
			wantMsg:    `overlaps ServiceCIDR "extra" (10.96.128.0/20), which is being deleted but may still hold service addresses`,
		},
		{
			name:       "contains a node address",
			nodes:      []Node{nodeWithAddress("n1", "10.96.3.4"), nodeWithAddress("n2", "192.168.1.1")},
			spec:       specRng("a", cidr),
			wantReason: v1alpha1.RangeInvalidNodeAddressOverlap,
			wantMsg:    `contains the address 10.96.3.4 of node "n1"`,
		},
		{
			name:       "nodeMaskSize out of bounds",
			spec:       specRng("a", cidr, 12),
			wantReason: v1alpha1.RangeInvalidCIDR,
			wantMsg:    "invalid pod network range: nodeMaskSize /12 is shorter than the prefix length of 10.96.0.0/16; a node block must fit inside the range (use /16 or longer)",
			// The name stays bound to nodeMaskSize 12 until that range is
			// purged, so the fix is a new name.
			fixedBy: []v1alpha1.PodCIDRRange{specRng("b", cidr)},
		},
		{
			name:       "several problems: the first reason, every message",
			svcs:       []ServiceCIDR{svc("kubernetes", "10.96.0.0/12", false)},
			nodes:      []Node{nodeWithAddress("n1", "10.96.3.4")},
			spec:       specRng("a", cidr),
			wantReason: v1alpha1.RangeInvalidServiceCIDROverlap,
			wantMsg:    `overlaps ServiceCIDR "kubernetes" (10.96.0.0/12); contains the address 10.96.3.4 of node "n1"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			w := newWorld(tc.spec).consumers(required("x", ack("a", cidr, pending)))
			w.in.ServiceCIDRs = tc.svcs
			w.in.Nodes = tc.nodes
			out := w.step()
			r := rangeOf(out, "a")
			g.Expect(r.Phase).To(Equal(pending)) // never activated, although acked
			g.Expect(r.InvalidReason).To(Equal(tc.wantReason))
			g.Expect(r.InvalidMessage).To(Equal(tc.wantMsg))
			g.Expect(r.Awaiting).To(BeEmpty())
			g.Expect(v1alpha1.NeedsAck(r)).To(BeFalse())
			g.Expect(eventsWith(out, EventRangeInvalid)).To(HaveLen(1))
			g.Expect(eventsWith(out, EventRangeInvalid)[0].Type).To(Equal(corev1.EventTypeWarning))
			g.Expect(cond(out, v1alpha1.DegradedCondition)).To(beCondition(v1alpha1.DegradedCondition, metav1.ConditionTrue, v1alpha1.InvalidRangesReason))
			g.Expect(cond(out, v1alpha1.ReadyCondition)).To(beCondition(v1alpha1.ReadyCondition, metav1.ConditionFalse, v1alpha1.InvalidRangesReason))
			g.Expect(cond(out, v1alpha1.ProgressingCondition)).To(beCondition(v1alpha1.ProgressingCondition, metav1.ConditionFalse, v1alpha1.BlockedReason))
			g.Expect(consumerSummary(out, "x").InSync).To(BeTrue()) // nothing to apply

			out = w.step()
			g.Expect(phaseOf(out, "a")).To(Equal(pending))
			g.Expect(eventsWith(out, EventRangeInvalid)).To(BeEmpty())

			// Once the problem is gone, the range proceeds.
			w.in.ServiceCIDRs, w.in.Nodes = nil, nil
			want := "a"
			if tc.fixedBy != nil {
				w.in.Spec, want = tc.fixedBy, tc.fixedBy[0].Name
				w.in.Consumers = []Consumer{required("x", ack("a", cidr, released), ack(want, cidr, pending))}
			}
			out = w.step()
			g.Expect(phaseOf(out, want)).To(Equal(active))
		})
	}
}

func TestConflictAfterActivationIsReportedButDoesNotDemote(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.96.0.0/16"
	w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, active))
	w.in.ServiceCIDRs = []ServiceCIDR{svc("late", "10.96.0.0/24", false)}
	out := w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(active))
	g.Expect(rangeOf(out, "a").InvalidReason).To(Equal(v1alpha1.RangeInvalidServiceCIDROverlap))
	g.Expect(eventsWith(out, EventRangeInvalid)[0].Message).To(Equal(`Active range "a" (10.96.0.0/16) conflicts: overlaps ServiceCIDR "late" (10.96.0.0/24)`))
	g.Expect(cond(out, v1alpha1.ReadyCondition).Status).To(Equal(metav1.ConditionTrue))
	g.Expect(cond(out, v1alpha1.DegradedCondition)).To(beCondition(v1alpha1.DegradedCondition, metav1.ConditionTrue, v1alpha1.InvalidRangesReason))
	g.Expect(cond(out, v1alpha1.DegradedCondition).Message).To(Equal(`Range "a" (10.96.0.0/16) is Active but overlaps ServiceCIDR "late" (10.96.0.0/24)`))
}

func TestUnparsableSpecRange(t *testing.T) {
	g := NewWithT(t)
	out := newWorld(specRng("a", "10.244.1.0/16"), specRng("b", "nope")).step()
	g.Expect(out.Ranges).To(BeEmpty())
	g.Expect(cond(out, v1alpha1.DegradedCondition).Message).To(Equal(
		`Range "a": not a canonical CIDR: "10.244.1.0/16" has host bits set after /16; the network is 10.244.0.0/16; ` +
			`range "b": not a canonical CIDR: "nope" has no prefix length; expected a prefix such as 10.0.0.0/16 or fd00::/48`))
	g.Expect(eventsWith(out, EventRangeInvalid)).To(HaveLen(2))
}

func TestDeletion(t *testing.T) {
	g := NewWithT(t)
	const a, b = "10.244.0.0/16", "10.245.0.0/16"
	w := newWorld(specRng("a", a), specRng("b", b)).status(tracked("a", a, active), tracked("b", b, pending)).consumers(required("x"))
	w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x"}}
	w.in.Deleting = true
	w.in.Nodes = []Node{node("n1", "10.244.0.0/24")}
	out := w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(draining))
	g.Expect(phaseOf(out, "b")).To(Equal(released))
	g.Expect(eventsWith(out, EventRangeDraining)[0].Message).To(ContainSubstring("is being removed because the PodNetwork is being deleted"))
	g.Expect(out.FinalizerRemovable).To(BeFalse())
	g.Expect(cond(out, v1alpha1.ReadyCondition)).To(beCondition(v1alpha1.ReadyCondition, metav1.ConditionFalse, v1alpha1.DeletingReason))
	g.Expect(cond(out, v1alpha1.ReadyCondition).Message).To(Equal(
		`The PodNetwork is being deleted; 2 ranges are still tracked: Range "a" (10.244.0.0/16) is Draining, waiting for consumers x to acknowledge Draining and 1 nodes to give back their blocks (n1); range "b" (10.245.0.0/16) is Released, waiting for consumers x to acknowledge Released`))
	g.Expect(cond(out, v1alpha1.ProgressingCondition)).To(beCondition(v1alpha1.ProgressingCondition, metav1.ConditionTrue, v1alpha1.DeletingReason))
	g.Expect(cond(out, v1alpha1.ReconcilingCondition)).To(beCondition(v1alpha1.ReconcilingCondition, metav1.ConditionTrue, v1alpha1.DeletingReason))

	w.in.Nodes = nil
	w.in.Consumers = []Consumer{required("x", ack("a", a, draining), ack("b", b, released))}
	out = w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(released))
	g.Expect(out.FinalizerRemovable).To(BeFalse())

	w.in.Consumers = []Consumer{required("x", ack("a", a, released), ack("b", b, released))}
	out = w.step()
	g.Expect(out.Ranges).To(BeEmpty())
	g.Expect(out.FinalizerRemovable).To(BeTrue())
	g.Expect(cond(out, v1alpha1.ReadyCondition).Message).To(Equal("The PodNetwork is being deleted and every range has been purged"))
	g.Expect(cond(out, v1alpha1.ProgressingCondition).Reason).To(Equal(v1alpha1.StableReason))
}

func TestDeletionWithNothingTracked(t *testing.T) {
	g := NewWithT(t)
	w := newWorld(specRng("a", "10.244.0.0/16"))
	w.in.Deleting = true
	out := w.step()
	g.Expect(out.Ranges).To(BeEmpty())
	g.Expect(out.Events).To(BeEmpty()) // a deleted PodNetwork never starts tracking ranges
	g.Expect(out.FinalizerRemovable).To(BeTrue())
}

func TestStallDetection(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, pending)).consumers(required("x"))
	w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x"}}
	w.in.Now = t0.Add(4 * time.Minute)
	out := w.step()
	g.Expect(out.RequeueAfter).To(Equal(6 * time.Minute))
	g.Expect(cond(out, v1alpha1.DegradedCondition).Status).To(Equal(metav1.ConditionFalse))

	w.in.Now = t0.Add(10 * time.Minute)
	out = w.step()
	g.Expect(out.RequeueAfter).To(BeZero())
	g.Expect(cond(out, v1alpha1.DegradedCondition)).To(beCondition(v1alpha1.DegradedCondition, metav1.ConditionTrue, v1alpha1.TransitionStalledReason))
	g.Expect(cond(out, v1alpha1.DegradedCondition).Message).To(Equal(`Range "a" (10.244.0.0/16) has waited since 2026-03-01T12:00:00Z for consumers x to acknowledge Pending`))
	g.Expect(eventsWith(out, EventTransitionStalled)).To(HaveLen(1))
	g.Expect(eventsWith(out, EventTransitionStalled)[0].Type).To(Equal(corev1.EventTypeWarning))
	ltt := cond(out, v1alpha1.DegradedCondition).LastTransitionTime

	w.in.Now = t0.Add(20 * time.Minute)
	out = w.step()
	g.Expect(eventsWith(out, EventTransitionStalled)).To(BeEmpty())
	g.Expect(cond(out, v1alpha1.DegradedCondition).LastTransitionTime).To(Equal(ltt))

	w.in.StallAfter = -1
	out = w.step()
	g.Expect(cond(out, v1alpha1.DegradedCondition).Status).To(Equal(metav1.ConditionFalse))
	g.Expect(out.RequeueAfter).To(BeZero())
}

func TestConditionsKeepTransitionTimesAndOtherTypes(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld(specRng("a", cidr))
	w.in.Status.Conditions = []metav1.Condition{{Type: "NodeIPAMReady", Status: metav1.ConditionTrue, Reason: "Running", LastTransitionTime: metav1.NewTime(t0)}}
	out := w.step()
	readySince := cond(out, v1alpha1.ReadyCondition).LastTransitionTime
	g.Expect(cond(out, "NodeIPAMReady").Status).To(Equal(metav1.ConditionTrue))

	w.in.Now = t0.Add(time.Hour)
	w.in.Generation = 2
	out = w.step()
	g.Expect(cond(out, v1alpha1.ReadyCondition).LastTransitionTime).To(Equal(readySince))
	g.Expect(cond(out, v1alpha1.ReadyCondition).ObservedGeneration).To(Equal(int64(2)))
	g.Expect(out.Conditions).To(HaveLen(4))
}

// TestDrainAssistCompleteMirrorsDrainAssist checks that the lifecycle, the
// only writer of status.conditions, mirrors drain assist's Complete
// condition (status.drainAssist, which drain assist alone writes) as
// DrainAssistComplete, and drops it when drain assist reports nothing.
func TestDrainAssistCompleteMirrorsDrainAssist(t *testing.T) {
	g := NewWithT(t)
	w := newWorld(specRng("a", "10.244.0.0/16"))
	out := w.step()
	g.Expect(cond(out, v1alpha1.DrainAssistCompletePodNetworkCondition).Type).To(BeEmpty(), "absent while drain assist is off")

	w.in.Status.DrainAssist = &v1alpha1.DrainAssistStatus{Conditions: []metav1.Condition{{
		Type: v1alpha1.DrainAssistCompleteCondition, Status: metav1.ConditionFalse, Reason: v1alpha1.NodesBlockedReason,
		Message: "1 node will not move on without help", LastTransitionTime: metav1.NewTime(t0),
	}}}
	w.in.Generation = 4
	w.in.Now = t0.Add(time.Minute)
	out = w.step()
	c := cond(out, v1alpha1.DrainAssistCompletePodNetworkCondition)
	g.Expect(c).To(beCondition(v1alpha1.DrainAssistCompletePodNetworkCondition, metav1.ConditionFalse, v1alpha1.NodesBlockedReason))
	g.Expect(c.Message).To(Equal("1 node will not move on without help"))
	g.Expect(c.ObservedGeneration).To(Equal(int64(4)))

	w.in.Status.DrainAssist.Conditions[0].Status = metav1.ConditionTrue
	w.in.Status.DrainAssist.Conditions[0].Reason = v1alpha1.NoNodesToReplaceReason
	w.in.Now = t0.Add(2 * time.Minute)
	out = w.step()
	c = cond(out, v1alpha1.DrainAssistCompletePodNetworkCondition)
	g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(c.LastTransitionTime.Time).To(Equal(t0.Add(2 * time.Minute)))

	w.in.Status.DrainAssist = nil
	out = w.step()
	g.Expect(cond(out, v1alpha1.DrainAssistCompletePodNetworkCondition).Type).To(BeEmpty())
}

func TestUsage(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld(specRng("a", cidr)).status(tracked("a", cidr, active))
	w.in.Usage = map[string]v1alpha1.RangeUsage{"a": v1alpha1.NewRangeUsage(256, 3, 252, 1)}
	out := w.step()
	g.Expect(rangeOf(out, "a").Usage).To(Equal(v1alpha1.NewRangeUsage(256, 3, 252, 1)))

	// Without a report the previous usage stays.
	w.in.Usage = nil
	g.Expect(rangeOf(w.step(), "a").Usage).To(Equal(v1alpha1.NewRangeUsage(256, 3, 252, 1)))

	// A report without the range clears it.
	w.in.Usage = map[string]v1alpha1.RangeUsage{}
	g.Expect(rangeOf(w.step(), "a").Usage).To(BeZero())
}

func TestApplyToKeepsQuarantine(t *testing.T) {
	g := NewWithT(t)
	status := v1alpha1.PodNetworkStatus{Quarantine: []v1alpha1.QuarantinedBlock{{CIDR: "10.244.3.0/24", FreedAt: ptr.To(metav1.NewTime(t0))}}}
	out := Compute(Input{Now: t0, Generation: 3, Spec: []v1alpha1.PodCIDRRange{specRng("a", "10.244.0.0/16")}})
	out.ApplyTo(&status)
	g.Expect(status.Quarantine).To(HaveLen(1))
	g.Expect(status.ObservedGeneration).To(HaveValue(Equal(int64(3))))
	g.Expect(status.Summary).To(Equal(&v1alpha1.PodNetworkSummary{TotalRanges: 1, ActiveRanges: 1}))
}

func TestComputeDoesNotMutateItsInput(t *testing.T) {
	g := NewWithT(t)
	in := Input{
		Now:       t0,
		Spec:      nil,
		Status:    v1alpha1.PodNetworkStatus{Ranges: []v1alpha1.RangeStatus{tracked("a", "10.244.0.0/16", active)}},
		Consumers: []Consumer{required("x")},
	}
	before := in.Status.DeepCopy()
	_ = Compute(in)
	g.Expect(&in.Status).To(Equal(before))
}

func TestConsumerFrom(t *testing.T) {
	g := NewWithT(t)
	now := metav1.NewTime(t0)
	c := &v1alpha1.PodNetworkConsumer{}
	c.Name = "flannel"
	c.DeletionTimestamp = &now
	c.Status.Ranges = []v1alpha1.ConsumerRangeStatus{ack("a", "10.0.0.0/16", pending)}
	g.Expect(ConsumerFrom(c)).To(Equal(Consumer{Name: "flannel", Required: true, Deleting: true, Acks: c.Status.Ranges}))
	f := false
	c.Spec.Required = &f
	c.DeletionTimestamp = nil
	g.Expect(ConsumerFrom(c).Required).To(BeFalse())
	g.Expect(ConsumerFrom(c).Deleting).To(BeFalse())
}

// beCondition matches the type, status and reason of a condition.
func beCondition(t string, status metav1.ConditionStatus, reason string) OmegaMatcher {
	return And(
		WithTransform(func(c metav1.Condition) string { return c.Type }, Equal(t)),
		WithTransform(func(c metav1.Condition) metav1.ConditionStatus { return c.Status }, Equal(status)),
		WithTransform(func(c metav1.Condition) string { return c.Reason }, Equal(reason)),
	)
}

func TestRejectionOfDrainingBlocksRelease(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld().status(tracked("a", cidr, draining)).consumers(required("x", reject(ack("a", cidr, draining), "cannot reload config")))
	w.in.Status.Consumers = []v1alpha1.ConsumerSummary{{Name: "x"}}
	out := w.step()
	r := rangeOf(out, "a")
	g.Expect(r.Phase).To(Equal(draining))
	g.Expect(r.Awaiting).To(BeEmpty())
	g.Expect(r.Message).To(Equal("Rejected by required consumers x; it stays Draining until they accept it"))
	g.Expect(cond(out, v1alpha1.ProgressingCondition)).To(beCondition(v1alpha1.ProgressingCondition, metav1.ConditionFalse, v1alpha1.BlockedReason))
	g.Expect(cond(out, v1alpha1.DegradedCondition)).To(beCondition(v1alpha1.DegradedCondition, metav1.ConditionTrue, v1alpha1.ConsumerRejectedReason))
	g.Expect(cond(out, v1alpha1.ReadyCondition).Message).To(Equal(`Consumer "x" rejected range "a" (10.244.0.0/16) in phase Draining: cannot reload config`))
	g.Expect(reasons(out)).To(Equal([]string{EventConsumerRejected}))
}

func TestAllocationConflictsMakeDegraded(t *testing.T) {
	g := NewWithT(t)
	in := Input{Now: time.Unix(1000, 0), Generation: 1}
	in.Status.AllocationConflicts = []string{"nodes a (10.244.3.0/24) and b (10.244.3.0/24) have overlapping podCIDRs"}
	out := Compute(in)
	c := cond(out, v1alpha1.DegradedCondition)
	g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(c.Reason).To(Equal(v1alpha1.AllocationConflictReason))
	g.Expect(c.Message).To(ContainSubstring("Nodes a (10.244.3.0/24) and b"))
	g.Expect(c.Message).To(ContainSubstring("--allocate-node-cidrs"))
}

func TestLateConsumerIsNotStalledOnArrival(t *testing.T) {
	g := NewWithT(t)
	phaseSince := time.Unix(1000, 0)
	now := phaseSince.Add(time.Hour)
	in := Input{
		Now:        now,
		Generation: 1,
		Spec:       []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.64.0.0/16"}},
		Status: v1alpha1.PodNetworkStatus{Ranges: []v1alpha1.RangeStatus{{
			Name: "a", CIDR: "10.64.0.0/16", IPFamily: v1alpha1.IPv4, NodeMaskSize: 24,
			Phase: v1alpha1.RangePhasePending, PhaseSince: ptr.To(metav1.NewTime(phaseSince)),
		}}},
		StallAfter: 10 * time.Minute,
	}
	late := Consumer{Name: "late", Required: true, RegisteredAt: now.Add(-time.Minute)}
	in.Consumers = []Consumer{late}
	out := Compute(in)
	g.Expect(cond(out, v1alpha1.DegradedCondition).Reason).To(Equal(v1alpha1.AsExpectedReason), "registered a minute ago: not stalled")
	g.Expect(out.RequeueAfter).To(Equal(9*time.Minute), "stalls 10 minutes after registering")

	in.Consumers[0].RegisteredAt = now.Add(-11 * time.Minute)
	out = Compute(in)
	g.Expect(cond(out, v1alpha1.DegradedCondition).Reason).To(Equal(v1alpha1.TransitionStalledReason))
}
