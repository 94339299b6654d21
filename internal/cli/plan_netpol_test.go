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
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/netpolicy"
)

func netpol(namespace, name string, ingress, egress []string, annotations map[string]string) networkingv1.NetworkPolicy {
	peers := func(cidrs []string) []networkingv1.NetworkPolicyPeer {
		var out []networkingv1.NetworkPolicyPeer
		for _, c := range cidrs {
			out = append(out, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: c}})
		}
		return out
	}
	np := networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: annotations}}
	if ingress != nil {
		np.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{From: peers(ingress)}}
	}
	if egress != nil {
		np.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{To: peers(egress)}}
	}
	return np
}

// TestPlanNetworkPolicies: plan lists the NetworkPolicies written for the
// ranges in use today (a, gpu, old) that leave out the ranges the change
// brings in (b, Pending today, and c), with the audit's rule.
func TestPlanNetworkPolicies(t *testing.T) {
	c := transition(t)
	c.Consumers[2].Status.Ranges = c.Consumers[0].Status.Ranges
	proposed := append(c.Ranges()[:0:0], c.Ranges()...)
	proposed = append(proposed,
		v1alpha1.PodCIDRRange{Name: "c", CIDR: "10.246.0.0/16"},
		v1alpha1.PodCIDRRange{Name: "svc", CIDR: "10.96.0.0/16"}, // invalid: never in use
	)
	policies := []networkingv1.NetworkPolicy{
		netpol("default", "allow-pods", []string{"10.244.0.0/16", "10.250.0.0/24", "10.240.0.0/16"}, nil, nil),
		netpol("default", "supernet", []string{"10.0.0.0/8"}, nil, nil),
		netpol("monitoring", "scrape", nil, []string{"10.240.0.0/14", "10.244.0.0/15", "10.250.0.0/24"}, nil),
		netpol("ml", "gpu-only", []string{"10.250.0.0/24"}, nil, nil),
		netpol("default", "pinned", []string{"10.244.0.0/16", "10.250.0.0/24", "10.240.0.0/16"}, nil, map[string]string{netpolicy.IgnoreAnnotation: "true"}),
		netpol("default", "v6", []string{"fd00::/8"}, nil, nil),
		netpol("default", "selectors", nil, nil, nil),
	}
	p := cli.Plan(c, proposed, now)
	cli.PlanNetworkPolicies(&p, policies, nil)
	var b bytes.Buffer
	if err := cli.WritePlanText(&b, &p); err != nil {
		t.Fatal(err)
	}
	golden(t, "plan-netpol.text", b.Bytes())
	js, err := json.MarshalIndent(p.NetworkPolicies, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "plan-netpol.json", append(js, '\n'))
	if p.Outcome != cli.OutcomeStuck {
		t.Errorf("outcome %s: the NetworkPolicies change nothing of it (svc is invalid)", p.Outcome)
	}

	// No NetworkPolicy left out: one line; none at all: nothing.
	p = cli.Plan(c, proposed, now)
	cli.PlanNetworkPolicies(&p, policies[1:2], nil)
	b.Reset()
	if err := cli.WritePlanText(&b, &p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nNetworkPolicies: none of 1 leaves out b, c.\n") {
		t.Errorf("none left out:\n%s", b.String())
	}
	p = cli.Plan(c, proposed, now)
	cli.PlanNetworkPolicies(&p, nil, nil)
	b.Reset()
	if err := cli.WritePlanText(&b, &p); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "NetworkPolic") || p.NetworkPolicies.LeftOut == nil {
		t.Errorf("no NetworkPolicy at all: %+v\n%s", p.NetworkPolicies, b.String())
	}

	// A user who may not list them: the plan says so and stands.
	p = cli.Plan(c, proposed, now)
	cli.PlanNetworkPolicies(&p, nil, &cli.Unreadable{Resource: cli.ResourceNetworkPolicies,
		Message: `networkpolicies.networking.k8s.io is forbidden: User "dev" cannot list resource "networkpolicies" in API group "networking.k8s.io" at the cluster scope`})
	b.Reset()
	if err := cli.WritePlanText(&b, &p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nNetworkPolicies could not be read (networkpolicies.networking.k8s.io is forbidden: User \"dev\" cannot list") ||
		p.NetworkPolicies.Checked != 0 || p.NetworkPolicies.Unreadable == nil || len(p.NetworkPolicies.LeftOut) != 0 {
		t.Errorf("unreadable: %+v\n%s", p.NetworkPolicies, b.String())
	}

	// A change that adds no range: nothing to check.
	p = cli.Plan(c, c.Ranges()[1:], now)
	cli.PlanNetworkPolicies(&p, policies, nil)
	if got := cli.PlanNewRanges(&p); len(got) != 1 || got[0].Name != "b" {
		t.Errorf("new ranges of a removal: %v (b is Pending today)", got)
	}
	p = cli.Plan(c, c.Ranges(), now)
	p.Ranges = p.Ranges[:0]
	cli.PlanNetworkPolicies(&p, policies, nil)
	if p.NetworkPolicies != nil {
		t.Errorf("no new range: %+v", p.NetworkPolicies)
	}
}
