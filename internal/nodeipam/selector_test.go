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
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func req(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func terms(ts ...corev1.NodeSelectorTerm) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: ts}
}

func exprs(rs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: rs}
}

func TestNodeSelectorMatch(t *testing.T) {
	zoneA := map[string]string{"zone": "a", "pool": "gpu", "gen": "5"}
	tests := []struct {
		name     string
		sel      *corev1.NodeSelector
		node     string
		labels   map[string]string
		want     bool
		wantSpec int
		wantErr  bool
	}{
		{name: "nil selector matches every node", sel: nil, labels: nil, want: true},
		{name: "empty terms list matches nothing", sel: terms(), labels: zoneA, want: false},
		{name: "a term without requirements matches nothing", sel: terms(corev1.NodeSelectorTerm{}), labels: zoneA, want: false},
		{name: "In", sel: terms(exprs(req("zone", corev1.NodeSelectorOpIn, "a", "b"))), labels: zoneA, want: true, wantSpec: 1},
		{name: "In misses", sel: terms(exprs(req("zone", corev1.NodeSelectorOpIn, "b"))), labels: zoneA, want: false},
		{name: "NotIn matches a missing label", sel: terms(exprs(req("rack", corev1.NodeSelectorOpNotIn, "r1"))), labels: zoneA, want: true, wantSpec: 1},
		{name: "NotIn misses", sel: terms(exprs(req("zone", corev1.NodeSelectorOpNotIn, "a"))), labels: zoneA, want: false},
		{name: "Exists", sel: terms(exprs(req("pool", corev1.NodeSelectorOpExists))), labels: zoneA, want: true, wantSpec: 1},
		{name: "DoesNotExist", sel: terms(exprs(req("pool", corev1.NodeSelectorOpDoesNotExist))), labels: zoneA, want: false},
		{name: "Gt", sel: terms(exprs(req("gen", corev1.NodeSelectorOpGt, "4"))), labels: zoneA, want: true, wantSpec: 1},
		{name: "Gt is strict", sel: terms(exprs(req("gen", corev1.NodeSelectorOpGt, "5"))), labels: zoneA, want: false},
		{name: "Lt", sel: terms(exprs(req("gen", corev1.NodeSelectorOpLt, "6"))), labels: zoneA, want: true, wantSpec: 1},
		{name: "Gt on a missing label misses", sel: terms(exprs(req("cores", corev1.NodeSelectorOpGt, "1"))), labels: zoneA, want: false},
		{name: "Gt on a non-integer label misses", sel: terms(exprs(req("zone", corev1.NodeSelectorOpGt, "1"))), labels: zoneA, want: false},
		{
			name:   "expressions of a term are AND-ed",
			sel:    terms(exprs(req("zone", corev1.NodeSelectorOpIn, "a"), req("pool", corev1.NodeSelectorOpIn, "cpu"))),
			labels: zoneA, want: false,
		},
		{
			name:   "all expressions hold",
			sel:    terms(exprs(req("zone", corev1.NodeSelectorOpIn, "a"), req("pool", corev1.NodeSelectorOpIn, "gpu"))),
			labels: zoneA, want: true, wantSpec: 2,
		},
		{
			name: "terms are OR-ed",
			sel: terms(
				exprs(req("zone", corev1.NodeSelectorOpIn, "b")),
				exprs(req("pool", corev1.NodeSelectorOpIn, "gpu")),
			),
			labels: zoneA, want: true, wantSpec: 1,
		},
		{
			name: "specificity is the largest matching term",
			sel: terms(
				exprs(req("zone", corev1.NodeSelectorOpExists)),
				exprs(req("zone", corev1.NodeSelectorOpIn, "a"), req("gen", corev1.NodeSelectorOpGt, "1"), req("pool", corev1.NodeSelectorOpExists)),
				exprs(req("zone", corev1.NodeSelectorOpIn, "a"), req("pool", corev1.NodeSelectorOpIn, "cpu"), req("x", corev1.NodeSelectorOpExists), req("y", corev1.NodeSelectorOpExists)),
			),
			labels: zoneA, want: true, wantSpec: 3,
		},
		{
			name: "matchFields on metadata.name",
			sel: terms(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				req("metadata.name", corev1.NodeSelectorOpIn, "n1"),
			}}),
			node: "n1", want: true, wantSpec: 1,
		},
		{
			name: "matchFields NotIn",
			sel: terms(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				req("metadata.name", corev1.NodeSelectorOpNotIn, "n1"),
			}}),
			node: "n1", want: false,
		},
		{
			name: "matchFields AND matchExpressions in one term",
			sel: terms(corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{req("zone", corev1.NodeSelectorOpIn, "a")},
				MatchFields:      []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "n2")},
			}),
			node: "n1", labels: zoneA, want: false,
		},
		{
			name: "an invalid term matches nothing, the others still do",
			sel: terms(
				exprs(req("zone", "Like", "a")),
				exprs(req("zone", corev1.NodeSelectorOpIn, "a")),
			),
			labels: zoneA, want: true, wantSpec: 1, wantErr: true,
		},
		{
			name:   "In without values is invalid",
			sel:    terms(exprs(req("zone", corev1.NodeSelectorOpIn))),
			labels: zoneA, want: false, wantErr: true,
		},
		{
			name:   "Exists with values is invalid",
			sel:    terms(exprs(req("zone", corev1.NodeSelectorOpExists, "a"))),
			labels: zoneA, want: false, wantErr: true,
		},
		{
			name:   "Gt with a non-integer value is invalid",
			sel:    terms(exprs(req("gen", corev1.NodeSelectorOpGt, "five"))),
			labels: zoneA, want: false, wantErr: true,
		},
		{
			name:   "an invalid label key is invalid",
			sel:    terms(exprs(req("not a key!", corev1.NodeSelectorOpExists))),
			labels: zoneA, want: false, wantErr: true,
		},
		{
			name: "matchFields on another field is invalid",
			sel: terms(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				req("spec.providerID", corev1.NodeSelectorOpIn, "x"),
			}}),
			node: "n1", want: false, wantErr: true,
		},
		{
			name: "matchFields with two values is invalid",
			sel: terms(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				req("metadata.name", corev1.NodeSelectorOpIn, "n1", "n2"),
			}}),
			node: "n1", want: false, wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := CompileNodeSelector(tt.sel)
			if (err != nil) != tt.wantErr {
				t.Fatalf("CompileNodeSelector error = %v, want error %v", err, tt.wantErr)
			}
			node := tt.node
			if node == "" {
				node = "n1"
			}
			got, spec := sel.Match(node, tt.labels)
			if got != tt.want || spec != tt.wantSpec {
				t.Fatalf("Match = %v, %d; want %v, %d", got, spec, tt.want, tt.wantSpec)
			}
		})
	}
}
