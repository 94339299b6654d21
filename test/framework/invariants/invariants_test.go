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

package invariants

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

var (
	activatedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	assignedAt  = activatedAt
)

func node(name, manager string, cidrs ...string) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if len(cidrs) > 0 {
		n.Spec.PodCIDR, n.Spec.PodCIDRs = cidrs[0], cidrs
	}
	if manager != "" {
		n.ManagedFields = []metav1.ManagedFieldsEntry{{
			Manager: manager, FieldsType: "FieldsV1", Time: &metav1.Time{Time: assignedAt},
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:podCIDR":{},"f:podCIDRs":{".":{},"v:\"x\"":{}}}}`)},
		}}
	}
	return n
}

func TestChecker(t *testing.T) {
	var c Checker
	c.ObserveRanges(&podnetworkv1alpha1.PodNetwork{Status: podnetworkv1alpha1.PodNetworkStatus{Ranges: []podnetworkv1alpha1.RangeStatus{
		{Name: "a", CIDR: "10.0.0.0/16", Phase: podnetworkv1alpha1.RangePhaseActive, PhaseSince: ptr.To(metav1.NewTime(activatedAt))},
		{Name: "late", CIDR: "10.1.0.0/16", Phase: podnetworkv1alpha1.RangePhaseActive, PhaseSince: ptr.To(metav1.NewTime(activatedAt.Add(time.Second)))},
		{Name: "v6", CIDR: "fd00::/48", Phase: podnetworkv1alpha1.RangePhaseActive},
		{Name: "p", CIDR: "10.9.0.0/16", Phase: podnetworkv1alpha1.RangePhasePending},
	}}})
	tests := []struct {
		name    string
		nodes   []corev1.Node
		wantErr []string
	}{
		{name: "fine", nodes: []corev1.Node{
			node("n1", DefaultFieldManager, "10.0.0.0/24", "fd00::/64"),
			node("n2", DefaultFieldManager, "10.0.1.0/24"),
			node("adopted", "kube-controller-manager", "10.200.0.0/24"),
			node("empty", ""),
		}},
		{name: "overlap", nodes: []corev1.Node{
			node("n1", DefaultFieldManager, "10.0.0.0/24"),
			node("n2", "someone", "10.0.0.0/23"),
		}, wantErr: []string{"nodes n1 (10.0.0.0/24) and n2 (10.0.0.0/23) have overlapping podCIDRs"}},
		{name: "assigned outside Active ranges", nodes: []corev1.Node{
			node("n1", DefaultFieldManager, "10.9.0.0/24"),
		}, wantErr: []string{"node n1: podCIDR 10.9.0.0/24 was assigned by podnetwork-operator/node-ipam but lies in no range seen Active"}},
		{name: "assigned before the range became Active", nodes: []corev1.Node{
			node("n1", DefaultFieldManager, "10.1.0.0/24"),
		}, wantErr: []string{"node n1: podCIDR 10.1.0.0/24 was assigned at 2026-01-02T03:04:05Z, before its range became Active"}},
		{name: "two blocks of one family", nodes: []corev1.Node{
			node("n1", "", "10.0.0.0/24", "10.0.1.0/24"),
		}, wantErr: []string{"not at most one per IP family"}},
		{name: "podCIDR not first", nodes: []corev1.Node{
			func() corev1.Node { n := node("n1", "", "10.0.0.0/24"); n.Spec.PodCIDR = "10.0.5.0/24"; return n }(),
		}, wantErr: []string{"is not podCIDRs[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Check(tt.nodes)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Check passed, want %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("Check error %q does not contain %q", err, w)
				}
			}
		})
	}
}
