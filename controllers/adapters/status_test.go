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

package adapters

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"podnetwork.io/operator/api/consumer"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters/adapterstest"
)

func TestAdapterStatus(t *testing.T) {
	earlier := metav1.NewTime(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	now := metav1.NewTime(earlier.Add(time.Minute))
	active, pending, far := adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("b", "10.245.0.0/16"), adapterstest.Pending("far", "10.0.0.0/16")
	pn := adapterstest.PodNetwork(active, pending, far)
	self := &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: "kube-proxy", Generation: 3}}
	self.Status.Ranges = []v1alpha1.ConsumerRangeStatus{v1alpha1.AckFor(active, v1alpha1.AckAccepted, "old", earlier)}
	s := &scope{self: self, pn: pn}
	rejected := map[string]string{"far": "no"}

	tests := []struct {
		name string
		out  outcome
		// want is "<phase>/<result>" per range name; absent means no entry.
		want map[string]string
	}{
		{
			name: "cannot act: previous acknowledgements stand, nothing is rejected",
			out:  outcome{ready: metav1.ConditionFalse, reason: "ConfigMapNotFound", rejected: rejected},
			want: map[string]string{"a": "Active/Accepted"},
		},
		{
			name: "rolling out: rejections are answered at once, acceptances wait",
			out:  outcome{ready: metav1.ConditionTrue, reason: "RollingOut", answer: true, rejected: rejected},
			want: map[string]string{"a": "Active/Accepted", "far": "Pending/Rejected"},
		},
		{
			name: "applied: every other current phase is accepted",
			out:  outcome{ready: metav1.ConditionTrue, reason: "Running", answer: true, applied: true, accepted: "done", rejected: rejected},
			want: map[string]string{"a": "Active/Accepted", "b": "Pending/Accepted", "far": "Pending/Rejected"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := consumer.Status(s.self, statusUpdate(s, tt.out, now))
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
			c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConsumerReadyCondition)
			observed := ptr.Deref(st.ObservedGeneration, 0)
			if c == nil || c.Status != tt.out.ready || c.Reason != tt.out.reason || c.ObservedGeneration != 3 || observed != 3 {
				t.Errorf("Ready = %+v, observedGeneration %d", c, observed)
			}
		})
	}
}
