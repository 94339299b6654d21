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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/statusedit"
)

// edit is what statusedit.Find reports for kubectl edit --subresource=status
// setting fields of one range entry.
func edit(rangeName string, fields ...string) statusedit.Edit {
	return statusedit.Edit{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate,
		Ranges: map[string][]string{rangeName: fields}}
}

// TestRepairHandEditedStatus checks what Compute makes of a status entry it
// cannot trust: it is never used to allocate (Active) or to forget (Released)
// a range on its own word.
func TestRepairHandEditedStatus(t *testing.T) {
	const cidr = "10.244.0.0/16"
	withCIDR := func(rs v1alpha1.RangeStatus, c string) v1alpha1.RangeStatus { rs.CIDR = c; return rs }
	held := tracked("a", "10.99.0.0/16", draining)
	held.InvalidReason = v1alpha1.RangeInvalidStatusEdited
	tests := []struct {
		name      string
		spec      []v1alpha1.PodCIDRRange
		status    v1alpha1.RangeStatus
		edits     []statusedit.Edit
		consumers []Consumer
		nodes     []Node
		wantPhase v1alpha1.RangePhase
		wantCIDR  string
		wantWhy   v1alpha1.RangeInvalidReason
		wantEvent string // substring of the range's StatusEdited event; "" for none
	}{
		{
			name: "Pending edited to Active while a consumer has not accepted: Pending again",
			spec: []v1alpha1.PodCIDRRange{specRng("a", cidr)}, status: tracked("a", cidr, active), edits: []statusedit.Edit{edit("a", "phase")},
			consumers: []Consumer{required("x")},
			wantPhase: pending, wantCIDR: cidr, wantEvent: `"kubectl-edit" set phase: it is Pending`,
		},
		{
			name: "Active edited to Active by hand: consumers acknowledge it again",
			spec: []v1alpha1.PodCIDRRange{specRng("a", cidr)}, status: tracked("a", cidr, active), edits: []statusedit.Edit{edit("a", "phase")},
			consumers: []Consumer{required("x", ack("a", cidr, active))},
			wantPhase: pending, wantCIDR: cidr, wantEvent: "is Pending",
		},
		{
			name: "edited to Pending while every consumer still accepts Pending: Active again in the same step",
			spec: []v1alpha1.PodCIDRRange{specRng("a", cidr)}, status: tracked("a", cidr, pending), edits: []statusedit.Edit{edit("a", "phase")},
			consumers: []Consumer{required("x", ack("a", cidr, pending))},
			wantPhase: active, wantCIDR: cidr, wantEvent: "stays Pending",
		},
		{
			name:   "Draining edited to Released while a node holds a block: Draining again",
			status: tracked("a", cidr, released), edits: []statusedit.Edit{edit("a", "phase")},
			consumers: []Consumer{required("x", ack("a", cidr, draining))},
			nodes:     []Node{node("n1", "10.244.3.0/24")},
			wantPhase: draining, wantCIDR: cidr, wantEvent: "is Draining",
		},
		{
			name:   "an edited phase out of the spec is released by the rules once nothing holds it",
			status: tracked("a", cidr, released), edits: []statusedit.Edit{edit("a", "phase")},
			consumers: []Consumer{required("x", ack("a", cidr, draining))},
			wantPhase: released, wantCIDR: cidr, wantEvent: "is Draining",
		},
		{
			name: "cidr of a spec range edited: taken from the spec again, Pending",
			spec: []v1alpha1.PodCIDRRange{specRng("a", cidr)}, status: tracked("a", "10.99.0.0/16", active), edits: []statusedit.Edit{edit("a", "cidr")},
			consumers: []Consumer{required("x", ack("a", cidr, active))},
			wantPhase: pending, wantCIDR: cidr, wantEvent: "takes cidr 10.244.0.0/16 and nodeMaskSize 24 from the spec again",
		},
		{
			name:   "cidr of a range out of the spec edited: held Draining for good",
			status: tracked("a", "10.99.0.0/16", draining), edits: []statusedit.Edit{edit("a", "cidr")},
			consumers: []Consumer{required("x", ack("a", "10.99.0.0/16", draining))},
			wantPhase: draining, wantCIDR: "10.99.0.0/16", wantWhy: v1alpha1.RangeInvalidStatusEdited, wantEvent: "held Draining",
		},
		{
			name:      "a held range stays held once the edit is taken over",
			status:    held,
			consumers: []Consumer{required("x", ack("a", "10.99.0.0/16", draining))},
			wantPhase: draining, wantCIDR: "10.99.0.0/16", wantWhy: v1alpha1.RangeInvalidStatusEdited,
		},
		{
			name:      "a held range comes back through the spec",
			spec:      []v1alpha1.PodCIDRRange{specRng("a", cidr)},
			status:    held,
			consumers: []Consumer{required("x")},
			wantPhase: pending, wantCIDR: cidr, wantEvent: "was held Draining",
		},
		{
			name:      "a garbage cidr out of the spec: never released",
			status:    withCIDR(tracked("a", cidr, draining), "garbage"),
			consumers: []Consumer{required("x", ack("a", "garbage", draining))},
			wantPhase: draining, wantCIDR: "garbage", wantWhy: v1alpha1.RangeInvalidCIDR,
		},
		{
			name:      "a non-canonical cidr of a spec range: taken from the spec",
			spec:      []v1alpha1.PodCIDRRange{specRng("a", cidr)},
			status:    withCIDR(tracked("a", cidr, active), "10.244.1.0/16"),
			consumers: []Consumer{required("x")},
			wantPhase: pending, wantCIDR: cidr, wantEvent: `its cidr "10.244.1.0/16" is not a canonical prefix`,
		},
		{
			name:      "a Released garbage entry is purged once acknowledged",
			status:    withCIDR(tracked("a", cidr, released), "garbage"),
			consumers: []Consumer{required("x", ack("a", "garbage", released))},
		},
		{
			name:   "an entry another client added out of the spec: Draining",
			status: tracked("x", "10.50.0.0/16", active), edits: []statusedit.Edit{edit("x", ".", "cidr", "name", "phase")},
			consumers: []Consumer{required("c")},
			wantPhase: draining, wantCIDR: "10.50.0.0/16", wantEvent: "is Draining",
		},
		{
			name: "an unknown phase in the spec: Pending",
			spec: []v1alpha1.PodCIDRRange{specRng("a", cidr)}, status: func() v1alpha1.RangeStatus { r := tracked("a", cidr, "Bogus"); return r }(),
			consumers: []Consumer{required("x")},
			wantPhase: pending, wantCIDR: cidr, wantEvent: `its phase "Bogus" is none of`,
		},
		{
			name:      "an unknown phase out of the spec: Draining",
			status:    tracked("a", cidr, "Bogus"),
			consumers: []Consumer{required("x")},
			wantPhase: draining, wantCIDR: cidr, wantEvent: "is Draining",
		},
		{
			name: "a field the lifecycle recomputes: nothing to repair",
			spec: []v1alpha1.PodCIDRRange{specRng("a", cidr)}, status: tracked("a", cidr, active), edits: []statusedit.Edit{edit("a", "message")},
			wantPhase: active, wantCIDR: cidr,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			w := newWorld(tt.spec...).consumers(tt.consumers...).status(tt.status)
			w.in.Edits, w.in.Nodes, w.in.Now = tt.edits, tt.nodes, t0.Add(time.Minute)
			out := w.step()
			r := rangeOf(out, tt.status.Name)
			if tt.wantPhase == "" {
				g.Expect(r).To(BeNil(), "purged")
				return
			}
			g.Expect(r).NotTo(BeNil())
			g.Expect(r.Phase).To(Equal(tt.wantPhase))
			g.Expect(r.CIDR).To(Equal(tt.wantCIDR))
			g.Expect(r.InvalidReason).To(Equal(tt.wantWhy))
			var notes []string
			for _, ev := range eventsWith(out, EventStatusEdited) {
				if ev.Range == tt.status.Name {
					notes = append(notes, ev.Message)
				}
			}
			if tt.wantEvent == "" {
				g.Expect(notes).To(BeEmpty())
			} else {
				g.Expect(notes).To(ConsistOf(ContainSubstring(tt.wantEvent)))
			}
			if len(tt.edits) > 0 {
				g.Expect(eventsWith(out, EventStatusEdited)).To(ContainElement(HaveField("Message",
					ContainSubstring(`Only the operator writes the PodNetwork status, but "kubectl-edit" (Update) set status.ranges{`+tt.status.Name+`}`))))
			}
			// The next reconcile, with the edit taken over, changes nothing.
			w.in.Edits = nil
			again := w.step()
			g.Expect(eventsWith(again, EventStatusEdited)).To(BeEmpty())
			if tt.wantWhy != "" {
				g.Expect(phaseOf(again, tt.status.Name)).To(Equal(draining))
				g.Expect(cond(again, v1alpha1.DegradedCondition).Reason).To(Equal(v1alpha1.InvalidRangesReason))
				g.Expect(rangeOf(again, tt.status.Name).Message).To(Equal("Never released until the problem in invalidMessage is fixed"))
			}
		})
	}
}

