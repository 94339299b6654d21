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
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// shrinkFixture: the admin's 10.64.0.0/20 (16 blocks, adminUsed held) and
// the autoscaler's empty 10.64.16.0/20; shrink above 50 % after 10 min.
func shrinkFixture(adminUsed int64) *fixture {
	f := newFixture(v1alpha1.AutoscalingAuto).admin("pods", "10.64.0.0/20", active, 16, adminUsed, 0).auto("p-1", "10.64.16.0/20", active, 16, 0, 0)
	f.pool().Shrink = v1alpha1.ShrinkPolicy{FreePercentAbove: 50, IdleSeconds: ptr.To(int32(600))}
	return f
}

func TestShrink(t *testing.T) {
	f := shrinkFixture(2)
	out := f.decide()
	st := poolStatus(t, out)
	if out.SetChanged || len(st.IdleRanges) != 1 || st.IdleRanges[0].Name != "p-1" || !st.IdleRanges[0].Since.Time.Equal(t0) {
		t.Fatalf("changed %v idle %+v, want p-1 idle since now, nothing removed yet", out.SetChanged, st.IdleRanges)
	}
	if out.RequeueAfter > maxRequeue || out.RequeueAfter <= 0 {
		t.Errorf("requeue %s", out.RequeueAfter)
	}
	// Nine minutes later: not yet.
	f.in.Now = t0.Add(9 * time.Minute)
	if out = f.next(out).decide(); out.SetChanged {
		t.Fatalf("removed after 9 minutes: %v", setNames(out))
	}
	// Ten minutes: removed, since 14 of 16 blocks stay free without it.
	f.in.Now = t0.Add(10 * time.Minute)
	out = f.next(out).decide()
	if len(out.Set) != 0 || !out.SetChanged || poolStatus(t, out).State != v1alpha1.PoolShrinking {
		t.Fatalf("set %v state %s, want p-1 removed, Shrinking", setNames(out), poolStatus(t, out).State)
	}
	if !slices.Equal(reasons(out), []string{v1alpha1.AutoscaledRangeRemovedEvent}) || out.Steps[0].Action != "Remove" {
		t.Errorf("events %v steps %+v", reasons(out), out.Steps)
	}

	// Hysteresis: the state after the removal (p-1 draining) grows nothing.
	f.next(out)
	rs := f.status("p-1")
	rs.Phase, rs.Usage, rs.PhaseSince = draining, v1alpha1.RangeUsage{}, ptr.To(f.nowTime())
	if out = f.decide(); out.SetChanged || poolStatus(t, out).State != v1alpha1.PoolShrinking {
		t.Errorf("after the shrink: set %v state %s, want nothing added while it drains", setNames(out), poolStatus(t, out).State)
	}
}

func (f *fixture) nowTime() metav1.Time { return metav1.NewTime(f.in.Now) }

func TestShrinkNever(t *testing.T) {
	later := t0.Add(time.Hour)
	tests := []struct {
		name  string
		setup func(*fixture)
	}{
		{name: "when the thresholds fail without the range (6 of 16 free = 37 %)", setup: func(f *fixture) {
			f.status("pods").Usage = v1alpha1.NewRangeUsage(16, 10, 6, 0)
		}},
		{name: "a range holding a block", setup: func(f *fixture) {
			f.status("p-1").Usage = v1alpha1.NewRangeUsage(16, 1, 15, 0)
		}},
		{name: "a range holding a quarantined block", setup: func(f *fixture) {
			f.status("p-1").Usage = v1alpha1.NewRangeUsage(16, 0, 15, 1)
		}},
		{name: "a range NodeIPAM has not reported", setup: func(f *fixture) {
			f.status("p-1").Usage = v1alpha1.RangeUsage{}
		}},
		{name: "the admin's range", setup: func(f *fixture) {
			f.in.Set = nil
			f.in.Status.Ranges = f.in.Status.Ranges[:1]
			f.status("pods").Usage = v1alpha1.NewRangeUsage(16, 0, 16, 0)
			f.in.Spec = append(f.in.Spec, v1alpha1.PodCIDRRange{Name: "more", CIDR: "10.65.0.0/16", NodeMaskSize: 24})
			f.tracked("more", "10.65.0.0/16", active, "", 256, 0, 0)
		}},
		{name: "within the cooldown of the pool's last step", setup: func(f *fixture) {
			f.in.Autoscaling.CooldownSeconds = ptr.To(int32(86400))
		}},
		{name: "while a range it removed still drains", setup: func(f *fixture) {
			f.tracked("p-0", "10.64.32.0/20", draining, "p")
		}},
		{name: "without a shrink policy", setup: func(f *fixture) {
			f.pool().Shrink = v1alpha1.ShrinkPolicy{}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := shrinkFixture(2)
			tc.setup(f)
			out := f.decide()
			f.in.Now = later
			out = f.next(out).decide()
			if out.SetChanged {
				t.Errorf("set %v: removed", setNames(out))
			}
		})
	}
}

func TestShrinkRecommend(t *testing.T) {
	f := shrinkFixture(2)
	f.in.Autoscaling.Mode = v1alpha1.AutoscalingRecommend
	out := f.decide()
	f.in.Now = t0.Add(time.Hour)
	out = f.next(out).decide()
	st := poolStatus(t, out)
	want := v1alpha1.AutoscalingRecommendation{Action: v1alpha1.ActionRemove, CIDR: "10.64.16.0/20", Range: "p-1"}
	if out.SetChanged || st.Recommendation != want || !slices.Equal(reasons(out), []string{v1alpha1.RangeRecommendedEvent}) {
		t.Errorf("changed %v recommendation %+v events %v, want only the recommendation %+v", out.SetChanged, st.Recommendation, reasons(out), want)
	}
}
