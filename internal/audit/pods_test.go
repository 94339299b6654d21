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

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/slimnode"
)

func TestPods(t *testing.T) {
	pn := podNetwork(active("a", "10.244.0.0/16", 0), rangeAt("old", "10.240.0.0/16", v1alpha1.RangePhaseDraining, 0),
		rangeAt("gone", "10.230.0.0/16", v1alpha1.RangePhaseReleased, 0), rangeAt("next", "10.250.0.0/16", v1alpha1.RangePhasePending, 0))
	nodes := []*slimnode.Node{node("n1", "10.244.1.0/24"), node("n2", "10.240.2.0/24"), node("legacy", "010.244.3.0/24"), node("waiting")}
	outsideNode := func(pod, ips, node, podCIDRs string) found {
		return found{Kind: PodIPOutsideNodePodCIDRs, Object: "Pod default/" + pod, Related: "Node " + node,
			Message: "pod IP " + ips + " lies outside the podCIDRs of its node " + node + " (" + podCIDRs + "): the CNI did not take it from the node's block, " +
				"so routes to the node's block do not reach it; if this CNI does not allocate pod IPs from node podCIDRs, turn the check off (audit.podIPs: false)"}
	}
	outsideRanges := func(pod, ips string) found {
		return found{Kind: PodIPOutsideRanges, Object: "Pod default/" + pod, Related: "PodNetwork default",
			Message: "pod IP " + ips + " lies outside every Active and Draining range of the pod network (a 10.244.0.0/16, old 10.240.0.0/16): " +
				"what covers the pod network (kube-proxy's clusterCIDR, the CNI's routes, NetworkPolicies) does not treat it as a pod address"}
	}
	tests := []struct {
		name string
		// noPodNetwork audits a cluster without a PodNetwork.
		noPodNetwork bool
		pods         []*PodWrapper
		want         []found
	}{
		{
			name: "inside the node's podCIDR and an Active or Draining range",
			pods: []*PodWrapper{pod("p1", "n1", "10.244.1.5"), pod("p2", "n2", "10.240.2.5"), pod("p3", "legacy", "10.244.3.5")},
		},
		{
			name: "another node's block, inside a range",
			pods: []*PodWrapper{pod("p", "n1", "10.244.2.5")},
			want: []found{outsideNode("p", "10.244.2.5", "n1", "10.244.1.0/24")},
		},
		{
			name: "outside every range in use: a Released one, a Pending one, none at all",
			pods: []*PodWrapper{pod("released", "n1", "10.230.0.5"), pod("pending", "n1", "10.250.0.5"), pod("none", "n1", "192.168.0.5")},
			want: []found{
				outsideNode("released", "10.230.0.5", "n1", "10.244.1.0/24"), outsideRanges("released", "10.230.0.5"),
				outsideNode("pending", "10.250.0.5", "n1", "10.244.1.0/24"), outsideRanges("pending", "10.250.0.5"),
				outsideNode("none", "192.168.0.5", "n1", "10.244.1.0/24"), outsideRanges("none", "192.168.0.5"),
			},
		},
		{
			name: "a node the cache does not hold, or without podCIDRs: only the ranges are checked",
			pods: []*PodWrapper{pod("unknown", "gone", "192.168.0.5"), pod("waiting", "waiting", "192.168.0.6")},
			want: []found{outsideRanges("unknown", "192.168.0.5"), outsideRanges("waiting", "192.168.0.6")},
		},
		{
			name: "status.podIP alone, as older kubelets write it",
			pods: []*PodWrapper{pod("old", "n1", "192.168.0.5").legacyPodIP()},
			want: []found{outsideNode("old", "192.168.0.5", "n1", "10.244.1.0/24"), outsideRanges("old", "192.168.0.5")},
		},
		{
			name: "host network, not scheduled, finished, without IP: skipped",
			pods: []*PodWrapper{pod("host", "n1", "192.168.0.5").hostNetwork(), pod("pending", "", "192.168.0.5"),
				pod("done", "n1", "192.168.0.5").phase(corev1.PodSucceeded), pod("failed", "n1", "192.168.0.5").phase(corev1.PodFailed),
				pod("starting", "n1"), pod("garbage", "n1", "not-an-ip")},
		},
		{
			name: "an IP of a family neither the node's podCIDRs nor the ranges have",
			pods: []*PodWrapper{pod("v6", "n1", "10.244.1.5", "fd00::5")},
		},
		{
			name: "every IP of a dual-stack pod outside",
			pods: []*PodWrapper{pod("ds", "n1", "192.168.0.5", "fd00::5")},
			want: []found{outsideNode("ds", "192.168.0.5", "n1", "10.244.1.0/24"), outsideRanges("ds", "192.168.0.5")},
		},
		{
			name: "no PodNetwork: only the node's podCIDRs", noPodNetwork: true,
			pods: []*PodWrapper{pod("p", "n1", "192.168.0.5")},
			want: []found{outsideNode("p", "192.168.0.5", "n1", "10.244.1.0/24")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{PodNetwork: pn, Nodes: nodes, PodIPs: true, MaxAnnounce: 100}
			if tt.noPodNetwork {
				in.PodNetwork = nil
			}
			r := NewRun(in)
			var pods []corev1.Pod
			for _, p := range tt.pods {
				pods = append(pods, p.obj())
			}
			r.Pods(pods)
			res := r.Result()
			if diff := cmp.Diff(tt.want, summarize(res.Announce)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			counts := map[Kind]int{PodIPOutsideNodePodCIDRs: 0, PodIPOutsideRanges: 0, NetworkPolicyMissingRange: 0, AdapterConfigDrift: 0}
			for _, f := range tt.want {
				counts[f.Kind]++
			}
			if diff := cmp.Diff(counts, res.Findings); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPodsOff: with the pod checks off (a CNI that does not allocate from
// node podCIDRs) pods are not looked at and their kinds are not reported.
func TestPodsOff(t *testing.T) {
	r := NewRun(Input{PodNetwork: podNetwork(active("a", "10.244.0.0/16", 0)), Nodes: []*slimnode.Node{node("n1", "10.244.1.0/24")}, MaxAnnounce: 10})
	r.Pods([]corev1.Pod{pod("p", "n1", "192.168.0.5").obj()})
	res := r.Result()
	if len(res.Announce) != 0 {
		t.Errorf("announced %v", summarize(res.Announce))
	}
	if diff := cmp.Diff(map[Kind]int{NetworkPolicyMissingRange: 0, AdapterConfigDrift: 0}, res.Findings); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}
