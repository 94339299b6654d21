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
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// ages returns creation times count nodes spread evenly over span, the
// last one now.
func ages(count int, span time.Duration, now time.Time) []time.Time {
	out := make([]time.Time, count)
	for i := range count {
		out[i] = now.Add(-time.Duration(float64(span) * float64(i) / float64(max(count, 1))))
	}
	return out
}

func TestArrivalRate(t *testing.T) {
	now := t0
	old := func(n int) []time.Time {
		out := make([]time.Time, n)
		for i := range out {
			out[i] = now.Add(-time.Hour)
		}
		return out
	}
	tests := []struct {
		name    string
		created []time.Time
		want    float64
	}{
		{name: "no nodes", want: 0},
		{name: "only old nodes", created: old(100), want: 0},
		{name: "steady 50/s over the last minute, old nodes besides", created: append(old(100), ages(3000, time.Minute, now)...), want: 50},
		{name: "a burst in the last 10 s wins over the 5 min average", created: append(append(old(10), ages(300, 5*time.Minute, now)...), ages(100, 10*time.Second, now)...), want: (100.0 + 10) / 10},
		{name: "a young pool: the window is its age", created: ages(100, 2*time.Second, now), want: 100.0 / 5},
		{name: "nodes created in the future (clock skew) do not count", created: []time.Time{now.Add(time.Minute)}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := arrivalRate(tc.created, now); math.Abs(got-tc.want) > tc.want*0.03+1e-9 {
				t.Errorf("rate %.2f/s, want %.2f/s", got, tc.want)
			}
		})
	}
}

func TestLeadTime(t *testing.T) {
	added := func(name, cidr string, at time.Time) v1alpha1.AutoscaledRange {
		return v1alpha1.AutoscaledRange{Name: name, Pool: "p", CIDR: v1alpha1.CIDRString(cidr), NodeMaskSize: 24, AddedTime: ptr.To(metav1.NewTime(at))}
	}
	activeSince := func(cidr string, at time.Time) *v1alpha1.RangeStatus {
		return &v1alpha1.RangeStatus{CIDR: cidr, Phase: v1alpha1.RangePhaseActive, PhaseSince: ptr.To(metav1.NewTime(at))}
	}
	set := []v1alpha1.AutoscaledRange{
		added("p-1", "10.64.0.0/20", t0),
		added("p-2", "10.64.0.0/19", t0.Add(time.Hour)),
		added("p-3", "10.64.0.0/18", t0.Add(2*time.Hour)),
		added("q-1", "10.80.0.0/20", t0.Add(3*time.Hour)),
	}
	set[3].Pool = "q"
	tests := []struct {
		name    string
		tracked map[string]*v1alpha1.RangeStatus
		want    time.Duration
	}{
		{name: "nothing Active yet: the default", tracked: map[string]*v1alpha1.RangeStatus{}, want: DefaultLeadTime},
		{
			name: "the latest Active range of the pool; a Pending later one and other pools do not count",
			tracked: map[string]*v1alpha1.RangeStatus{
				"p-1": activeSince("10.64.0.0/20", t0.Add(40*time.Second)),
				"p-2": activeSince("10.64.0.0/19", t0.Add(time.Hour+7*time.Second)),
				"p-3": {CIDR: "10.64.0.0/18", Phase: v1alpha1.RangePhasePending, PhaseSince: ptr.To(metav1.NewTime(t0.Add(2 * time.Hour)))},
				"q-1": activeSince("10.80.0.0/20", t0.Add(4*time.Hour)),
			},
			want: 7 * time.Second,
		},
		{name: "bounded below", tracked: map[string]*v1alpha1.RangeStatus{"p-1": activeSince("10.64.0.0/20", t0)}, want: minLeadTime},
		{name: "bounded above", tracked: map[string]*v1alpha1.RangeStatus{"p-1": activeSince("10.64.0.0/20", t0.Add(5*time.Hour))}, want: maxLeadTime},
		{name: "a name tracked with another cidr is not the range", tracked: map[string]*v1alpha1.RangeStatus{"p-1": activeSince("10.99.0.0/20", t0.Add(time.Second*9))}, want: DefaultLeadTime},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := leadTime("p", set, tc.tracked); got != tc.want {
				t.Errorf("lead time %s, want %s", got, tc.want)
			}
		})
	}
}

func TestForecastThresholds(t *testing.T) {
	grow := v1alpha1.GrowThreshold{FreePercentBelow: 20, FreeBlocksBelow: 10}
	shrink := v1alpha1.ShrinkPolicy{FreePercentAbove: 50, FreeBlocksAbove: 40}
	tests := []struct {
		name       string
		f          forecast
		wantGrow   bool
		wantShrink bool
		wantExh    time.Duration // 0: no demand
	}{
		{name: "no capacity grows", f: forecast{}, wantGrow: true},
		{name: "plenty free, nothing arrives", f: forecast{capacity: 100, free: 90, lead: 10 * time.Second}, wantShrink: true},
		{name: "below the percentage", f: forecast{capacity: 100, free: 19, lead: 10 * time.Second}, wantGrow: true},
		{name: "below the block count", f: forecast{capacity: 1000, free: 9, lead: 10 * time.Second}, wantGrow: true},
		{name: "at the percentage", f: forecast{capacity: 100, free: 20, lead: 10 * time.Second}},
		{
			name:     "look-ahead: 1/s over two 10 s lead times takes 50 free to 30 < 20 %... of 200",
			f:        forecast{capacity: 200, free: 50, rate: 1, lead: 10 * time.Second},
			wantGrow: true, wantExh: 50 * time.Second,
		},
		{name: "the same without arrivals does not grow", f: forecast{capacity: 200, free: 50, lead: 10 * time.Second}},
		{name: "waiting nodes are served first", f: forecast{capacity: 100, free: 30, waiting: 11, lead: 10 * time.Second}, wantGrow: true},
		{name: "shrink needs every threshold", f: forecast{capacity: 60, free: 39, lead: 10 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.belowGrow(grow); got != tc.wantGrow {
				t.Errorf("belowGrow %v, want %v (projected %.1f)", got, tc.wantGrow, tc.f.projected())
			}
			if got := tc.f.aboveShrink(shrink); got != tc.wantShrink {
				t.Errorf("aboveShrink %v, want %v (projected %.1f)", got, tc.wantShrink, tc.f.projected())
			}
			e, ok := tc.f.exhaustion()
			if ok != (tc.wantExh != 0) || e != tc.wantExh {
				t.Errorf("exhaustion %s %v, want %s", e, ok, tc.wantExh)
			}
		})
	}
}
