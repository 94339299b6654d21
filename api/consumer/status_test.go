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

package consumer

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func TestStatus(t *testing.T) {
	earlier := metav1.NewTime(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	now := metav1.NewTime(earlier.Add(time.Minute))
	active := v1alpha1.RangeStatus{Name: "a", CIDR: "10.1.0.0/16", Phase: v1alpha1.RangePhaseActive}
	pending := v1alpha1.RangeStatus{Name: "b", CIDR: "10.2.0.0/16", Phase: v1alpha1.RangePhasePending}
	pn := &v1alpha1.PodNetwork{Status: v1alpha1.PodNetworkStatus{Ranges: []v1alpha1.RangeStatus{active, pending}}}
	gone := v1alpha1.AckFor(v1alpha1.RangeStatus{Name: "gone", CIDR: "10.9.0.0/16", Phase: v1alpha1.RangePhaseReleased}, v1alpha1.AckAccepted, "", earlier)
	self := &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: 4}}
	self.Status.Ranges = []v1alpha1.ConsumerRangeStatus{v1alpha1.AckFor(active, v1alpha1.AckAccepted, "old", earlier), gone}
	self.Status.Conditions = []metav1.Condition{{Type: "Other", Status: metav1.ConditionTrue, Reason: "Mine"}}
	acceptPending := func(rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
		return v1alpha1.AckAccepted, "ok", rs.Phase == v1alpha1.RangePhasePending
	}

	tests := []struct {
		name string
		u    Update
		want map[string]string // "<phase>/<result>" per range
	}{
		{name: "no PodNetwork: acknowledgements stand", u: Update{Applied: acceptPending, Now: now, Ready: Running("up")},
			want: map[string]string{"a": "Active/Accepted", "gone": "Released/Accepted"}},
		{name: "no answers: acknowledgements stand, untracked ones dropped", u: Update{PodNetwork: pn, Now: now, Ready: Running("up"),
			Applied: func(v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) { return "", "", false }},
			want: map[string]string{"a": "Active/Accepted"}},
		{name: "answers are acknowledged", u: Update{PodNetwork: pn, Applied: acceptPending, Now: now, Ready: ApplyFailed("broken")},
			want: map[string]string{"a": "Active/Accepted", "b": "Pending/Accepted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Status(self, tt.u)
			got := map[string]string{}
			for _, a := range st.Ranges {
				got[a.Name] = string(a.Phase) + "/" + string(a.Result)
			}
			if len(got) != len(tt.want) {
				t.Errorf("acks %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("ack of %s = %q, want %q", k, got[k], v)
				}
			}
			if got := ptr.Deref(st.ObservedGeneration, -1); got != 4 {
				t.Errorf("observedGeneration %d, want 4", got)
			}
			ready := meta.FindStatusCondition(st.Conditions, v1alpha1.ConsumerReadyCondition)
			if ready == nil || ready.Status != tt.u.Ready.Status || ready.Reason != tt.u.Ready.Reason || ready.ObservedGeneration != 4 {
				t.Errorf("Ready = %+v, want %+v at generation 4", ready, tt.u.Ready)
			}
			if meta.FindStatusCondition(st.Conditions, "Other") == nil {
				t.Error("another condition of the consumer was dropped")
			}
		})
	}
	if len(self.Status.Conditions) != 1 {
		t.Error("Status modified the consumer's conditions")
	}
}
