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
)

func TestObserveTransitions(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { return ptr.To(metav1.NewTime(t0.Add(d))) }
	pending := v1alpha1.RangeStatus{Name: "blue", CIDR: "10.1.0.0/16", Phase: v1alpha1.RangePhasePending, PhaseSince: at(0)}
	active := pending
	active.Phase, active.PhaseSince = v1alpha1.RangePhaseActive, at(10*time.Second)
	moved := active
	moved.CIDR = "10.2.0.0/16"
	ackAt := func(name string, d time.Duration) v1alpha1.PodNetworkConsumer {
		return v1alpha1.PodNetworkConsumer{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: v1alpha1.PodNetworkConsumerStatus{Ranges: []v1alpha1.ConsumerRangeStatus{{
				Name: "blue", CIDR: pending.CIDR, Phase: v1alpha1.RangePhasePending,
				Result: v1alpha1.AckAccepted, LastTransitionTime: at(d),
			}}},
		}
	}
	// A consumer's clock, or a hand edit, may put its time anywhere.
	consumers := []v1alpha1.PodNetworkConsumer{ackAt("alpha", 4*time.Second), ackAt("future", 1000*time.Hour), ackAt("past", -time.Hour)}
	backwards := pending
	backwards.PhaseSince = at(time.Hour)
	tests := []struct {
		name                 string
		before, after        []v1alpha1.RangeStatus
		wantEntered          float64 // podnetwork_range_transitions_total{phase="Active"}
		wantLasted, wantAcks int     // observations of the two histograms
	}{
		{name: "no change", before: []v1alpha1.RangeStatus{active}, after: []v1alpha1.RangeStatus{active}},
		{name: "new range: entered, nothing lasted", after: []v1alpha1.RangeStatus{active}, wantEntered: 1},
		{name: "phase change: entered, lasted, acknowledged", before: []v1alpha1.RangeStatus{pending}, after: []v1alpha1.RangeStatus{active},
			wantEntered: 1, wantLasted: 1, wantAcks: 1},
		{name: "CIDR change is a new range", before: []v1alpha1.RangeStatus{active}, after: []v1alpha1.RangeStatus{moved}, wantEntered: 1},
		{name: "a phase that ended before it began lasted nothing measurable", before: []v1alpha1.RangeStatus{backwards}, after: []v1alpha1.RangeStatus{active},
			wantEntered: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			if err := m.Register(prometheus.NewRegistry()); err != nil {
				t.Fatal(err)
			}
			m.ObserveTransitions(tt.before, tt.after, consumers)
			if got := testutil.ToFloat64(m.rangeTransitions.WithLabelValues("Active")); got != tt.wantEntered {
				t.Errorf("transitions into Active = %v, want %v", got, tt.wantEntered)
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
	m.ObserveTransitions(nil, []v1alpha1.RangeStatus{{Name: "blue"}}, nil)
}
