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
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// nodeNameField is the only field a NodeSelector may match on.
const nodeNameField = "metadata.name"

// NodeSelector is a compiled corev1.NodeSelector with the semantics the
// scheduler gives node affinity: a nil selector matches every node, a
// selector without terms matches none, terms are OR-ed, and within a term
// every match expression and every match field must hold. A term without any
// requirement matches nothing.
//
// k8s.io/component-helpers implements the same rules; the operator does not
// use it (only the history checker in test/framework/invariants/history does, as an
// oracle independent of this code): this is the small subset NodeIPAM needs,
// table-tested against the documented semantics.
type NodeSelector struct {
	matchAll bool
	terms    []nodeSelectorTerm
}

// nodeSelectorTerm is one compiled NodeSelectorTerm.
type nodeSelectorTerm struct {
	labels labels.Selector // nil when the term has no match expressions
	names  []nameRequirement
	size   int // number of requirements: the term's specificity
}

// nameRequirement is one matchFields requirement on metadata.name.
type nameRequirement struct {
	in   bool // In, otherwise NotIn
	name string
}

// MatchAll is the selector of a range that sets no nodeSelector.
var MatchAll = &NodeSelector{matchAll: true}

// CompileNodeSelector compiles sel. A term that cannot be compiled (an unknown
// operator, a wrong number of values, an invalid label key or value, a field
// other than metadata.name) matches nothing, as the scheduler treats it; the
// returned error lists those terms, and the returned selector is usable even
// when the error is not nil.
func CompileNodeSelector(sel *corev1.NodeSelector) (*NodeSelector, error) {
	if sel == nil {
		return MatchAll, nil
	}
	out := &NodeSelector{}
	var errs []error
	for i := range sel.NodeSelectorTerms {
		t, err := compileTerm(&sel.NodeSelectorTerms[i])
		if err != nil {
			errs = append(errs, fmt.Errorf("nodeSelectorTerms[%d]: %w", i, err))
			continue
		}
		if t.size > 0 {
			out.terms = append(out.terms, t)
		}
	}
	return out, errors.Join(errs...)
}

func compileTerm(t *corev1.NodeSelectorTerm) (nodeSelectorTerm, error) {
	out := nodeSelectorTerm{size: len(t.MatchExpressions) + len(t.MatchFields)}
	if len(t.MatchExpressions) > 0 {
		reqs := make([]labels.Requirement, 0, len(t.MatchExpressions))
		for j, e := range t.MatchExpressions {
			op, ok := labelOperators[e.Operator]
			if !ok {
				return nodeSelectorTerm{}, fmt.Errorf("matchExpressions[%d]: unknown operator %q", j, e.Operator)
			}
			r, err := labels.NewRequirement(e.Key, op, e.Values)
			if err != nil {
				return nodeSelectorTerm{}, fmt.Errorf("matchExpressions[%d]: %w", j, err)
			}
			reqs = append(reqs, *r)
		}
		out.labels = labels.NewSelector().Add(reqs...)
	}
	for j, f := range t.MatchFields {
		if f.Key != nodeNameField {
			return nodeSelectorTerm{}, fmt.Errorf("matchFields[%d]: field %q is not supported, only %s", j, f.Key, nodeNameField)
		}
		if f.Operator != corev1.NodeSelectorOpIn && f.Operator != corev1.NodeSelectorOpNotIn {
			return nodeSelectorTerm{}, fmt.Errorf("matchFields[%d]: operator %q is not supported, only In and NotIn", j, f.Operator)
		}
		if len(f.Values) != 1 {
			return nodeSelectorTerm{}, fmt.Errorf("matchFields[%d]: %s needs exactly one value, got %d", j, f.Operator, len(f.Values))
		}
		out.names = append(out.names, nameRequirement{in: f.Operator == corev1.NodeSelectorOpIn, name: f.Values[0]})
	}
	return out, nil
}

// labelOperators maps node selector operators to label selector operators.
// Gt and Lt compare the label value as an integer; a missing or non-integer
// label does not match, as in the scheduler.
var labelOperators = map[corev1.NodeSelectorOperator]selection.Operator{
	corev1.NodeSelectorOpIn:           selection.In,
	corev1.NodeSelectorOpNotIn:        selection.NotIn,
	corev1.NodeSelectorOpExists:       selection.Exists,
	corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
	corev1.NodeSelectorOpGt:           selection.GreaterThan,
	corev1.NodeSelectorOpLt:           selection.LessThan,
}

// Match reports whether the node matches and, if it does, the specificity of
// the match: the number of requirements of the largest matching term, zero
// for a nil selector.
func (s *NodeSelector) Match(name string, nodeLabels map[string]string) (matched bool, specificity int) {
	if s.matchAll {
		return true, 0
	}
	set := labels.Set(nodeLabels)
	best := -1
	for i := range s.terms {
		t := &s.terms[i]
		if t.size > best && t.matches(name, set) {
			best = t.size
		}
	}
	return best >= 0, max(best, 0)
}

func (t *nodeSelectorTerm) matches(name string, set labels.Set) bool {
	if t.labels != nil && !t.labels.Matches(set) {
		return false
	}
	return !slices.ContainsFunc(t.names, func(r nameRequirement) bool { return (r.name == name) != r.in })
}
