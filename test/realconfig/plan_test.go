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

package realconfig

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/adapterstest"
	adapterflannel "podnetwork.io/operator/internal/adapters/flannel"
	adapterkubeproxy "podnetwork.io/operator/internal/adapters/kubeproxy"
)

// TestDualStackPlans feeds the adapters' Plan output for dual-stack
// clusters, the case the golden files cover least, to the real loaders.
func TestDualStackPlans(t *testing.T) {
	// flannel covers the nodes' podCIDRs too: every node has both families.
	nodes := map[string][]adapters.NamedPrefix{
		"dualstack.json": {podCIDR("10.42.1.0/24"), podCIDR("2001:cafe:42:1::/64")},
		"upstream.json":  {podCIDR("10.244.1.0/24"), podCIDR("fd00:10:244:1::/64")},
	}
	tests := []struct {
		name, program, file string
		ranges              []v1alpha1.RangeStatus
		// want is the networks the real program must run, IPv4 first; nil
		// checks only that it loads the plan.
		want []string
	}{
		{
			name: "kubeadm grows both families", program: "kube-proxy", file: "kubeadm.yaml",
			ranges: []v1alpha1.RangeStatus{adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("b", "10.245.0.0/16"), adapterstest.Active("v6", "fd00:10:244::/56"), adapterstest.Pending("v6b", "fd00:10:244:100::/56")},
			want:   []string{"10.244.0.0/15", "fd00:10:244::/55"},
		},
		{
			name: "kubeadm dual-stack grows IPv6", program: "kube-proxy", file: "kubeadm-dualstack.yaml",
			ranges: []v1alpha1.RangeStatus{adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Active("v6", "fd00:10:244::/56"), adapterstest.Pending("v6b", "fd00:10:244:100::/56")},
			want:   []string{"10.244.0.0/16", "fd00:10:244::/55"},
		},
		{
			name: "hand-edited file gains IPv6", program: "kube-proxy", file: "hand-edited.yaml",
			ranges: []v1alpha1.RangeStatus{adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("v6", "fd00:10:244::/56")},
			want:   []string{"10.244.0.0/16", "fd00:10:244::/56"},
		},
		{
			name: "dual-stack flannel grows both families", program: "flannel", file: "dualstack.json",
			ranges: []v1alpha1.RangeStatus{adapterstest.Active("a", "10.42.0.0/16"), adapterstest.Pending("b", "10.43.0.0/16"), adapterstest.Active("v6", "2001:cafe:42::/56"), adapterstest.Pending("v6b", "2001:cafe:42:100::/56")},
			want:   []string{"10.42.0.0/15", "2001:cafe:42::/55"},
		},
		{
			// Whether the adapter may turn IPv6 on here is its own rule;
			// whatever it writes must load.
			name: "IPv4 flannel with dual-stack nodes offered IPv6", program: "flannel", file: "upstream.json",
			ranges: []v1alpha1.RangeStatus{adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("v6", "fd00:10:244::/56")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := programNamed(t, tt.program)
			text, err := os.ReadFile(filepath.Join(p.testdata, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			in := adapterstest.Input(adapterstest.PodNetwork(tt.ranges...))
			in.NodePodCIDRs = nodes[tt.file]
			planned := plan(t, tt.program, string(text), in)
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(planned), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := p.check(t, path, planned); err != nil {
				t.Fatalf("%s %s refuses the adapter's plan: %v\n%s", p.name, p.version, err, planned)
			}
			if tt.program == "kube-proxy" {
				sameDecoding(t, filepath.Join(p.testdata, tt.file), path)
			}
			if tt.want != nil {
				if got := runs(t, tt.program, path, planned); !slices.Equal(got, tt.want) {
					t.Errorf("%s runs %q, want %q", p.name, got, tt.want)
				}
			}
		})
	}
}

// sameDecoding checks that the edit did not move the file between
// kube-proxy's strict decoding and its lenient fallback: the adapter changes
// one value, never the set of fields.
func sameDecoding(t *testing.T, before, after string) {
	t.Helper()
	b, err := loadKubeProxy(before, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := loadKubeProxy(after, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if a.Lenient != b.Lenient {
		t.Errorf("kube-proxy decodes the input leniently=%v but the plan leniently=%v (%s)", b.Lenient, a.Lenient, a.Warning)
	}
}

func plan(t *testing.T, program, text string, in adapters.Input) string {
	t.Helper()
	planner := adapterkubeproxy.Plan
	if program == "flannel" {
		planner = adapterflannel.Plan
	}
	p, err := planner(text, in)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	return p.Config
}

// runs returns the networks the real program runs with, IPv4 first.
func runs(t *testing.T, program, path, text string) []string {
	t.Helper()
	if program == "kube-proxy" {
		load, err := loadKubeProxy(path, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return load.ClusterCIDRs
	}
	cfg, err := loadFlannel(text)
	if err != nil {
		t.Fatal(err)
	}
	var nets []string
	if !cfg.Network.Empty() {
		nets = append(nets, cfg.Network.String())
	}
	if cfg.EnableIPv6 && !cfg.IPv6Network.Empty() {
		nets = append(nets, cfg.IPv6Network.String())
	}
	return nets
}

func programNamed(t *testing.T, name string) program {
	t.Helper()
	for _, p := range programs {
		if p.name == name {
			return p
		}
	}
	t.Fatalf("no program %q", name)
	return program{}
}

// podCIDR is the pod CIDR cidr of node n1, the one node of the golden inputs.
func podCIDR(cidr string) adapters.NamedPrefix {
	return adapters.NamedPrefix{Name: "n1", Prefix: netip.MustParsePrefix(cidr)}
}
