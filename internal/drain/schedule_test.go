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

package drain

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// batchNames returns the names of every batch's nodes.
func batchNames(s Schedule) [][]string {
	var out [][]string
	for _, b := range s.Batches {
		var names []string
		for _, np := range b.Nodes {
			names = append(names, np.Name)
		}
		out = append(out, names)
	}
	return out
}

func planNames(nps []NodePlan) []string {
	var out []string
	for _, np := range nps {
		out = append(out, np.Name)
	}
	return out
}

// TestScheduleBatches: the schedule is Decide's order, maxUnavailable at a
// time, a percentage resolved again against the holders left; nodes in
// progress take their slots first; skipped nodes are never started.
func TestScheduleBatches(t *testing.T) {
	f := newFixture(v1alpha1.DrainAssistOff, v1alpha1.HandoverDelete).maxUnavailable(intstr.FromString("50%")).
		holders(6).
		node("x-started", "10.1.10.0/24", started(t0.Add(-time.Minute))).
		node("x-dnd", "10.1.11.0/24", nodeDoNotDisrupt(v1alpha1.DoNotDisruptAnnotation)).
		node("x-manual", "10.1.12.0/24", notKarpenter).
		node("y-new", "10.2.0.0/24")
	f.in.Nodes[2].Detail.Pods = []Pod{pod("a"), daemonSetPod("ds")}
	s := ScheduleOf(f.in)
	if s.Total != 9 || s.MaxUnavailable != 4 {
		t.Fatalf("total %d, maxUnavailable %d; want 9 and 4", s.Total, s.MaxUnavailable)
	}
	if got := planNames(s.InProgress); !slices.Equal(got, []string{"x-started"}) {
		t.Errorf("in progress %v", got)
	}
	// 9 holders, 50%: 4 slots, one taken by x-started. Then 5 left (2
	// slots), 3 left (1 slot), the skipped 2 never leave.
	want := [][]string{{"n-0", "n-1", "n-2"}, {"n-3", "n-4"}, {"n-5"}}
	if got := batchNames(s); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("batches %v, want %v", got, want)
	}
	if got := []int{s.Batches[0].MaxUnavailable, s.Batches[1].MaxUnavailable, s.Batches[2].MaxUnavailable}; !slices.Equal(got, []int{4, 2, 1}) {
		t.Errorf("maxUnavailable per batch %v", got)
	}
	if got := planNames(s.Skipped); !slices.Equal(got, []string{"x-dnd", "x-manual"}) {
		t.Errorf("skipped %v", got)
	}
	if s.Skipped[1].Reason != v1alpha1.DrainReasonNotKarpenterManaged || s.Skipped[0].Reason != v1alpha1.DrainReasonNodeDoNotDisrupt {
		t.Errorf("skip reasons %s, %s", s.Skipped[0].Reason, s.Skipped[1].Reason)
	}
	if n2 := s.Batches[0].Nodes[2]; len(n2.Evict) != 1 || n2.Evict[0].Name != "a" {
		t.Errorf("n-2 evicts %v, want the pod a alone (never the DaemonSet's)", n2.Evict)
	}
	if s.Unscheduled != 0 {
		t.Errorf("unscheduled %d", s.Unscheduled)
	}
	// The input is not changed.
	if len(f.in.Nodes) != 10 || f.in.Spec.Mode != v1alpha1.DrainAssistOff {
		t.Errorf("ScheduleOf changed its input")
	}
	if got := Holders(f.in); len(got) != 9 || got[0] != "n-0" || slices.Contains(got, "y-new") {
		t.Errorf("holders %v", got)
	}
}

// TestScheduleUnread: a holder without Detail cannot be started: counted,
// never scheduled.
func TestScheduleUnread(t *testing.T) {
	f := newFixture(v1alpha1.DrainAssistAuto, v1alpha1.HandoverCondition).holders(2).node("z", "10.1.9.0/24", unread)
	s := ScheduleOf(f.in)
	if got := batchNames(s); !slices.EqualFunc(got, [][]string{{"n-0"}, {"n-1"}}, slices.Equal) || s.Unscheduled != 1 {
		t.Errorf("batches %v, unscheduled %d", got, s.Unscheduled)
	}
}

// TestRefusingBudget: only a budget that selects the pod and allows no
// disruption refuses its eviction.
func TestRefusingBudget(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "web-0", Labels: map[string]string{"app": "web"}}}
	pdb := func(ns, name, app string, allowed int32) policyv1.PodDisruptionBudget {
		return policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:   policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed}}
	}
	for _, tt := range []struct {
		pdbs []policyv1.PodDisruptionBudget
		want string
	}{
		{nil, ""},
		{[]policyv1.PodDisruptionBudget{pdb("app", "web", "web", 1)}, ""},
		{[]policyv1.PodDisruptionBudget{pdb("app", "web", "web", 0)}, "web"},
		{[]policyv1.PodDisruptionBudget{pdb("app", "all", "web", 2), pdb("app", "web", "web", 0)}, "web"},
		{[]policyv1.PodDisruptionBudget{pdb("other", "web", "web", 0), pdb("app", "db", "db", 0)}, ""},
	} {
		if got := RefusingBudget(pod, tt.pdbs); got != tt.want {
			t.Errorf("budgets %v: %q, want %q", tt.pdbs, got, tt.want)
		}
	}
}

// TestScheduleReleased: a started node that asks not to be disrupted is
// let go of, frees its slot and is reported skipped, not in progress.
func TestScheduleReleased(t *testing.T) {
	f := newFixture(v1alpha1.DrainAssistAuto, v1alpha1.HandoverDelete).holders(2).
		node("a-dnd", "10.1.9.0/24", started(t0.Add(-time.Minute)), nodeDoNotDisrupt(v1alpha1.KarpenterDoNotDisruptAnnotation))
	s := ScheduleOf(f.in)
	if len(s.InProgress) != 0 || len(s.Skipped) != 1 || s.Skipped[0].Name != "a-dnd" || s.Skipped[0].Reason != v1alpha1.DrainReasonNodeDoNotDisrupt {
		t.Fatalf("in progress %v, skipped %v", planNames(s.InProgress), s.Skipped)
	}
	if got := batchNames(s); !slices.EqualFunc(got, [][]string{{"n-0"}, {"n-1"}}, slices.Equal) {
		t.Errorf("batches %v", got)
	}
}