func TestFuturePhaseSinceIsNow(t *testing.T) {
	g := NewWithT(t)
	rs := tracked("a", "10.244.0.0/16", active)
	rs.PhaseSince = ptr.To(metav1.NewTime(t0.Add(1000 * time.Hour)))
	out := newWorld(specRng("a", "10.244.0.0/16")).status(rs).step()
	g.Expect(rangeOf(out, "a").PhaseSince.Time).To(Equal(t0))
	g.Expect(phaseOf(out, "a")).To(Equal(active))
}

// TestMalformedInput checks that values the operator cannot read, or reads
// only in a legacy format, are reported once, and that a node whose podCIDR
// cannot be read keeps every Draining range.
func TestMalformedInput(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	w := newWorld().status(tracked("a", cidr, draining)).consumers(
		required("x", ack("a", cidr, draining), v1alpha1.ConsumerRangeStatus{Name: "b", CIDR: "garbage", Phase: active, Result: v1alpha1.AckAccepted}))
	w.in.Nodes = []Node{
		{Name: "n1", UnreadablePodCIDRs: []string{"junk"}, Problems: []string{`"junk" is not a CIDR`}},
		{Name: "n2", Problems: []string{`InternalIP "garbage" is not an IP address`}},
	}
	w.in.ServiceCIDRs = []ServiceCIDR{{Name: "old", Problems: []string{`"010.96.0.0/16" has leading zeros`}}}
	out := w.step()

	g.Expect(phaseOf(out, "a")).To(Equal(draining), "n1 may hold a block in it")
	g.Expect(rangeOf(out, "a").Holders).To(Equal([]string{"n1"}))
	degraded := cond(out, v1alpha1.DegradedCondition)
	g.Expect(degraded.Reason).To(Equal(v1alpha1.MalformedInputReason))
	g.Expect(degraded.Message).To(ContainSubstring(`2 nodes have podCIDRs or addresses the operator cannot read, or reads only in a legacy format: "n1" ("junk" is not a CIDR; it counts as a holder of every Draining range) and "n2" (InternalIP "garbage" is not an IP address)`))
	g.Expect(degraded.Message).To(ContainSubstring(`a ServiceCIDR has cidrs the operator cannot read, or reads only in a legacy format: "old"`))
	g.Expect(degraded.Message).To(ContainSubstring(`a consumer acknowledges ranges with cidrs that are not canonical prefixes, which never count: "x" (b (cidr "garbage"))`))
	g.Expect(consumerSummary(out, "x").Message).To(ContainSubstring(`Ignored acknowledgements whose cidr is not a canonical prefix: b (cidr "garbage")`))
	g.Expect(eventsWith(out, EventMalformedInput)).To(HaveLen(3))

	// Reported once: the next reconcile emits nothing new.
	g.Expect(eventsWith(w.step(), EventMalformedInput)).To(BeEmpty())

	// Once the node is fixed, the range is released.
	w.in.Nodes, w.in.ServiceCIDRs = nil, nil
	w.in.Consumers = []Consumer{required("x", ack("a", cidr, draining))}
	out = w.step()
	g.Expect(phaseOf(out, "a")).To(Equal(released))
	g.Expect(cond(out, v1alpha1.DegradedCondition).Reason).To(Equal(v1alpha1.AsExpectedReason))
}

