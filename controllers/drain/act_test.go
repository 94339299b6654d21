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
	"context"
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	draincore "podnetwork.io/operator/internal/drain"
	"podnetwork.io/operator/internal/scheme"
)

// tooManyRequests is the Eviction API's answer when a budget allows no
// disruption, with the cause kube-apiserver gives (cause is "" for none).
func tooManyRequests(cause string) error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	if cause != "" {
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: cause}}
	}
	return err
}

func TestEvictionOutcome(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db-0", Labels: map[string]string{"app": "db"}}}
	guard := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "guard"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
	}
	r := &Reconciler{APIReader: fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(guard).Build()}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}, "db", errors.New("pdb disruptions allowed is negative"))
	forbidden.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget db does not allow evicting pods currently: pdb disruptions allowed is negative"}}
	tests := []struct {
		name string
		err  error
		want draincore.Eviction
	}{
		{name: "accepted", want: draincore.Eviction{Outcome: draincore.Evicted}},
		{name: "budget named in the answer", err: tooManyRequests("The disruption budget db needs 2 healthy pods and has 2 currently"),
			want: draincore.Eviction{Outcome: draincore.Blocked, PDB: "shop/db"}},
		{name: "budget not named: the one that selects the pod", err: tooManyRequests(""), want: draincore.Eviction{Outcome: draincore.Blocked, PDB: "shop/guard"}},
		{name: "negative budget", err: forbidden, want: draincore.Eviction{Outcome: draincore.Blocked, PDB: "shop/db"}},
		{name: "gone", err: apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "db-0"), want: draincore.Eviction{Outcome: draincore.Gone}},
		{name: "another pod of that name", err: apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "db-0", errors.New("uid")), want: draincore.Eviction{Outcome: draincore.Gone}},
		{name: "several budgets", err: apierrors.NewInternalError(errors.New("this pod has more than one PodDisruptionBudget")),
			want: draincore.Eviction{Outcome: draincore.Failed, Message: "Internal error occurred: this pod has more than one PodDisruptionBudget"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(r.evictionOutcome(context.Background(), pod, tt.err)).To(Equal(tt.want))
		})
	}
}

func TestPodNetworkChanged(t *testing.T) {
	g := NewWithT(t)
	pn := &podnetworkv1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: "default", Generation: 1},
		Status: podnetworkv1alpha1.PodNetworkStatus{Ranges: []podnetworkv1alpha1.RangeStatus{{Name: "a", CIDR: "10.0.0.0/16", Phase: podnetworkv1alpha1.RangePhaseActive}}}}
	changed := func(edit func(*podnetworkv1alpha1.PodNetwork)) bool {
		n := pn.DeepCopy()
		edit(n)
		return podNetworkChanged(event.UpdateEvent{ObjectOld: pn, ObjectNew: n})
	}
	g.Expect(changed(func(n *podnetworkv1alpha1.PodNetwork) {
		n.Status.DrainAssist = &podnetworkv1alpha1.DrainAssistStatus{Message: "its own write"}
	})).To(BeFalse(), "its own status write does not wake it")
	g.Expect(changed(func(n *podnetworkv1alpha1.PodNetwork) {
		n.Status.Ranges[0].Usage = podnetworkv1alpha1.NewRangeUsage(1, 1, 0, 0)
	})).To(BeFalse())
	g.Expect(changed(func(n *podnetworkv1alpha1.PodNetwork) { n.Generation = 2 })).To(BeTrue())
	g.Expect(changed(func(n *podnetworkv1alpha1.PodNetwork) {
		n.Status.Ranges[0].Phase = podnetworkv1alpha1.RangePhaseDraining
	})).To(BeTrue())
	g.Expect(changed(func(n *podnetworkv1alpha1.PodNetwork) { n.DeletionTimestamp = &metav1.Time{} })).To(BeTrue())
}
