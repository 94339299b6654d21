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

package cli_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/goldenfile"
)

// t0 is when the fixtures' story begins; now is when the plugin looks.
var (
	t0  = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	now = t0.Add(2*time.Hour + 5*time.Minute)
)

func at(d time.Duration) *metav1.Time { return ptr.To(metav1.NewTime(t0.Add(d))) }

func node(name, created string, podCIDRs ...string) corev1.Node {
	d, _ := time.ParseDuration(created)
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: *at(d)},
		Spec:       corev1.NodeSpec{PodCIDRs: podCIDRs},
		Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "198.18.0.10"}}},
	}
}

func consumer(name string, required bool, ready metav1.ConditionStatus, acks ...v1alpha1.ConsumerRangeStatus) v1alpha1.PodNetworkConsumer {
	c := v1alpha1.PodNetworkConsumer{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: *at(0)},
		Spec:       v1alpha1.PodNetworkConsumerSpec{Required: ptr.To(required)},
		Status:     v1alpha1.PodNetworkConsumerStatus{Ranges: acks},
	}
	c.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConsumerReadyCondition, Status: ready, Reason: "Running", Message: "running", LastTransitionTime: *at(0)}}
	if ready != metav1.ConditionTrue {
		c.Status.Conditions[0].Reason, c.Status.Conditions[0].Message = "ApplyFailed", "cannot reach the API"
	}
	return c
}

func ack(rs v1alpha1.RangeStatus, result v1alpha1.AckResult, msg string) v1alpha1.ConsumerRangeStatus {
	return v1alpha1.AckFor(rs, result, msg, *at(time.Minute))
}

func rangeStatus(name, cidr string, phase v1alpha1.RangePhase, since time.Duration, usage *v1alpha1.RangeUsage) v1alpha1.RangeStatus {
	rs := v1alpha1.RangeStatus{Name: name, CIDR: cidr, IPFamily: v1alpha1.IPv4, NodeMaskSize: 24, Phase: phase, PhaseSince: at(since)}
	if usage != nil {
		rs.Usage = *usage
	}
	return rs
}

func usage(capacity, allocated, free, quarantined int64) *v1alpha1.RangeUsage {
	return ptr.To(v1alpha1.NewRangeUsage(capacity, allocated, free, quarantined))
}

func kubeadmConfig(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "adapters", "kubeproxy", "testdata", "kubeadm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func kubeProxyAdapter(config string) cli.Adapter {
	return cli.Adapter{
		Consumer: "kube-proxy", ConfigMap: "kube-system/kube-proxy[config.conf]", Config: config, Found: true,
		Limits: adapters.DefaultLimits, Plan: kubeproxy.Plan, Covered: kubeproxy.Covered,
	}
}

// transition is a cluster in the middle of a change: range "a" Active and
// nearly full, "b" Pending and awaited by a plugin, a GPU pool whose range
// is full, "old" Draining and still held by a node; kube-proxy's ConfigMap
// was reset to the single original range; a node shares its podCIDR with
// another, one has a podCIDR outside every range and one waits.
func transition(t *testing.T) *cli.Cluster {
	a := rangeStatus("a", "10.244.0.0/16", v1alpha1.RangePhaseActive, 0, usage(256, 250, 4, 2))
	b := rangeStatus("b", "10.245.0.0/16", v1alpha1.RangePhasePending, time.Hour, nil)
	b.Awaiting = []string{"plugin"}
	gpu := rangeStatus("gpu", "10.250.0.0/24", v1alpha1.RangePhaseActive, 0, usage(16, 16, 0, 0))
	gpu.NodeMaskSize = 28
	old := rangeStatus("old", "10.240.0.0/16", v1alpha1.RangePhaseDraining, time.Hour, usage(256, 1, 0, 0))
	old.Holders, old.HolderCount = []string{"n3"}, 1
	pn := &v1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName, Generation: 4},
		Spec: v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{
			{Name: "a", CIDR: "10.244.0.0/16"},
			{Name: "b", CIDR: "10.245.0.0/16"},
			{Name: "gpu", CIDR: "10.250.0.0/24", NodeMaskSize: 28, NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"gpu"}}}}}}},
		}},
		Status: v1alpha1.PodNetworkStatus{
			ObservedGeneration: ptr.To[int64](4),
			Ranges:             []v1alpha1.RangeStatus{a, b, gpu, old},
			Consumers: []v1alpha1.ConsumerSummary{
				{Name: "kube-proxy", Required: true, InSync: true},
				{Name: "node-ipam", Required: true, InSync: true},
				{Name: "plugin", Required: true, Message: "Has not acknowledged b (Pending)"},
			},
			Conditions: []metav1.Condition{
				{Type: v1alpha1.ReadyCondition, Status: metav1.ConditionFalse, Reason: v1alpha1.TransitionsInProgressReason, Message: "range \"b\" (10.245.0.0/16) is Pending, waiting for consumers plugin to accept it", LastTransitionTime: *at(time.Hour)},
				{Type: v1alpha1.DegradedCondition, Status: metav1.ConditionTrue, Reason: v1alpha1.TransitionStalledReason, Message: "range \"b\" (10.245.0.0/16) has waited since 2026-03-04T11:00:00Z for consumers plugin to acknowledge Pending", LastTransitionTime: *at(time.Hour + 10*time.Minute)},
			},
			ForeignNodeCount:    1,
			ForeignNodes:        []string{"n5"},
			AllocationConflicts: []string{"nodes n1 (10.244.0.0/24) and n2 (10.244.0.0/24) have overlapping podCIDRs"},
		},
	}
	accepted := func(rs ...v1alpha1.RangeStatus) []v1alpha1.ConsumerRangeStatus {
		var out []v1alpha1.ConsumerRangeStatus
		for _, r := range rs {
			out = append(out, ack(r, v1alpha1.AckAccepted, "ok"))
		}
		return out
	}
	c := &cli.Cluster{
		PodNetwork: pn,
		NodeIPAM:   "node-ipam",
		Consumers: []v1alpha1.PodNetworkConsumer{
			consumer("kube-proxy", true, metav1.ConditionTrue, accepted(a, b, gpu, old)...),
			consumer("node-ipam", true, metav1.ConditionTrue, accepted(a, b, gpu, old)...),
			consumer("plugin", true, metav1.ConditionFalse, accepted(a, gpu, old)...),
		},
		Nodes: []corev1.Node{
			node("n1", "0s", "10.244.0.0/24"),
			node("n2", "0s", "10.244.0.0/24"),
			node("n3", "0s", "10.240.0.0/24"),
			node("n4", "1h"),
			node("n5", "0s", "10.99.0.0/24"),
		},
		ServiceCIDRs: []networkingv1.ServiceCIDR{{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/16"}}}},
		Adapters:     []cli.Adapter{kubeProxyAdapter(kubeadmConfig(t))},
		Operator: &cli.Operator{Deployments: []appsv1.Deployment{operatorDeployment("podnetwork-system", 2, 2)},
			Leases: map[string]*coordinationv1.Lease{"podnetwork-system": lease("podnetwork-system", "podnetwork-operator-7d9f_1", 2*time.Hour, 2*time.Second)}},
	}
	c.Nodes[3].Labels = map[string]string{"pool": "gpu"}
	return c
}

// golden compares got with testdata/name (goldenfile.Compare).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Compare(t, filepath.Join("testdata", name), got)
}
