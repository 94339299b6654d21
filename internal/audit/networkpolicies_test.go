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
	"time"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func TestNetworkPolicies(t *testing.T) {
	// Range a is Active from t0, b from 10 hours later; the policies are
	// written at 5 hours (before b) unless a case says otherwise.
	grown := podNetwork(active("a", "10.244.0.0/16", 0), active("b", "10.250.0.0/16", 10))
	missing := func(name, rules string) found {
		return found{Kind: NetworkPolicyMissingRange, Object: "NetworkPolicy default/" + name, Related: "PodNetwork default",
			Message: rules + ": pods on the nodes of the new range are not allowed; add its CIDR to the ipBlocks, or annotate the policy " +
				`podnetwork.io/audit-ignore="true" if it means to allow only the ranges it lists`}
	}
	const missesB = "allows 10.244.0.0/16, which covers every range in use when the policy was last written but not b (10.250.0.0/16, Active since 2026-03-01T22:00:00Z)"
	tests := []struct {
		name     string
		pn       *v1alpha1.PodNetwork
		policies []*PolicyWrapper
		want     []found
	}{
		{
			name:     "written for the pod network before a range was added",
			pn:       grown,
			policies: []*PolicyWrapper{policy("allow-pods", 5).ingress(ipBlock("10.244.0.0/16"))},
			want:     []found{missing("allow-pods", "ingress rule 1 "+missesB)},
		},
		{
			name: "every rule that misses it, ingress and egress",
			pn:   grown,
			policies: []*PolicyWrapper{policy("both", 5).ingress(ipBlock("192.168.0.0/16")).ingress(ipBlock("10.244.0.0/16")).
				egress(ipBlock("10.244.0.0/17"), ipBlock("10.244.128.0/17"))},
			want: []found{missing("both", "ingress rule 2 "+missesB+"; egress rule 1 allows 10.244.0.0/17, 10.244.128.0/17, which covers every range in use when the policy was last written "+
				"but not b (10.250.0.0/16, Active since 2026-03-01T22:00:00Z)")},
		},
		{
			name: "already covering the new range, by a supernet or its own block",
			pn:   grown,
			policies: []*PolicyWrapper{policy("supernet", 5).ingress(ipBlock("10.0.0.0/8")),
				policy("listed", 5).ingress(ipBlock("10.244.0.0/16"), ipBlock("10.250.0.0/16"))},
		},
		{
			name: "written, or written again, after the range became Active",
			pn:   grown,
			policies: []*PolicyWrapper{policy("new", 11).ingress(ipBlock("10.244.0.0/16")),
				policy("edited", 5).writtenAt(12).ingress(ipBlock("10.244.0.0/16"))},
		},
		{
			name:     "a write before the range became Active does not count",
			pn:       grown,
			policies: []*PolicyWrapper{policy("edited", 2).writtenAt(5).ingress(ipBlock("10.244.0.0/16"))},
			want:     []found{missing("edited", "ingress rule 1 "+missesB)},
		},
		{
			name: "only part of the older ranges: not written for the pod network",
			pn:   podNetwork(active("a", "10.244.0.0/16", 0), active("gpu", "10.200.0.0/24", 0), active("b", "10.250.0.0/16", 10)),
			policies: []*PolicyWrapper{policy("gpu-only", 5).ingress(ipBlock("10.200.0.0/24")),
				policy("except", 5).ingress(ipBlock("10.0.0.0/8", "10.250.0.0/16", "10.244.1.0/24"))},
		},
		{
			name:     "a Draining range it covers, replaced by a new one",
			pn:       podNetwork(rangeAt("a", "10.244.0.0/16", v1alpha1.RangePhaseDraining, 12), active("b", "10.250.0.0/16", 10)),
			policies: []*PolicyWrapper{policy("old-network", 5).egress(ipBlock("10.244.0.0/16"))},
			want:     []found{missing("old-network", "egress rule 1 "+missesB)},
		},
		{
			name:     "per IP family: an IPv4 policy misses an IPv4 range, not an IPv6 one it never covered",
			pn:       podNetwork(active("a", "10.244.0.0/16", 0), active("a6", "fd00:10:244::/56", 0), active("b", "10.250.0.0/16", 10), active("b6", "fd00:10:250::/56", 10)),
			policies: []*PolicyWrapper{policy("v4", 5).ingress(ipBlock("10.244.0.0/16")), policy("v6", 5).ingress(ipBlock("fd00:10:244::/56"))},
			want: []found{missing("v4", "ingress rule 1 "+missesB),
				missing("v6", "ingress rule 1 allows fd00:10:244::/56, which covers every range in use when the policy was last written but not b6 (fd00:10:250::/56, Active since 2026-03-01T22:00:00Z)")},
		},
		{
			name:     "opted out",
			pn:       grown,
			policies: []*PolicyWrapper{policy("pinned", 5).annotate(IgnoreAnnotation, "true").ingress(ipBlock("10.244.0.0/16"))},
		},
		{
			name: "rules without ipBlocks, or allowing everything",
			pn:   grown,
			policies: []*PolicyWrapper{policy("selectors", 5).ingress(networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}}),
				policy("all", 5).ingress(), policy("deny", 5)},
		},
		{
			name: "Pending and Released ranges are not in use",
			pn: podNetwork(active("a", "10.244.0.0/16", 0), rangeAt("p", "10.250.0.0/16", v1alpha1.RangePhasePending, 10),
				rangeAt("r", "10.251.0.0/16", v1alpha1.RangePhaseReleased, 10)),
			policies: []*PolicyWrapper{policy("allow-pods", 5).ingress(ipBlock("10.244.0.0/16"))},
		},
		{
			name:     "no PodNetwork",
			policies: []*PolicyWrapper{policy("allow-pods", 5).ingress(ipBlock("10.244.0.0/16"))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRun(Input{PodNetwork: tt.pn, MaxAnnounce: 100})
			var policies []networkingv1.NetworkPolicy
			for _, p := range tt.policies {
				policies = append(policies, p.obj())
			}
			r.NetworkPolicies(policies)
			res := r.Result()
			if diff := cmp.Diff(tt.want, summarize(res.Announce)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if got := res.Findings[NetworkPolicyMissingRange]; got != len(tt.want) {
				t.Errorf("counted %d, want %d", got, len(tt.want))
			}
		})
	}
}

func TestLastWritten(t *testing.T) {
	created := policy("p", 1)
	if got := LastWritten(&created.ObjectMeta); !got.Equal(at(1)) {
		t.Errorf("a policy never written since its creation: %v, want %v", got, at(1))
	}
	written := policy("p", 1).writtenAt(3).writtenAt(2)
	written.ManagedFields = append(written.ManagedFields, metav1.ManagedFieldsEntry{Manager: "no-time"})
	if got := LastWritten(&written.ObjectMeta); !got.Equal(at(3)) {
		t.Errorf("the latest managedFields time: %v, want %v", got, at(3))
	}
	if got := LastWritten(&metav1.ObjectMeta{}); !got.Equal(time.Time{}) {
		t.Errorf("no time at all: %v", got)
	}
}
