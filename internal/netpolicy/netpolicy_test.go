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

package netpolicy

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func block(cidr string, except ...string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: cidr, Except: except}}
}

func ranges(kv ...string) []Range {
	var out []Range
	for i := 0; i < len(kv); i += 2 {
		out = append(out, Range{Name: kv[i], Prefix: netip.MustParsePrefix(kv[i+1])})
	}
	return out
}

func TestRules(t *testing.T) {
	np := &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{
		Ingress: []networkingv1.NetworkPolicyIngressRule{
			{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}},
			{From: []networkingv1.NetworkPolicyPeer{block("10.244.0.0/16"), block("10.250.1.0/24")}},
		},
		Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{block("10.0.0.0/8", "10.245.0.0/16"), block("not a cidr")}}},
	}}
	var got []string
	for _, r := range Rules(np) {
		got = append(got, r.Name)
		for _, p := range r.Allows {
			got = append(got, p.String())
		}
	}
	want := []string{"ingress rule 2", "10.244.0.0/16", "10.250.1.0/24", "egress rule 1", "10.0.0.0/8"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	np.Annotations = map[string]string{IgnoreAnnotation: "true"}
	if r := Rules(np); r != nil {
		t.Errorf("an ignored policy has rules: %v", r)
	}
}

func TestLeavesOut(t *testing.T) {
	known := ranges("a", "10.244.0.0/16", "a6", "fd00:10:244::/56")
	newer := ranges("b", "10.245.0.0/16", "b6", "fd00:10:245::/56", "c", "10.250.0.0/16")
	tests := []struct {
		name  string
		peers []networkingv1.NetworkPolicyPeer
		want  []int
	}{
		{name: "written for the IPv4 pod network", peers: []networkingv1.NetworkPolicyPeer{block("10.244.0.0/16")}, want: []int{0, 2}},
		{name: "a supernet covers b, not c", peers: []networkingv1.NetworkPolicyPeer{block("10.244.0.0/15")}, want: []int{2}},
		{name: "an except that leaves b out", peers: []networkingv1.NetworkPolicyPeer{block("10.0.0.0/8", "10.245.0.0/16")}, want: []int{0}},
		{name: "both families", peers: []networkingv1.NetworkPolicyPeer{block("10.244.0.0/16"), block("fd00:10:244::/56")}, want: []int{0, 2, 1}},
		{name: "part of a known range only: not for the pod network", peers: []networkingv1.NetworkPolicyPeer{block("10.244.0.0/17")}},
		{name: "an except inside a known range", peers: []networkingv1.NetworkPolicyPeer{block("10.0.0.0/8", "10.244.1.0/24")}},
		{name: "everything", peers: []networkingv1.NetworkPolicyPeer{block("0.0.0.0/0"), block("::/0")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: tt.peers}}}}
			rules := Rules(np)
			if len(rules) != 1 {
				t.Fatalf("%d rules", len(rules))
			}
			if diff := cmp.Diff(tt.want, rules[0].LeavesOut(known, newer)); diff != "" {
				t.Errorf("left out (-want +got):\n%s", diff)
			}
		})
	}
	rule := Rules(&networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{block("10.244.0.0/16")}}}}})[0]
	if got := rule.LeavesOut(nil, newer); got != nil {
		t.Errorf("no known range: %v", got)
	}
}
