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

package app

import (
	"context"
	"errors"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/scheme"
)

// TestAddNetworkPolicies: plan lists the NetworkPolicies only when the
// change adds a range; a user who may not list them gets a plan that says
// so, not an error; any other error fails.
func TestAddNetworkPolicies(t *testing.T) {
	ctx := context.Background()
	policy := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "allow-pods"},
		Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{
			{IPBlock: &networkingv1.IPBlock{CIDR: "10.244.0.0/16"}}}}}}}
	lists := 0
	withList := func(err error) client.Client {
		base := fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(policy).Build()
		return interceptor.NewClient(base, interceptor.Funcs{List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			lists++
			if err != nil {
				return err
			}
			return cl.List(ctx, list, opts...)
		}})
	}
	adds := func() *cli.PlanReport {
		return &cli.PlanReport{Outcome: cli.OutcomeProceeds, Ranges: []cli.RangePlan{
			{Name: "a", CIDR: "10.244.0.0/16", Now: v1alpha1.RangePhaseActive, AfterApply: v1alpha1.RangePhaseActive, Eventually: v1alpha1.RangePhaseActive},
			{Name: "b", CIDR: "10.245.0.0/16", AfterApply: v1alpha1.RangePhasePending, Eventually: v1alpha1.RangePhaseActive},
		}}
	}

	r := adds()
	if err := AddNetworkPolicies(ctx, withList(nil), r); err != nil {
		t.Fatal(err)
	}
	if np := r.NetworkPolicies; np == nil || np.Checked != 1 || len(np.LeftOut) != 1 || np.LeftOut[0].Name != "allow-pods" ||
		np.LeftOut[0].Rules[0].LeavesOut[0] != "b (10.245.0.0/16)" {
		t.Errorf("listed: %+v", r.NetworkPolicies)
	}

	r = adds()
	denial := rbacDenial("list", schema.GroupResource{Group: "networking.k8s.io", Resource: "networkpolicies"}, "")
	if err := AddNetworkPolicies(ctx, withList(denial), r); err != nil {
		t.Fatalf("a denial failed plan: %v", err)
	}
	if np := r.NetworkPolicies; np == nil || np.Unreadable == nil || np.Unreadable.Resource != cli.ResourceNetworkPolicies || np.Checked != 0 {
		t.Errorf("denied: %+v", r.NetworkPolicies)
	}

	if err := AddNetworkPolicies(ctx, withList(errors.New("connection refused")), adds()); err == nil {
		t.Error("another error was swallowed")
	}

	lists = 0
	removal := adds()
	removal.Ranges = removal.Ranges[:1]
	rejected := adds()
	rejected.Outcome = cli.OutcomeRejected
	for _, r := range []*cli.PlanReport{removal, rejected} {
		if err := AddNetworkPolicies(ctx, withList(nil), r); err != nil || r.NetworkPolicies != nil {
			t.Errorf("nothing to check: %+v, %v", r.NetworkPolicies, err)
		}
	}
	if lists != 0 {
		t.Errorf("%d lists for changes that add no range", lists)
	}
}
