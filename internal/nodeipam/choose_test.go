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

package nodeipam

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func cand(t *testing.T, name, cidr string, sel *corev1.NodeSelector) Candidate {
	t.Helper()
	s, err := CompileNodeSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return Candidate{Name: name, Prefix: mp(cidr), Selector: s}
}

func TestChoose(t *testing.T) {
	gpu := terms(exprs(req("pool", corev1.NodeSelectorOpIn, "gpu")))
	gpuZoneA := terms(exprs(req("pool", corev1.NodeSelectorOpIn, "gpu"), req("zone", corev1.NodeSelectorOpIn, "a")))
	zoneB := terms(exprs(req("zone", corev1.NodeSelectorOpIn, "b")))
	nothing := terms()
	gpuNodeA := map[string]string{"pool": "gpu", "zone": "a"}

	tests := []struct {
		name    string
		cands   func(t *testing.T) []Candidate
		labels  map[string]string
		primary v1alpha1.IPFamily
		want    [][]string
	}{
		{
			name:  "no candidates",
			cands: func(*testing.T) []Candidate { return nil },
			want:  nil,
		},
		{
			name: "most specific selector first, then the narrower range, then the name",
			cands: func(t *testing.T) []Candidate {
				return []Candidate{
					cand(t, "all-wide", "10.0.0.0/12", nil),
					cand(t, "all-narrow-b", "10.32.0.0/16", nil),
					cand(t, "all-narrow-a", "10.33.0.0/16", nil),
					cand(t, "gpu", "10.64.0.0/12", gpu),
					cand(t, "gpu-zone-a", "10.96.0.0/12", gpuZoneA),
					cand(t, "zone-b", "10.128.0.0/16", zoneB),
					cand(t, "none", "10.129.0.0/16", nothing),
				}
			},
			labels: gpuNodeA,
			want:   [][]string{{"gpu-zone-a", "gpu", "all-narrow-a", "all-narrow-b", "all-wide"}},
		},
		{
			name: "a node that only a catch-all matches",
			cands: func(t *testing.T) []Candidate {
				return []Candidate{cand(t, "gpu", "10.64.0.0/12", gpu), cand(t, "all", "10.0.0.0/12", nil)}
			},
			labels: map[string]string{"pool": "cpu"},
			want:   [][]string{{"all"}},
		},
		{
			name: "dual-stack: one list per family, IPv4 first by default",
			cands: func(t *testing.T) []Candidate {
				return []Candidate{
					cand(t, "v6", "fd00::/48", nil),
					cand(t, "v4", "10.0.0.0/16", nil),
					cand(t, "v6-gpu", "fd01::/48", gpu),
				}
			},
			labels: gpuNodeA,
			want:   [][]string{{"v4"}, {"v6-gpu", "v6"}},
		},
		{
			name: "IPv6 primary",
			cands: func(t *testing.T) []Candidate {
				return []Candidate{cand(t, "v4", "10.0.0.0/16", nil), cand(t, "v6", "fd00::/48", nil)}
			},
			primary: v1alpha1.IPv6,
			want:    [][]string{{"v6"}, {"v4"}},
		},
		{
			name: "a family with no matching range is left out",
			cands: func(t *testing.T) []Candidate {
				return []Candidate{cand(t, "v4", "10.0.0.0/16", nil), cand(t, "v6-b", "fd00::/48", zoneB)}
			},
			labels: gpuNodeA,
			want:   [][]string{{"v4"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cands := tt.cands(t)
			got := Choose(cands, "node-1", tt.labels, tt.primary)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Choose = %v, want %v", got, tt.want)
			}
			// The order does not depend on the order of the candidates.
			for i, j := 0, len(cands)-1; i < j; i, j = i+1, j-1 {
				cands[i], cands[j] = cands[j], cands[i]
			}
			if again := Choose(cands, "node-1", tt.labels, tt.primary); !reflect.DeepEqual(again, tt.want) {
				t.Fatalf("Choose on reversed candidates = %v, want %v", again, tt.want)
			}
		})
	}
}
