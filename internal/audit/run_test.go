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
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/slimnode"
)

// TestAnnounce: each finding is announced once until it clears, at most
// MaxAnnounce per audit, the rest in the next audits; a finding that
// clears and comes back, or a new problem of an object announced before,
// is announced again.
func TestAnnounce(t *testing.T) {
	pn := podNetwork(active("a", "10.244.0.0/16", 0))
	nodes := []*slimnode.Node{node("n1", "10.244.1.0/24")}
	inBlock := func(names ...string) []corev1.Pod {
		var out []corev1.Pod
		for _, n := range names {
			out = append(out, pod(n, "n1", "10.244.1.5").obj())
		}
		return out
	}
	// p1..p3 are on another node's block; p4 moves between IPs.
	elsewhere := func(name, ip string) corev1.Pod { return pod(name, "n1", ip).obj() }
	var announced Announced
	steps := []struct {
		name         string
		pods         []corev1.Pod
		wantAnnounce []string
		wantCount    int
	}{
		{"three findings, two announced", []corev1.Pod{elsewhere("p1", "10.244.2.1"), elsewhere("p2", "10.244.2.2"), elsewhere("p3", "10.244.2.3")}, []string{"p1", "p2"}, 3},
		{"the third next time, the others not again", []corev1.Pod{elsewhere("p1", "10.244.2.1"), elsewhere("p2", "10.244.2.2"), elsewhere("p3", "10.244.2.3")}, []string{"p3"}, 3},
		{"still there: nothing", []corev1.Pod{elsewhere("p1", "10.244.2.1"), elsewhere("p2", "10.244.2.2"), elsewhere("p3", "10.244.2.3")}, nil, 3},
		{"p2 cleared (a new pod of the name, in the node's block)", append(inBlock("p2"), elsewhere("p1", "10.244.2.1"), elsewhere("p3", "10.244.2.3")), nil, 2},
		{"p2 is back", []corev1.Pod{elsewhere("p1", "10.244.2.1"), elsewhere("p2", "10.244.2.2"), elsewhere("p3", "10.244.2.3")}, []string{"p2"}, 3},
		{"p1 with another IP: a new problem", []corev1.Pod{elsewhere("p1", "10.244.2.9"), elsewhere("p2", "10.244.2.2"), elsewhere("p3", "10.244.2.3")}, []string{"p1"}, 3},
		{"all cleared", inBlock("p1", "p2", "p3"), nil, 0},
	}
	for _, s := range steps {
		r := NewRun(Input{PodNetwork: pn, Nodes: nodes, PodIPs: true, Announced: announced, MaxAnnounce: 2})
		// Two pages, as the audit lists them.
		r.Pods(s.pods[:1])
		r.Pods(s.pods[1:])
		res := r.Result()
		var got []string
		for _, f := range res.Announce {
			got = append(got, f.Regarding.Name)
		}
		if diff := cmp.Diff(s.wantAnnounce, got); diff != "" {
			t.Errorf("%s: announced (-want +got):\n%s", s.name, diff)
		}
		if c := res.Findings[PodIPOutsideNodePodCIDRs]; c != s.wantCount {
			t.Errorf("%s: counted %d, want %d", s.name, c, s.wantCount)
		}
		if len(res.Announced) > s.wantCount {
			t.Errorf("%s: %d findings stay announced, more than the %d found", s.name, len(res.Announced), s.wantCount)
		}
		announced = res.Announced
	}
}

func TestAdapterConfig(t *testing.T) {
	pn := podNetwork(active("a", "10.244.0.0/16", 0), active("b", "10.250.0.0/16", 10))
	cm := adapters.ConfigMapKey{NamespacedName: types.NamespacedName{Namespace: "kube-system", Name: "kube-proxy"}, Key: "config.conf"}
	config := func(clusterCIDR string, found, running bool) adapters.Config {
		return adapters.Config{Adapter: kubeproxy.Adapter.Name, Covered: kubeproxy.Covered, Found: found, Running: running,
			Text: "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: " + clusterCIDR + "\n"}
	}
	tests := []struct {
		name string
		cfg  adapters.Config
		want []found
	}{
		{name: "covers both", cfg: config("10.0.0.0/8", true, false)},
		{
			name: "left behind, the adapter off",
			cfg:  config("10.244.0.0/16", true, false),
			want: []found{{Kind: AdapterConfigDrift, Object: "ConfigMap kube-system/kube-proxy", Related: "PodNetwork default",
				Message: "key config.conf: kube-proxy covers 10.244.0.0/16, which leaves out the ranges in use b (10.250.0.0/16, Active): nodes there lose their network " +
					"when kube-proxy restarts; the kube-proxy adapter is off (no PodNetworkConsumer kube-proxy), so nothing rewrites it"}},
		},
		{name: "no ConfigMap, the adapter off", cfg: config("", false, false)},
		{
			name: "no ConfigMap, the adapter on",
			cfg:  config("", false, true),
			want: []found{{Kind: AdapterConfigDrift, Object: "ConfigMap kube-system/kube-proxy", Related: "PodNetwork default",
				Message: "key config.conf: the kube-proxy adapter's ConfigMap key is missing"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRun(Input{PodNetwork: pn, MaxAnnounce: 10})
			r.AdapterConfig(cm, "uid", tt.cfg)
			res := r.Result()
			if diff := cmp.Diff(tt.want, summarize(res.Announce)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if got := res.Findings[AdapterConfigDrift]; got != len(tt.want) {
				t.Errorf("counted %d, want %d", got, len(tt.want))
			}
		})
	}
}

func TestKinds(t *testing.T) {
	got := Kinds()
	want := []Kind{"pod-ip-outside-node-podcidrs", "pod-ip-outside-ranges", "networkpolicy-missing-range", "adapter-config-drift"}
	if !slices.Equal(got, want) {
		t.Errorf("Kinds() = %q, want the documented %q", got, want)
	}
}