// TestMessagesStayWithinTheAPILimits feeds the longest consumer messages the
// CRD accepts (1024 characters of 2-byte UTF-8) and checks every field and
// event note against what the API accepts.
func TestMessagesStayWithinTheAPILimits(t *testing.T) {
	g := NewWithT(t)
	const cidr = "10.244.0.0/16"
	long := strings.Repeat("é", 1024)
	var cs []Consumer
	for i := range 40 {
		cs = append(cs, required(fmt.Sprintf("consumer-%02d", i), reject(ack("a", cidr, pending), long)))
	}
	out := newWorld(specRng("a", cidr)).status(tracked("a", cidr, pending)).consumers(cs...).step()
	g.Expect(eventsWith(out, EventConsumerRejected)).To(HaveLen(40))
	for _, ev := range out.Events {
		g.Expect(len(ev.Message)).To(BeNumerically("<=", v1alpha1.MaxMessageLength), ev.Reason)
	}
	for _, r := range out.Ranges {
		g.Expect(len(r.Message)).To(BeNumerically("<=", v1alpha1.MaxMessageLength))
		for _, rj := range r.Rejections {
			g.Expect(len(rj.Message)).To(BeNumerically("<=", v1alpha1.MaxMessageLength))
		}
	}
	for _, c := range out.Consumers {
		g.Expect(len(c.Message)).To(BeNumerically("<=", v1alpha1.MaxMessageLength))
	}
	for _, c := range out.Conditions {
		g.Expect(len(c.Message)).To(BeNumerically("<=", maxConditionMessage))
	}
}

// TestOtherConditionsNeverOverflowTheList keeps the operator's conditions
// when another client filled status.conditions: the CRD refuses more than
// 16, and a refused status write would repeat on every reconcile.
func TestOtherConditionsNeverOverflowTheList(t *testing.T) {
	g := NewWithT(t)
	w := newWorld(specRng("a", "10.244.0.0/16"))
	for i := range 16 {
		w.in.Status.Conditions = append(w.in.Status.Conditions, metav1.Condition{Type: fmt.Sprintf("Junk%02d", i), Status: metav1.ConditionTrue, Reason: "Junk"})
	}
	out := w.step()
	g.Expect(len(out.Conditions)).To(BeNumerically("<=", maxConditions))
	g.Expect(cond(out, v1alpha1.ReadyCondition).Type).To(Equal(v1alpha1.ReadyCondition))
	g.Expect(cond(out, v1alpha1.DegradedCondition).Type).To(Equal(v1alpha1.DegradedCondition))
	g.Expect(cond(out, "Junk00").Type).To(Equal("Junk00"), "the first ones are kept")
}
