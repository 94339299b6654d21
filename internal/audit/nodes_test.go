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

package audit

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/slimnode"
)

func TestCountNodePodCIDRs(t *testing.T) {
	ranges := []v1alpha1.RangeStatus{
		active("a", "10.244.0.0/16", 0),
		rangeAt("pending", "10.245.0.0/16", v1alpha1.RangePhasePending, 0),
		rangeAt("draining", "10.246.0.0/16", v1alpha1.RangePhaseDraining, 0),
		rangeAt("released", "10.247.0.0/16", v1alpha1.RangePhaseReleased, 0),
		active("v6", "fd00:10:244::/56", 0),
	}
	deleting := node("deleting")
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}
	tests := []struct {
		name   string
		ranges []v1alpha1.RangeStatus
		nodes  []*slimnode.Node
		want   NodePodCIDRs
	}{
		{name: "no node", ranges: ranges},
		{
			name: "inside an Active, a Pending and a Draining range, dual-stack included", ranges: ranges,
			nodes: []*slimnode.Node{node("a", "10.244.1.0/24"), node("p", "10.245.1.0/24"), node("d", "10.246.1.0/24"), node("ds", "10.244.2.0/24", "fd00:10:244::/64")},
		},
		{
			name: "waiting nodes, not those being deleted", ranges: ranges,
			nodes: []*slimnode.Node{node("new"), deleting},
			want:  NodePodCIDRs{Waiting: 1},
		},
		{
			name: "outside every range, or only inside a Released one: foreign", ranges: ranges,
			nodes: []*slimnode.Node{node("x", "10.99.0.0/24"), node("r", "10.247.1.0/24")},
			want:  NodePodCIDRs{Foreign: 2},
		},
		{
			name: "every foreign podCIDR counts, not nodes", ranges: ranges,
			nodes: []*slimnode.Node{node("x", "10.99.0.0/24", "fd99::/64")},
			want:  NodePodCIDRs{Foreign: 2},
		},
		{
			name: "a podCIDR wider than the range that holds its address is foreign", ranges: ranges,
			nodes: []*slimnode.Node{node("wide", "10.244.0.0/15")},
			want:  NodePodCIDRs{Foreign: 1},
		},
		{
			name: "legacy formats are malformed, and read as Kubernetes reads them", ranges: ranges,
			nodes: []*slimnode.Node{node("zeros", "010.244.3.0/24"), node("mapped", "::ffff:10.99.0.0/120")},
			want:  NodePodCIDRs{Malformed: 2, Foreign: 1},
		},
		{
			name: "an unreadable value is malformed, not foreign; the node's readable ones still count", ranges: ranges,
			nodes: []*slimnode.Node{node("garbage", "garbage"), node("half", "garbage", "10.99.1.0/24")},
			want:  NodePodCIDRs{Malformed: 2, Foreign: 1},
		},
		{
			name:  "no tracked range yet: every podCIDR is foreign",
			nodes: []*slimnode.Node{node("a", "10.244.1.0/24"), node("b")},
			want:  NodePodCIDRs{Waiting: 1, Foreign: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CountNodePodCIDRs(tt.ranges, tt.nodes); got != tt.want {
				t.Errorf("CountNodePodCIDRs = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestMalformedIsWhatObservePrefixesReports: CountNodePodCIDRs reads value
// by value what cidr.ObservePrefixes reads for NodeIPAM's rebuild, so a node
// counts as malformed exactly when the rebuild reports problems for it.
func TestMalformedIsWhatObservePrefixesReports(t *testing.T) {
	for _, podCIDRs := range [][]string{
		{"10.244.1.0/24"}, {"10.244.1.1/24"}, {"010.244.1.0/24"}, {"::ffff:10.244.1.0/120"}, {"::ffff:0:0/80"}, {"garbage"},
		{"10.244.1.0/24", "fd00::/64"}, {"10.244.1.0/24", "garbage"}, {"fd00::1/64"}, {""},
	} {
		got := CountNodePodCIDRs(nil, []*slimnode.Node{node("n", podCIDRs...)}).Malformed == 1
		if want := len(cidr.ObservePrefixes(podCIDRs).Problems) > 0; got != want {
			t.Errorf("%q: malformed %v, ObservePrefixes reports problems %v", podCIDRs, got, want)
		}
	}
}

// TestCountNodePodCIDRsAllocatesNothingPerNode: the collector counts every
// node at every scrape.
func TestCountNodePodCIDRsAllocatesNothingPerNode(t *testing.T) {
	ranges := []v1alpha1.RangeStatus{active("a", "10.244.0.0/16", 0), active("v6", "fd00:10:244::/56", 0)}
	nodes := []*slimnode.Node{node("a", "10.244.1.0/24", "fd00:10:244::/64"), node("b", "10.244.2.0/24"), node("c")}
	if allocs := testing.AllocsPerRun(100, func() { CountNodePodCIDRs(ranges, nodes) }); allocs > 1 {
		t.Errorf("%v allocations for three healthy nodes, want only the tracked ranges' one", allocs)
	}
}
