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

package adapters_test

import (
	"net/netip"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/adapterstest"
)

func TestDecide(t *testing.T) {
	kubeProxy := adapters.Rules{Subject: "kube-proxy (clusterCIDR)"}
	flannel := adapters.Rules{Subject: "flannel (Network, IPv6Network)", CoverNodePodCIDRs: true}
	tests := []struct {
		name  string
		in    adapters.Input
		rules adapters.Rules
		// want is the covering prefix per family ("" when absent).
		wantV4, wantV6 string
		// rejected maps range names to substrings their message must hold.
		rejected map[string][]string
		problems []string
	}{
		{
			name:   "one active range is its own covering prefix",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"))),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/16",
		},
		{
			name:   "adjacent pending range doubles the prefix",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("b", "10.245.0.0/16"))),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/15",
		},
		{
			name:   "non-adjacent pending range widens the prefix over the gap",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("b", "10.250.0.0/16"))),
			rules:  kubeProxy,
			wantV4: "10.240.0.0/12",
		},
		{
			name:   "a range inside an active one changes nothing",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("b", "10.244.128.0/17"))),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/16",
		},
		{
			name:   "pending range whose covering prefix swallows the service range is rejected",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("far", "10.0.0.0/16"))),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/16",
			rejected: map[string][]string{"far": {
				`kube-proxy (clusterCIDR) takes one prefix per IP family`,
				`with range "far" (10.0.0.0/16) the IPv4 prefix would be 10.0.0.0/8`,
				`overlaps ServiceCIDR "kubernetes" (10.96.0.0/16)`,
				`Choose a range inside 10.128.0.0/9`,
				`add the range 10.128.0.0/9`,
				`contains the existing IPv4 ranges (10.244.0.0/16)`,
			}},
		},
		{
			name: "pending range whose covering prefix is shorter than the limit is rejected",
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("b", "11.0.0.0/16")))
				in.ServiceCIDRs = nil
				return in
			}(),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/16",
			rejected: map[string][]string{"b": {
				"would be 10.0.0.0/7",
				"shorter than /8",
				"--adapter-min-covering-prefix-ipv4",
				"Choose a range inside 10.0.0.0/8",
			}},
		},
		{
			name: "pending range whose covering prefix contains a node address is rejected",
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("b", "10.251.0.0/16")))
				in.NodeAddresses = []adapters.NodeAddress{adapterstest.NodeAddr("n1", "10.250.0.5")}
				return in
			}(),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/16",
			rejected: map[string][]string{"b": {
				"would be 10.240.0.0/12",
				`contains the address 10.250.0.5 of node "n1"`,
				"Choose a range inside 10.240.0.0/13",
			}},
		},
		{
			name:   "adjacent IPv6 ranges",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "fd00:10:244::/56"), adapterstest.Pending("b", "fd00:10:244:100::/56"))),
			rules:  kubeProxy,
			wantV6: "fd00:10:244::/55",
		},
		{
			name:   "non-adjacent IPv6 range beyond the /32 limit is rejected",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "fd00:10:244::/56"), adapterstest.Pending("b", "fd01::/48"))),
			rules:  kubeProxy,
			wantV6: "fd00:10:244::/56",
			rejected: map[string][]string{"b": {
				"IPv6 prefix would be fd00::/15",
				"--adapter-min-covering-prefix-ipv6",
				"Choose a range inside fd00:10::/32",
			}},
		},
		{
			name: "IPv6 range whose covering prefix swallows an IPv6 service range is rejected",
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "fd00:10:244::/56"), adapterstest.Pending("b", "fd00:10::/56")))
				in.ServiceCIDRs = append(in.ServiceCIDRs, adapterstest.Service("kubernetes", "fd00:10:96::/112"))
				return in
			}(),
			rules:  kubeProxy,
			wantV6: "fd00:10:244::/56",
			rejected: map[string][]string{"b": {
				"fd00:10::/38",
				`overlaps ServiceCIDR "kubernetes" (fd00:10:96::/112)`,
				"Choose a range inside fd00:10:200::/39",
			}},
		},
		{
			name:   "dual-stack families are covered independently",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("v4", "10.244.0.0/16"), adapterstest.Active("v6", "fd00:10:244::/56"), adapterstest.Pending("v4b", "10.245.0.0/16"))),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/15",
			wantV6: "fd00:10:244::/56",
		},
		{
			name:   "a draining range stays covered",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Draining("b", "10.245.0.0/16"))),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/15",
		},
		{
			name:   "a released range no longer widens the prefix",
			in:     adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Released("b", "10.245.0.0/16"))),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/16",
		},
		{
			name: "a pending range the operator found invalid is neither covered nor answered",
			in: func() adapters.Input {
				bad := adapterstest.Pending("bad", "10.96.0.0/12")
				bad.InvalidReason = v1alpha1.RangeInvalidServiceCIDROverlap
				return adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), bad))
			}(),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/16",
		},
		{
			name: "flannel covers node podCIDRs outside every range",
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16")))
				in.NodePodCIDRs = []adapters.NamedPrefix{{Name: "n1", Prefix: netip.MustParsePrefix("10.245.7.0/24")}}
				return in
			}(),
			rules:  flannel,
			wantV4: "10.244.0.0/15",
		},
		{
			name: "kube-proxy ignores node podCIDRs",
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16")))
				in.NodePodCIDRs = []adapters.NamedPrefix{{Name: "n1", Prefix: netip.MustParsePrefix("10.245.7.0/24")}}
				return in
			}(),
			rules:  kubeProxy,
			wantV4: "10.244.0.0/16",
		},
		{
			name: "prefixes already in use that break a rule are written, reported, and block new ranges",
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Pending("b", "10.245.0.0/16")))
				in.NodePodCIDRs = []adapters.NamedPrefix{{Name: "n1", Prefix: netip.MustParsePrefix("10.1.0.0/24")}}
				return in
			}(),
			rules:    flannel,
			wantV4:   "10.0.0.0/8",
			problems: []string{"already in use (Active and Draining ranges and node podCIDRs) need 10.0.0.0/8", `overlaps ServiceCIDR "kubernetes"`},
			rejected: map[string][]string{"b": {"The IPv4 prefixes already in use need 10.0.0.0/8, which already overlaps"}},
		},
		{
			name: "a disabled family rejects its pending ranges",
			in:   adapterstest.Input(adapterstest.PodNetwork(adapterstest.Pending("a", "10.244.0.0/16"))),
			rules: adapters.Rules{Subject: "flannel", Disabled: map[string]string{
				"IPv4": "EnableIPv4 is false",
			}},
			rejected: map[string][]string{"a": {"EnableIPv4 is false"}},
		},
		{
			name: "a lone range shorter than the limit gets a size suggestion",
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Pending("a", "10.0.0.0/7")))
				in.ServiceCIDRs = nil
				return in
			}(),
			rules:    kubeProxy,
			rejected: map[string][]string{"a": {"would be 10.0.0.0/7", "Choose an IPv4 range of prefix length /8 or longer"}},
		},
		{
			name: "no room left: the existing ranges already span the widest allowed prefix",
			in: func() adapters.Input {
				in := adapterstest.Input(adapterstest.PodNetwork(adapterstest.Active("a", "10.128.0.0/9"), adapterstest.Pending("b", "10.0.0.0/16")))
				return in
			}(),
			rules:    kubeProxy,
			wantV4:   "10.128.0.0/9",
			rejected: map[string][]string{"b": {"already in use span 10.128.0.0/9 and no wider prefix is allowed"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := adapters.Decide(tt.in, tt.rules)
			checkPrefix(t, got.Covering, "IPv4", tt.wantV4)
			checkPrefix(t, got.Covering, "IPv6", tt.wantV6)
			if len(got.Rejected) != len(tt.rejected) {
				t.Errorf("rejected %v, want the ranges %v", got.Rejected, keys(tt.rejected))
			}
			for name, parts := range tt.rejected {
				msg, ok := got.Rejected[name]
				if !ok {
					t.Errorf("range %q not rejected", name)
					continue
				}
				for _, p := range parts {
					if !strings.Contains(msg, p) {
						t.Errorf("rejection of %q = %q, want it to contain %q", name, msg, p)
					}
				}
			}
			all := strings.Join(got.Problems, "\n")
			if (len(tt.problems) == 0) != (len(got.Problems) == 0) {
				t.Errorf("problems = %q, want %q", got.Problems, tt.problems)
			}
			for _, p := range tt.problems {
				if !strings.Contains(all, p) {
					t.Errorf("problems = %q, want them to contain %q", all, p)
				}
			}
		})
	}
}

