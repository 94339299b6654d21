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

package flannel_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/adapterstest"
	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/slimnode"
)

func TestPlan(t *testing.T) {
	upstream := read(t, "upstream.json")
	tests := []struct {
		name          string
		config        string
		in            adapters.Input
		wantNetwork   string
		wantIPv6      string
		wantIPv6On    bool
		wantRejected  string
		wantMessage   string
		wantProblem   string
		wantSummary   string
		wantUntouched bool
	}{
		{
			name:        "Network grows to cover a pending range",
			config:      upstream,
			in:          adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("b", "10.245.0.0/16"))),
			wantNetwork: "10.244.0.0/15",
			wantSummary: "Network 10.244.0.0/15",
		},
		{
			name:   "Network never shrinks below a node podCIDR in use",
			config: strings.Replace(upstream, "10.244.0.0/16", "10.244.0.0/15", 1),
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Released("b", "10.245.0.0/16")))
				in.NodePodCIDRs = []adapters.NamedPrefix{podCIDR("n1", "10.244.3.0/24"), podCIDR("old", "10.245.9.0/24")}
				return in
			}(),
			wantNetwork:   "10.244.0.0/15",
			wantUntouched: true,
		},
		{
			name:        "Network shrinks once the released range's podCIDRs are gone",
			config:      strings.Replace(upstream, "10.244.0.0/16", "10.244.0.0/15", 1),
			in:          adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Released("b", "10.245.0.0/16"))),
			wantNetwork: "10.244.0.0/16",
		},
		{
			name:          "a family with nothing to cover keeps its value",
			config:        upstream,
			in:            adapterstest.Input(adapterstest.PodNetwork(adapterstest.Released("a", "10.244.0.0/16"))),
			wantNetwork:   "10.244.0.0/16",
			wantUntouched: true,
		},
		{
			name:   "a dual-stack flannel takes a second IPv6 range whatever the nodes hold",
			config: read(t, "dualstack.json"),
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Active("v6", "fd00:10:244::/56"), adapterstest.Pending("v6b", "fd00:10:244:100::/56")))
				in.NodePodCIDRs = []adapters.NamedPrefix{podCIDR("n1", "10.244.1.0/24")}
				in.RunningOn = []string{"n1"}
				return in
			}(),
			wantNetwork: "10.244.0.0/16",
			wantIPv6:    "fd00:10:244::/55",
			wantIPv6On:  true,
		},
		{
			name:          "IPv4 ranges are rejected while EnableIPv4 is false",
			config:        `{"EnableIPv4": false, "EnableIPv6": true, "IPv6Network": "fd00::/48", "Backend": {"Type": "vxlan"}}`,
			in:            adapterstest.Input(adapterstest.PodNetwork(adapterstest.Pending("v4", "10.244.0.0/16"))),
			wantIPv6:      "fd00::/48",
			wantIPv6On:    true,
			wantRejected:  "v4",
			wantUntouched: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := flannel.Plan(tt.config, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			c, err := flannel.Parse(plan.Config)
			if err != nil {
				t.Fatal(err)
			}
			if c.Network != tt.wantNetwork || c.IPv6Network != tt.wantIPv6 || c.IPv6Enabled() != tt.wantIPv6On {
				t.Errorf("Network %q IPv6Network %q EnableIPv6 %v, want %q %q %v", c.Network, c.IPv6Network, c.IPv6Enabled(), tt.wantNetwork, tt.wantIPv6, tt.wantIPv6On)
			}
			if tt.wantUntouched && plan.Config != tt.config {
				t.Errorf("config changed:\n%s", plan.Config)
			}
			if tt.wantSummary != "" && plan.Summary != tt.wantSummary {
				t.Errorf("summary %q, want %q", plan.Summary, tt.wantSummary)
			}
			msg, ok := plan.Decision.Rejected[tt.wantRejected]
			if tt.wantRejected != "" && !ok {
				t.Errorf("range %q not rejected: %v", tt.wantRejected, plan.Decision.Rejected)
			}
			if tt.wantRejected == "" && len(plan.Decision.Rejected) > 0 {
				t.Errorf("rejected %v, want none", plan.Decision.Rejected)
			}
			if !strings.HasPrefix(msg, tt.wantMessage) {
				t.Errorf("rejection %q, want prefix %q", msg, tt.wantMessage)
			}
			if problems := strings.Join(plan.Decision.Problems, "\n"); !strings.Contains(problems, tt.wantProblem) ||
				(tt.wantProblem == "" && problems != "") {
				t.Errorf("problems %q, want %q", problems, tt.wantProblem)
			}
		})
	}
}

func TestNodesWithoutProof(t *testing.T) {
	rollout := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(rollout.Add(d)) }
	node := func(name, reason string, stamp metav1.Time, status corev1.ConditionStatus) *slimnode.Node {
		n := &slimnode.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if reason != "" {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeNetworkUnavailable, Status: status, Reason: reason,
				LastHeartbeatTime: stamp, LastTransitionTime: stamp}}
		}
		return n
	}
	pod := func(node string, created metav1.Time) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "flannel-" + node, CreationTimestamp: created}, Spec: corev1.PodSpec{NodeName: node}}
	}
	nodes := []*slimnode.Node{
		node("fresh", flannel.FlannelIsUpReason, at(5*time.Second), corev1.ConditionFalse),
		node("same-second", flannel.FlannelIsUpReason, at(2*time.Second), corev1.ConditionFalse),
		node("stale", flannel.FlannelIsUpReason, at(-time.Minute), corev1.ConditionFalse),
		node("before-pod", flannel.FlannelIsUpReason, at(time.Second), corev1.ConditionFalse),
		node("route-controller", "RouteCreated", at(time.Minute), corev1.ConditionFalse),
		node("down", flannel.FlannelIsUpReason, at(time.Minute), corev1.ConditionTrue),
		node("never", "", metav1.Time{}, ""),
	}
	pods := []corev1.Pod{
		pod("fresh", at(time.Second)),
		pod("same-second", at(2*time.Second)),
		pod("stale", at(time.Second)),
		pod("before-pod", at(3*time.Second)),
		pod("route-controller", at(time.Second)),
		pod("down", at(time.Second)),
		pod("never", at(time.Second)),
		pod("gone", at(time.Second)),
		{ObjectMeta: metav1.ObjectMeta{Name: "unscheduled"}},
	}
	got := flannel.NodesWithoutProof(nodes, pods, rollout.Add(500*time.Millisecond))
	want := []string{"before-pod", "down", "never", "route-controller", "stale"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("NodesWithoutProof = %v, want %v", got, want)
	}
}
