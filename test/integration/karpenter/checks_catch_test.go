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

package karpenter_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

// The checks of the end-to-end spec pass when nothing goes wrong; these
// tests, on made-up histories, show that each one fails when what it
// guards against happens. They need no control plane.

func budgetObs(rv int64, allowed int32, disrupted ...string) framework.Event {
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: workload}}
	pdb.Status.DisruptionsAllowed = allowed
	if len(disrupted) > 0 {
		pdb.Status.DisruptedPods = map[string]metav1.Time{}
		for _, p := range disrupted {
			pdb.Status.DisruptedPods[p] = metav1.Now()
		}
	}
	return framework.Event{RV: rv, Object: pdb}
}

func podObs(rv int64, name, node string, ready, deleting bool) framework.Event {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: corev1.PodSpec{NodeName: node}}
	p.Status.Phase = corev1.PodRunning
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if deleting {
		p.DeletionTimestamp = ptr.To(metav1.Now())
	}
	return framework.Event{RV: rv, Object: p}
}

func nodeObs(rv int64, name, podCIDR string, labels map[string]string, deleted bool) framework.Event {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if podCIDR != "" {
		n.Spec.PodCIDRs = []string{podCIDR}
	}
	return framework.Event{RV: rv, Object: n, Deleted: deleted}
}

func granted(pod string) eviction {
	return eviction{User: operatorUser, Namespace: "shop", Pod: pod, Code: 201}
}

func TestEvictionsWithoutBudgetCatchesAnEvictionTheBudgetDidNotAllow(t *testing.T) {
	allowed := []framework.Event{budgetObs(10, 1), budgetObs(11, 0, "a")}
	if got := evictionsWithoutBudget(allowed, []eviction{granted("a")}); len(got) != 0 {
		t.Errorf("an eviction the budget allowed was reported: %v", got)
	}
	exhausted := []framework.Event{budgetObs(10, 0), budgetObs(11, 0, "a")}
	if got := evictionsWithoutBudget(exhausted, []eviction{granted("a")}); len(got) != 1 {
		t.Errorf("an eviction granted while the budget allowed 0 was not reported: %v", got)
	}
	// No trace in the budget: legal for a pod that was not Ready, not for
	// one that was.
	unready := []framework.Event{budgetObs(10, 0), podObs(11, "a", "n", false, false), podObs(12, "a", "n", false, true)}
	if got := evictionsWithoutBudget(unready, []eviction{granted("a")}); len(got) != 0 {
		t.Errorf("the eviction of an unready pod was reported: %v", got)
	}
	ready := []framework.Event{budgetObs(10, 0), podObs(11, "a", "n", true, false), podObs(12, "a", "n", true, true)}
	if got := evictionsWithoutBudget(ready, []eviction{granted("a")}); len(got) != 1 {
		t.Errorf("a Ready pod evicted behind its budget's back was not reported: %v", got)
	}
}

func TestEvictionsOutsideCatchesAPodOnANodeOfAnotherRange(t *testing.T) {
	events := []framework.Event{
		nodeObs(1, "old-0", "10.100.0.0/24", nil, false), nodeObs(2, "new-0", "10.101.0.0/24", nil, false),
		podObs(3, "a", "old-0", true, false), podObs(4, "b", "new-0", true, false),
	}
	got := evictionsOutside(events, []eviction{granted("a"), granted("b")}, oldCIDR)
	if len(got) != 1 {
		t.Errorf("want only the eviction of b (on a node of the new range) reported, got %v", got)
	}
}

func TestMostAtOnceCountsOverlappingMarks(t *testing.T) {
	marked := map[string]string{v1alpha1.DrainAssistNodeLabel: "true"}
	events := []framework.Event{
		nodeObs(1, "a", "", marked, false), nodeObs(2, "b", "", marked, false),
		nodeObs(3, "a", "", marked, true), nodeObs(4, "c", "", marked, false), nodeObs(5, "d", "", marked, false),
	}
	if most, when := framework.MostNodesAtOnce(events, framework.StartedByDrainAssist); most != 3 {
		t.Errorf("b, c and d were marked at once; got %d (%v)", most, when)
	}
}

func TestTerminatedByKarpenterNeedsItsFinalizer(t *testing.T) {
	deleting := func(rv int64, finalizers ...string) framework.Event {
		ev := nodeObs(rv, "a", "", nil, false)
		n := ev.Object.(*corev1.Node)
		n.DeletionTimestamp, n.Finalizers = ptr.To(metav1.Now()), finalizers
		return ev
	}
	if !terminatedByKarpenter([]framework.Event{nodeObs(1, "a", "", nil, false), deleting(2, karpenterTermination), nodeObs(3, "a", "", nil, true)}, "a") {
		t.Error("a node Karpenter's finalizer held until it was gone was not recognised")
	}
	if terminatedByKarpenter([]framework.Event{nodeObs(1, "a", "", nil, false), deleting(2), nodeObs(3, "a", "", nil, true)}, "a") {
		t.Error("a node deleted without Karpenter's finalizer was taken for Karpenter's")
	}
}