// TestDecideKeepsAcceptedPendingRanges checks that a Pending range the
// adapter accepted keeps priority over one earlier in status order that
// cannot be taken together with it.
func TestDecideKeepsAcceptedPendingRanges(t *testing.T) {
	a, b := adapterstest.Pending("a", "10.0.0.0/16"), adapterstest.Pending("b", "10.128.0.0/16")
	rules := adapters.Rules{Subject: "kube-proxy (clusterCIDR)"}

	fresh := adapters.Decide(adapterstest.Input(adapterstest.PodNetwork(a, b)), rules)
	if _, rejected := fresh.Rejected["b"]; !rejected || len(fresh.Rejected) != 1 {
		t.Fatalf("without earlier acknowledgements, want only b rejected (status order), got %v", fresh.Rejected)
	}

	in := adapterstest.Input(adapterstest.PodNetwork(a, b))
	in.Previous = []v1alpha1.ConsumerRangeStatus{v1alpha1.AckFor(b, v1alpha1.AckAccepted, "applied", metav1.Now())}
	kept := adapters.Decide(in, rules)
	if _, rejected := kept.Rejected["a"]; !rejected || len(kept.Rejected) != 1 {
		t.Fatalf("with b accepted before, want only a rejected, got %v", kept.Rejected)
	}
	checkPrefix(t, kept.Covering, "IPv4", "10.128.0.0/16")
}

func TestConfigHash(t *testing.T) {
	if adapters.ConfigHash("a") == adapters.ConfigHash("b") {
		t.Error("different contents hash the same")
	}
	if h := adapters.ConfigHash("a"); h != adapters.ConfigHash("a") || len(h) != 32 {
		t.Errorf("ConfigHash is not a stable 32-character hash: %q", h)
	}
}

func checkPrefix(t *testing.T, covering map[string]netip.Prefix, family, want string) {
	t.Helper()
	got, ok := covering[family]
	switch {
	case want == "" && ok:
		t.Errorf("%s covering prefix = %s, want none", family, got)
	case want != "" && (!ok || got.String() != want):
		t.Errorf("%s covering prefix = %v (present %v), want %s", family, got, ok, want)
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
