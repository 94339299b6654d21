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

package kubeproxy_test

import (
	"strings"
	"testing"

	"podnetwork.io/operator/internal/adapters/adapterstest"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
)

func TestPlan(t *testing.T) {
	kubeadm := read(t, "kubeadm.yaml")
	withMode := func(mode string) string {
		return strings.Replace(kubeadm, `detectLocalMode: ""`, "detectLocalMode: "+mode, 1)
	}
	tests := []struct {
		name        string
		config      string
		ranges      []string // name=cidr, Active unless prefixed with "+" (Pending)
		wantCIDR    string   // clusterCIDR of the planned config
		independent string   // substring of RangeIndependent
		rejected    string   // name of a rejected range
		invalid     string   // substring of Plan.Invalid
		wantErr     string
	}{
		{name: "unset mode manages clusterCIDR", config: kubeadm, ranges: []string{"a=10.244.0.0/16", "+b=10.245.0.0/16"}, wantCIDR: "10.244.0.0/15"},
		{name: "ClusterCIDR mode manages clusterCIDR", config: withMode("ClusterCIDR"), ranges: []string{"a=10.244.0.0/16"}, wantCIDR: "10.244.0.0/16"},
		{name: "dual-stack is written IPv4 first without spaces", config: kubeadm, ranges: []string{"v6=fd00:10:244::/56", "v4=10.244.0.0/16"}, wantCIDR: "10.244.0.0/16,fd00:10:244::/56"},
		{name: "a rejected range stays out of clusterCIDR", config: kubeadm, ranges: []string{"a=10.244.0.0/16", "+far=10.0.0.0/16"}, wantCIDR: "10.244.0.0/16", rejected: "far"},
		{name: "NodeCIDR mode is range independent", config: withMode("NodeCIDR"), ranges: []string{"+a=10.0.0.0/16"}, independent: "NodeCIDR"},
		{name: "BridgeInterface mode is range independent", config: strings.Replace(withMode("BridgeInterface"), `bridgeInterface: ""`, "bridgeInterface: cni0", 1), independent: `bridge "cni0"`},
		{name: "InterfaceNamePrefix mode is range independent", config: strings.Replace(withMode("InterfaceNamePrefix"), `interfaceNamePrefix: ""`, "interfaceNamePrefix: veth", 1), independent: `"veth"*`},
		{name: "a clusterCIDR kube-proxy refuses is reported and replaced", config: read(t, "dualstack-space.refused.yaml"),
			ranges: []string{"v4=10.244.0.0/16", "v6=fd00:10:244::/56"}, wantCIDR: "10.244.0.0/16,fd00:10:244::/56",
			invalid: `clusterCIDR "10.244.0.0/16, fd00:10:244::/56" is refused by kube-proxy, which exits at start: " fd00:10:244::/56" is not a CIDR: kube-proxy does not trim spaces`},
		{name: "a garbage clusterCIDR is reported and replaced", config: strings.Replace(kubeadm, "clusterCIDR: 10.244.0.0/16", "clusterCIDR: pods", 1),
			ranges: []string{"a=10.244.0.0/16"}, wantCIDR: "10.244.0.0/16", invalid: `clusterCIDR "pods" is refused by kube-proxy`},
		{name: "an unknown mode is an error", config: withMode("Magic"), wantErr: `detectLocalMode "Magic"`},
		{name: "a file that is not a KubeProxyConfiguration is an error", config: "apiVersion: v1\nkind: Pod\n", wantErr: "KubeProxyConfiguration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pn := adapterstest.PodNetwork()
			for _, r := range tt.ranges {
				name, cidr, _ := strings.Cut(r, "=")
				if p, ok := strings.CutPrefix(name, "+"); ok {
					pn.Status.Ranges = append(pn.Status.Ranges, adapterstest.Pending(p, cidr))
				} else {
					pn.Status.Ranges = append(pn.Status.Ranges, adapterstest.Active(name, cidr))
				}
			}
			plan, err := kubeproxy.Plan(tt.config, adapterstest.Input(pn))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.independent != "" {
				if !strings.Contains(plan.RangeIndependent, tt.independent) || plan.Config != tt.config {
					t.Fatalf("RangeIndependent = %q (config changed: %v), want it to mention %q and the config untouched",
						plan.RangeIndependent, plan.Config != tt.config, tt.independent)
				}
				return
			}
			cfg, err := kubeproxy.Parse(plan.Config)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.ClusterCIDR != tt.wantCIDR || plan.Summary != "clusterCIDR "+tt.wantCIDR {
				t.Errorf("clusterCIDR = %q (summary %q), want %q", cfg.ClusterCIDR, plan.Summary, tt.wantCIDR)
			}
			if _, ok := plan.Decision.Rejected[tt.rejected]; tt.rejected != "" && !ok {
				t.Errorf("range %q not rejected: %v", tt.rejected, plan.Decision.Rejected)
			}
			if tt.invalid == "" && plan.Invalid != "" || !strings.Contains(plan.Invalid, tt.invalid) {
				t.Errorf("Invalid = %q, want %q", plan.Invalid, tt.invalid)
			}
		})
	}
}

// TestParseToleratesUnknownFields checks the lenient fallback kube-proxy
// itself uses: unknown fields are ignored, known ones decoded.
func TestParseToleratesUnknownFields(t *testing.T) {
	cfg, err := kubeproxy.Parse(read(t, "hand-edited.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClusterCIDR != "10.244.0.0/16" || cfg.Mode != "nftables" || cfg.ClientConnection.QPS != 50 {
		t.Errorf("decoded %+v", cfg)
	}
}
