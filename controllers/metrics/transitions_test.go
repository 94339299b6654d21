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

package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/lifecycle"
)

func TestObserveTransitions(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { return ptr.To(metav1.NewTime(t0.Add(d))) }
	const cidr = "10.1.0.0/16"
	ackAt := func(name string, d time.Duration) v1alpha1.PodNetworkConsumer {
		return v1alpha1.PodNetworkConsumer{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: v1alpha1.PodNetworkConsumerStatus{Ranges: []v1alpha1.ConsumerRangeStatus{{
				Name: "blue", CIDR: cidr, Phase: v1alpha1.RangePhasePending,
				Result: v1alpha1.AckAccepted, LastTransitionTime: at(d),
			}}},
		}
	}
	// A consumer's clock, or a hand edit, may put its time anywhere.
	consumers := []v1alpha1.PodNetworkConsumer{ackAt("alpha", 4*time.Second), ackAt("future", 1000*time.Hour), ackAt("past", -time.Hour)}
	tracked := lifecycle.Transition{Range: "blue", CIDR: cidr, To: v1alpha1.RangePhasePending, At: *at(0)}
	activated := lifecycle.Transition{Range: "blue", CIDR: cidr, From: v1alpha1.RangePhasePending, To: v1alpha1.RangePhaseActive,
		FromSince: at(0), At: *at(10 * time.Second)}
	backwards := activated
	backwards.FromSince = at(time.Hour)
	repaired := activated
	repaired.Repair = true
	purged := lifecycle.Transition{Range: "blue", CIDR: cidr, From: v1alpha1.RangePhaseReleased, FromSince: at(0), At: *at(time.Minute)}
	tests := []struct {
		name                 string
		ts                   []lifecycle.Transition
		wantEntered          float64 // podnetwork_range_transitions_total{phase="Active"}
		wantPending          float64 // podnetwork_range_transitions_total{phase="Pending"}
		wantLasted, wantAcks int     // series of the two histograms
	}{
		{name: "no transition"},
		{name: "new range: entered Pending, nothing lasted", ts: []lifecycle.Transition{tracked}, wantPending: 1},
		{name: "phase change: entered, lasted, acknowledged", ts: []lifecycle.Transition{activated}, wantEntered: 1, wantLasted: 1, wantAcks: 1},
		{name: "added and activated in one reconcile: each transition counts once", ts: []lifecycle.Transition{tracked, activated},
			wantEntered: 1, wantPending: 1, wantLasted: 1, wantAcks: 1},
		{name: "a phase that ended before it began lasted nothing measurable", ts: []lifecycle.Transition{backwards}, wantEntered: 1},
		{name: "a repair counts, but what another client wrote is not measured", ts: []lifecycle.Transition{repaired}, wantEntered: 1},
		{name: "a purge enters no phase; Released lasted", ts: []lifecycle.Transition{purged}, wantLasted: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			if err := m.Register(prometheus.NewRegistry()); err != nil {
				t.Fatal(err)
			}
			m.ObserveTransitions(tt.ts, consumers)
			if got := testutil.ToFloat64(m.rangeTransitions.WithLabelValues("Active")); got != tt.wantEntered {
				t.Errorf("transitions into Active = %v, want %v", got, tt.wantEntered)
			}
			if got := testutil.ToFloat64(m.rangeTransitions.WithLabelValues("Pending")); got != tt.wantPending {
				t.Errorf("transitions into Pending = %v, want %v", got, tt.wantPending)
			}
			if got := testutil.CollectAndCount(m.phaseDuration); got != tt.wantLasted {
				t.Errorf("phase duration series = %d, want %d", got, tt.wantLasted)
			}
			if got := testutil.CollectAndCount(m.consumerAck); got != tt.wantAcks {
				t.Errorf("consumer ack series = %d, want %d", got, tt.wantAcks)
			}
		})
	}
}

func TestNilMetricsRecordNothing(t *testing.T) {
	var m *Metrics
	m.ObserveAllocation(time.Second)
	m.CIDRNotAvailable()
	m.ObserveTransitions([]lifecycle.Transition{{Range: "blue", To: v1alpha1.RangePhasePending}}, nil)
}
