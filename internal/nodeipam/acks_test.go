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

package nodeipam

import (
	"net/netip"
	"testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func TestConfigAck(t *testing.T) {
	pn := podNetwork().
		rng("pending", "10.1.0.0/16", v1alpha1.RangePhasePending).
		rng("active", "10.2.0.0/16", v1alpha1.RangePhaseActive).
		rng("draining", "10.3.0.0/16", v1alpha1.RangePhaseDraining).
		rng("bad", "10.2.0.0/15", v1alpha1.RangePhasePending, mask(26)).obj()
	applied := NewConfig(pn)
	idle := func(netip.Prefix) bool { return false }
	busyIn := func(p netip.Prefix) func(netip.Prefix) bool {
		return func(q netip.Prefix) bool { return q == p }
	}
	status := func(name string, phase v1alpha1.RangePhase) v1alpha1.RangeStatus {
		rs := *pn.Status.FindRange(name)
		rs.Phase = phase
		return rs
	}
	released := status("active", v1alpha1.RangePhaseReleased)
	releasedWithUsage := released
	releasedWithUsage.Usage = v1alpha1.NewRangeUsage(1, 0, 1, 0)
	gone := v1alpha1.RangeStatus{Name: "gone", CIDR: "10.9.0.0/16", Phase: v1alpha1.RangePhaseReleased}

	tests := []struct {
		name       string
		rs         v1alpha1.RangeStatus
		busy       func(netip.Prefix) bool
		wantResult v1alpha1.AckResult
		wantDone   bool
	}{
		{name: "Pending tracked", rs: status("pending", v1alpha1.RangePhasePending), wantResult: v1alpha1.AckAccepted, wantDone: true},
		{name: "Pending unusable is rejected", rs: status("bad", v1alpha1.RangePhasePending), wantResult: v1alpha1.AckRejected, wantDone: true},
		{name: "Active allocating", rs: status("active", v1alpha1.RangePhaseActive), wantResult: v1alpha1.AckAccepted, wantDone: true},
		{name: "Active not applied yet", rs: status("pending", v1alpha1.RangePhaseActive)},
		{name: "Draining applied and idle", rs: status("draining", v1alpha1.RangePhaseDraining), wantResult: v1alpha1.AckAccepted, wantDone: true},
		{name: "Draining with a write in flight", rs: status("draining", v1alpha1.RangePhaseDraining), busy: busyIn(mp("10.3.0.0/16"))},
		{name: "Draining not applied yet", rs: status("active", v1alpha1.RangePhaseDraining)},
		{name: "Released but still tracked", rs: released},
		{name: "Released and gone", rs: gone, wantResult: v1alpha1.AckAccepted, wantDone: true},
		{name: "Released, gone, usage still shown", rs: func() v1alpha1.RangeStatus { g := gone; g.Usage = releasedWithUsage.Usage; return g }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			busy := tt.busy
			if busy == nil {
				busy = idle
			}
			result, msg, done := applied.Ack(tt.rs, busy)
			if result != tt.wantResult || done != tt.wantDone {
				t.Fatalf("Ack = %q, %q, %v; want %q, done %v", result, msg, done, tt.wantResult, tt.wantDone)
			}
			if done && msg == "" {
				t.Fatal("an answer without a message")
			}
		})
	}
}

// TestConfigAckNeverAnswersAHandEditedPhase: a phase another client set is
// not acknowledged, whatever it is, until the lifecycle repaired it.
func TestConfigAckNeverAnswersAHandEditedPhase(t *testing.T) {
	idle := func(netip.Prefix) bool { return false }
	for _, phase := range []v1alpha1.RangePhase{v1alpha1.RangePhasePending, v1alpha1.RangePhaseActive, v1alpha1.RangePhaseDraining, v1alpha1.RangePhaseReleased} {
		pn := podNetwork().rng("a", "10.1.0.0/16", phase).handEdited("a", "phase").obj()
		c := NewConfig(pn)
		if result, _, done := c.Ack(*pn.Status.FindRange("a"), idle); done {
			t.Errorf("%s set by hand was acknowledged %s", phase, result)
		}
	}
}
