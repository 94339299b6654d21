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
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// TestStatusCollector reads a PodNetwork in mid-transition and its nodes
// the way the collector reads the cache, and checks the series the
// chart's alerts use.
func TestStatusCollector(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gpu := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"gpu"}}}}}}
	pn := &v1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
		Spec: v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{
			{Name: "a", CIDR: "10.244.0.0/16"},
			{Name: "gpu", CIDR: "10.250.0.0/24", NodeMaskSize: 28, NodeSelector: gpu},
			{Name: "svc", CIDR: "10.96.0.0/16"},
		}},
		Status: v1alpha1.PodNetworkStatus{
			Ranges: []v1alpha1.RangeStatus{
				{Name: "a", CIDR: "10.244.0.0/16", NodeMaskSize: 24, Phase: v1alpha1.RangePhaseActive, Usage: v1alpha1.NewRangeUsage(256, 250, 6, 0)},
				{Name: "gpu", CIDR: "10.250.0.0/24", NodeMaskSize: 28, Phase: v1alpha1.RangePhaseActive, Usage: v1alpha1.NewRangeUsage(16, 16, 0, 0),
					Rejections: []v1alpha1.RangeRejection{{Consumer: "watcher", Message: "no"}}},
				{Name: "svc", CIDR: "10.96.0.0/16", NodeMaskSize: 24, Phase: v1alpha1.RangePhasePending, InvalidReason: v1alpha1.RangeInvalidServiceCIDROverlap},
			},
			Consumers: []v1alpha1.ConsumerSummary{
				{Name: "node-ipam", Required: true, InSync: true},
				{Name: "watcher", Required: false},
			},
			AllocationConflicts: []string{"nodes x (10.244.0.0/24) and y (10.244.0.0/24) have overlapping podCIDRs"},
		},
	}
	now := metav1.Now()
	deleting := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gone", DeletionTimestamp: &now, Finalizers: []string{"test"}}}
	var reader client.Reader = fake.NewClientBuilder().WithScheme(scheme).WithObjects(pn,
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ok"}, Spec: corev1.NodeSpec{PodCIDRs: []string{"10.244.0.0/24"}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "waiting"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "foreign"}, Spec: corev1.NodeSpec{PodCIDRs: []string{"10.99.0.0/24"}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "legacy"}, Spec: corev1.NodeSpec{PodCIDRs: []string{"010.244.9.0/24"}}},
		deleting,
	).Build()
	c := &statusCollector{}
	c.reader.Store(&reader)
	want := `
# HELP podnetwork_allocation_conflicts Pairs of nodes with overlapping podCIDRs listed in the PodNetwork status (at most 20).
# TYPE podnetwork_allocation_conflicts gauge
podnetwork_allocation_conflicts 1
# HELP podnetwork_consumer_rejections Ranges whose current phase a consumer rejected.
# TYPE podnetwork_consumer_rejections gauge
podnetwork_consumer_rejections{consumer="node-ipam",required="true"} 0
podnetwork_consumer_rejections{consumer="watcher",required="false"} 1
# HELP podnetwork_nodeipam_foreign_podcidrs Node podCIDRs outside every range the PodNetwork tracks that is not Released.
# TYPE podnetwork_nodeipam_foreign_podcidrs gauge
podnetwork_nodeipam_foreign_podcidrs 1
# HELP podnetwork_nodeipam_malformed_podcidrs Nodes whose podCIDRs cannot all be read, or only in a legacy format (leading zeros, IPv4-mapped IPv6).
# TYPE podnetwork_nodeipam_malformed_podcidrs gauge
podnetwork_nodeipam_malformed_podcidrs 1
# HELP podnetwork_nodes_without_podcidrs Nodes that are not being deleted and have no podCIDRs yet.
# TYPE podnetwork_nodes_without_podcidrs gauge
podnetwork_nodes_without_podcidrs 1
# HELP podnetwork_range_invalid 1 for a tracked range the operator found invalid (reason is its invalidReason), 0 for the others.
# TYPE podnetwork_range_invalid gauge
podnetwork_range_invalid{range="a",reason=""} 0
podnetwork_range_invalid{range="gpu",reason=""} 0
podnetwork_range_invalid{range="svc",reason="ServiceCIDROverlap"} 1
# HELP podnetwork_selector_group_free_blocks Free node blocks of the Active ranges that share one nodeSelector, per IP family.
# TYPE podnetwork_selector_group_free_blocks gauge
podnetwork_selector_group_free_blocks{family="IPv4",selector="all nodes"} 6
podnetwork_selector_group_free_blocks{family="IPv4",selector="pool in (gpu)"} 0
# HELP podnetwork_selector_group_joinable_nodes How many more nodes the Active ranges that share one nodeSelector can give a block of every family they serve.
# TYPE podnetwork_selector_group_joinable_nodes gauge
podnetwork_selector_group_joinable_nodes{selector="all nodes"} 6
podnetwork_selector_group_joinable_nodes{selector="pool in (gpu)"} 0
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want),
		"podnetwork_allocation_conflicts", "podnetwork_consumer_rejections", "podnetwork_nodes_without_podcidrs",
		"podnetwork_nodeipam_foreign_podcidrs", "podnetwork_nodeipam_malformed_podcidrs",
		"podnetwork_range_invalid", "podnetwork_selector_group_free_blocks", "podnetwork_selector_group_joinable_nodes"); err != nil {
		t.Error(err)
	}
}
