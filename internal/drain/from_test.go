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
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/slimnode"
)

func TestFullNodeFrom(t *testing.T) {
	g := NewWithT(t)
	deleted := metav1.NewTime(t0.Add(5 * 60e9))
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "a",
			Labels: map[string]string{v1alpha1.DrainAssistNodeLabel: "true"},
			Annotations: map[string]string{
				v1alpha1.DrainAssistStartedAnnotation:    "2026-05-01T12:00:00Z",
				v1alpha1.DrainAssistCordonedAnnotation:   "true",
				v1alpha1.KarpenterDoNotDisruptAnnotation: "true",
			},
			Finalizers:        []string{v1alpha1.KarpenterTerminationFinalizer},
			DeletionTimestamp: &deleted,
		},
		Spec: corev1.NodeSpec{PodCIDRs: []string{"10.1.0.0/24"}, Unschedulable: true},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: v1alpha1.PodCIDRReplacementNeededCondition, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)},
		}},
	}
	got := FullNodeFrom(n, []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "web"}}}, true)
	g.Expect(got).To(Equal(Node{Name: "a", PodCIDRs: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/24")}, Marked: true, Deleting: true,
		Labels: n.Labels, Detail: &Detail{StartedAt: t0, CordonedByUs: true, Unschedulable: true, DoNotDisrupt: v1alpha1.KarpenterDoNotDisruptAnnotation,
			KarpenterManaged: true, ReplacementRequested: true, HandedOverAt: deleted.Time, PodsRead: true, Pods: []Pod{pod("web")}}}))

	plain := FullNodeFrom(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "b",
		Labels:      map[string]string{v1alpha1.KarpenterNodePoolLabel: "default"},
		Annotations: map[string]string{v1alpha1.DoNotDisruptAnnotation: "false", v1alpha1.DrainAssistStartedAnnotation: "yesterday"}},
		Spec: corev1.NodeSpec{PodCIDRs: []string{"10.1.0.0/24", "not-a-cidr"}}}, nil, false)
	g.Expect(plain.Detail.KarpenterManaged).To(BeTrue(), "the nodepool label is enough")
	g.Expect(plain.Detail.DoNotDisrupt).To(BeEmpty(), "only \"true\" counts")
	g.Expect(plain.Detail.StartedAt.IsZero()).To(BeTrue(), "an unreadable start time means no timeout")
	g.Expect(plain.Unreadable).To(BeTrue())
	g.Expect(plain.Marked).To(BeFalse())

	cached := NodeFrom(slimnode.From(n))
	g.Expect(cached).To(Equal(Node{Name: "a", PodCIDRs: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/24")}, Marked: true, Deleting: true,
		Labels: n.Labels}))
}

func TestPodFrom(t *testing.T) {
	g := NewWithT(t)
	owned := func(apiVersion, kind string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: "x", UID: "u", Controller: ptr.To(true)}}
	}
	now := metav1.NewTime(t0)
	tests := []struct {
		name string
		pod  corev1.Pod
		want Pod
	}{
		{name: "plain", pod: corev1.Pod{}, want: Pod{}},
		{name: "DaemonSet", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("apps/v1", "DaemonSet")}}, want: Pod{DaemonSet: true}},
		{name: "a custom DaemonSet kind is not one", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("example.com/v1", "DaemonSet")}}, want: Pod{}},
		{name: "ReplicaSet", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("apps/v1", "ReplicaSet")}}, want: Pod{}},
		{name: "mirror", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}}, want: Pod{Mirror: true}},
		{name: "do not disrupt", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{v1alpha1.DoNotDisruptAnnotation: "true"}}}, want: Pod{DoNotDisrupt: v1alpha1.DoNotDisruptAnnotation}},
		{name: "terminating", pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &now}}, want: Pod{Terminating: true}},
		{name: "succeeded", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, want: Pod{Finished: true}},
		{name: "failed", pod: corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed}}, want: Pod{Finished: true}},
	}
	for _, tt := range tests {
		g.Expect(PodFrom(&tt.pod)).To(Equal(tt.want), tt.name)
	}
}

func TestBudgets(t *testing.T) {
	g := NewWithT(t)
	cause := func(msg string) []metav1.StatusCause {
		return []metav1.StatusCause{{Type: "Other", Message: "The disruption budget nope x"}, {Type: policyv1.DisruptionBudgetCause, Message: msg}}
	}
	g.Expect(BudgetFromCauses(cause("The disruption budget db needs 2 healthy pods and has 2 currently"))).To(Equal("db"))
	g.Expect(BudgetFromCauses(cause("The disruption budget db is still being processed by the server."))).To(Equal("db"))
	g.Expect(BudgetFromCauses(cause("something else"))).To(BeEmpty())
	g.Expect(HasBudgetCause(cause("something else"))).To(BeTrue())
	g.Expect(HasBudgetCause(nil)).To(BeFalse())

	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "db-0", Labels: map[string]string{"app": "db"}}}
	pdb := func(ns, name string, sel *metav1.LabelSelector, allowed int32) policyv1.PodDisruptionBudget {
		return policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel}, Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed}}
	}
	db := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	g.Expect(BlockingBudget(p, []policyv1.PodDisruptionBudget{
		pdb("other", "db", db, 0), pdb("app", "web", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, 0),
		pdb("app", "loose", db, 1), pdb("app", "none", nil, 0), pdb("app", "strict", db, 0),
	})).To(Equal("strict"))
	g.Expect(BlockingBudget(p, []policyv1.PodDisruptionBudget{pdb("app", "loose", db, 1)})).To(Equal("loose"))
	g.Expect(BlockingBudget(p, []policyv1.PodDisruptionBudget{pdb("app", "all", &metav1.LabelSelector{}, 0)})).To(Equal("all"), "an empty selector selects every pod")
	g.Expect(BlockingBudget(p, nil)).To(BeEmpty())
}
