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
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// TestMeaning: a status that only refreshes numbers and the messages
// quoting them means the same (its write may wait for StatusInterval); a
// change of state, condition, recommendation or ranges does not (written
// at once).
func TestMeaning(t *testing.T) {
	base := func() *podnetworkv1alpha1.AutoscalingStatus {
		return &podnetworkv1alpha1.AutoscalingStatus{Mode: podnetworkv1alpha1.AutoscalingAuto, Message: "p Steady 10/16 free", Pools: []podnetworkv1alpha1.AutoscalingPoolStatus{{
			Name: "p", State: podnetworkv1alpha1.PoolSteady, Message: "10 of 16 blocks free", Ranges: []string{"p-1"},
			CapacityBlocks: ptr.To(int64(16)), FreeBlocks: ptr.To(int64(10)), BlocksPerHour: ptr.To(int64(60)),
			Conditions: []metav1.Condition{{Type: podnetworkv1alpha1.PoolExhaustedCondition, Status: metav1.ConditionFalse, Reason: podnetworkv1alpha1.HasRoomReason, Message: "m"}},
		}}}
	}
	same := func(edit func(*podnetworkv1alpha1.AutoscalingStatus)) bool {
		s := base()
		edit(s)
		return equality.Semantic.DeepEqual(meaning(base()), meaning(s))
	}
	refreshes := map[string]func(*podnetworkv1alpha1.AutoscalingStatus){
		"numbers": func(s *podnetworkv1alpha1.AutoscalingStatus) {
			s.Pools[0].FreeBlocks, s.Pools[0].ExhaustionSeconds = ptr.To(int64(9)), ptr.To(int64(40))
		},
		"messages":          func(s *podnetworkv1alpha1.AutoscalingStatus) { s.Message, s.Pools[0].Message = "x", "y" },
		"condition message": func(s *podnetworkv1alpha1.AutoscalingStatus) { s.Pools[0].Conditions[0].Message = "z" },
	}
	for name, edit := range refreshes {
		if !same(edit) {
			t.Errorf("%s: means something else, want a refresh", name)
		}
	}
	changes := map[string]func(*podnetworkv1alpha1.AutoscalingStatus){
		"state":     func(s *podnetworkv1alpha1.AutoscalingStatus) { s.Pools[0].State = podnetworkv1alpha1.PoolGrowing },
		"condition": func(s *podnetworkv1alpha1.AutoscalingStatus) { s.Pools[0].Conditions[0].Status = metav1.ConditionTrue },
		"ranges":    func(s *podnetworkv1alpha1.AutoscalingStatus) { s.Pools[0].Ranges = nil },
		"recommendation": func(s *podnetworkv1alpha1.AutoscalingStatus) {
			s.Pools[0].Recommendation = podnetworkv1alpha1.AutoscalingRecommendation{Action: podnetworkv1alpha1.ActionAdd, CIDR: "10.0.0.0/20"}
		},
		"mode": func(s *podnetworkv1alpha1.AutoscalingStatus) { s.Mode = podnetworkv1alpha1.AutoscalingOff },
	}
	for name, edit := range changes {
		if same(edit) {
			t.Errorf("%s: means the same, want a change written at once", name)
		}
	}
	if meaning(nil) != nil {
		t.Error("meaning(nil) is not nil")
	}
}
