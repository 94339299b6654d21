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

package watches

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"podnetwork.io/operator/internal/slimnode"
)

func TestNodeNetworkChangedIgnoresHeartbeats(t *testing.T) {
	base := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"a": "b"}},
		Spec:       corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/24"}},
		Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "192.0.2.1"}}},
	}
	relabelled := base.DeepCopy()
	relabelled.Labels["a"] = "c"
	relabelled.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	newCIDR := base.DeepCopy()
	newCIDR.Spec.PodCIDRs = []string{"10.0.1.0/24"}
	newAddr := base.DeepCopy()
	newAddr.Status.Addresses[0].Address = "192.0.2.2"

	p := NodeUpdate(NodeNetworkChanged)
	for _, tc := range []struct {
		name string
		new  *corev1.Node
		want bool // for the nodes as the cache holds them
	}{
		{"labels and conditions", relabelled, false},
		{"podCIDRs", newCIDR, true},
		{"addresses", newAddr, true},
	} {
		if got := p.Update(event.UpdateEvent{ObjectOld: slimnode.From(base), ObjectNew: slimnode.From(tc.new)}); got != tc.want {
			t.Errorf("%s: passes = %v, want %v", tc.name, got, tc.want)
		}
	}
}
