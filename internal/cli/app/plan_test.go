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
	"net/http"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/scheme"
)

var podNetworks = schema.GroupResource{Group: "podnetwork.io", Resource: "podnetworks"}

// rbacDenial is a 403 as the API server's authorization filter writes it
// (k8s.io/apiserver's responsewriters.ForbiddenStatusError).
func rbacDenial(verb string, gr schema.GroupResource, name string) error {
	return apierrors.NewForbidden(gr, name, errors.New(`User "alice" cannot `+verb+` resource "`+gr.Resource+`" in API group "`+gr.Group+`" at the cluster scope`))
}

// TestRejection tells the change's refusals (exit code 1, outcome Rejected)
// from the user's missing permission (exit code 3) and other errors, by the
// status the API server sends for each.
func TestRejection(t *testing.T) {
	webhook := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: `admission webhook "ranges.example.com" denied the request: range b is reserved`}}
	// A webhook may send any code and reason: 400 with none here.
	webhookBadRequest := &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusBadRequest,
		Message: `admission webhook "ranges.example.com" denied the request without explanation`}}
	// A ValidatingAdmissionPolicy's denial: admission.NewForbidden with the
	// policy's reason, Invalid by default, and its message as a cause.
	const vapMessage = `ValidatingAdmissionPolicy 'no-reserved' with binding 'no-reserved' denied request: range b is reserved`
	vap := apierrors.NewForbidden(podNetworks, "default", errors.New(vapMessage))
	vap.ErrStatus.Reason, vap.ErrStatus.Code = metav1.StatusReasonInvalid, http.StatusUnprocessableEntity
	vap.ErrStatus.Details.Causes = append(vap.ErrStatus.Details.Causes, metav1.StatusCause{Message: vapMessage})
	// Another admission plugin's 403.
	quota := apierrors.NewForbidden(podNetworks, "default", errors.New("exceeded quota: q"))
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "podnetwork.io", Kind: "PodNetwork"}, "default", field.ErrorList{
		field.Invalid(field.NewPath("spec", "ranges").Index(1).Child("cidr"), "10.245.1.0/16", "must be in canonical form")})
	for _, tt := range []struct {
		name   string
		err    error
		want   *cli.Rejection
		denial bool
	}{
		{"RBAC", rbacDenial("update", podNetworks, "default"), nil, true},
		{"webhook", webhook, &cli.Rejection{By: cli.RejectedByAdmission, Reason: "Forbidden", Message: webhook.ErrStatus.Message}, false},
		{"webhook 400", webhookBadRequest, &cli.Rejection{By: cli.RejectedByAdmission, Message: webhookBadRequest.ErrStatus.Message}, false},
		{"policy", vap, &cli.Rejection{By: cli.RejectedByAdmission, Reason: "Invalid", Message: vap.ErrStatus.Message, Causes: []string{vapMessage}}, false},
		{"quota", quota, &cli.Rejection{By: cli.RejectedByAdmission, Reason: "Forbidden", Message: quota.ErrStatus.Message}, false},
		{"CEL", invalid, &cli.Rejection{By: cli.RejectedByValidation, Reason: "Invalid", Message: invalid.ErrStatus.Message,
			Causes: []string{`spec.ranges[1].cidr: Invalid value: "10.245.1.0/16": must be in canonical form`}}, false},
		{"conflict", apierrors.NewConflict(podNetworks, "default", errors.New("the object has been modified")), nil, false},
		{"unavailable", apierrors.NewServiceUnavailable("etcd"), nil, false},
		{"no API error", errors.New("connection refused"), nil, false},
	} {
		got := rejection(tt.err)
		if (got == nil) != (tt.want == nil) || got != nil && (got.By != tt.want.By || got.Reason != tt.want.Reason || got.Message != tt.want.Message ||
			strings.Join(got.Causes, "|") != strings.Join(tt.want.Causes, "|")) {
			t.Errorf("%s: rejection %+v, want %+v", tt.name, got, tt.want)
		}
		if isAuthorizationDenial(tt.err) != tt.denial {
			t.Errorf("%s: isAuthorizationDenial = %v", tt.name, !tt.denial)
		}
	}
	hint := apiHint(rbacDenial("update", podNetworks, "default"))
	if !strings.Contains(hint, `user "alice" may not update podnetworks.podnetwork.io: `+"`kubectl auth can-i update podnetworks.podnetwork.io`") ||
		!strings.Contains(hint, "docs/kubectl-plugin.md#permissions") {
		t.Errorf("hint %q", hint)
	}
	if hint := apiHint(rbacDenial("list", schema.GroupResource{Resource: "nodes"}, "")); !strings.Contains(hint, "may not list nodes: `kubectl auth can-i list nodes`") {
		t.Errorf("hint %q", hint)
	}
}

// planCluster is a PodNetwork with range a, read by plan.
func planCluster(t *testing.T, c client.Client) *cli.Cluster {
	t.Helper()
	cluster, err := Read(context.Background(), c, nodeipam.ConsumerName, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cluster
}

func addRanges(adds ...string) func(*v1alpha1.PodNetwork) (v1alpha1.PodNetworkSpec, error) {
	return func(pn *v1alpha1.PodNetwork) (v1alpha1.PodNetworkSpec, error) { return proposedSpec(pn, adds, nil) }
}

func fastBackoff(t *testing.T) {
	saved := planBackoff
	planBackoff = wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: PlanAttempts}
	t.Cleanup(func() { planBackoff = saved })
}

// TestPlanChangeRetriesOnConflict: when the PodNetwork moves on between
// plan's read and its dry-run, plan reads it again, proposes the change on
// what it read and dry-runs again, a bounded number of times.
func TestPlanChangeRetriesOnConflict(t *testing.T) {
	fastBackoff(t)
	pn := &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
		Spec: v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}}}}
	for _, tt := range []struct {
		conflicts int
		wantErr   string
	}{{0, ""}, {2, ""}, {PlanAttempts - 1, ""}, {PlanAttempts, "the PodNetwork changed during each of 5 dry-runs of the change"}} {
		base := fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(pn.DeepCopy()).Build()
		var dryRuns []string
		c := interceptor.NewClient(base, interceptor.Funcs{
			Update: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				o := &client.UpdateOptions{}
				o.ApplyOptions(opts)
				if len(o.DryRun) == 0 {
					return cl.Update(ctx, obj, opts...)
				}
				var names []string
				for _, r := range obj.(*v1alpha1.PodNetwork).Spec.Ranges {
					names = append(names, r.Name)
				}
				dryRuns = append(dryRuns, obj.GetResourceVersion()+":"+strings.Join(names, ","))
				if len(dryRuns) <= tt.conflicts {
					// The operator wrote meanwhile, and someone added range x.
					cur := &v1alpha1.PodNetwork{}
					if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
						return err
					}
					if len(dryRuns) == 1 {
						cur.Spec.Ranges = append(cur.Spec.Ranges, v1alpha1.PodCIDRRange{Name: "x", CIDR: "10.250.0.0/16"})
					}
					if err := cl.Update(ctx, cur); err != nil {
						return err
					}
					return apierrors.NewConflict(podNetworks, "default", errors.New("the object has been modified; please apply your changes to the latest version and try again"))
				}
				return nil
			},
		})
		cluster := planCluster(t, c)
		r, err := PlanChange(context.Background(), c, cluster, addRanges("b=10.245.0.0/16"), time.Now)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !apierrors.IsConflict(err) || len(dryRuns) != PlanAttempts {
				t.Errorf("%d conflicts: error %v after %d dry-runs", tt.conflicts, err, len(dryRuns))
			}
			continue
		case err != nil:
			t.Fatalf("%d conflicts: %v", tt.conflicts, err)
		}
		if len(dryRuns) != tt.conflicts+1 || r.Outcome != cli.OutcomeProceeds {
			t.Errorf("%d conflicts: %d dry-runs (%q), outcome %s", tt.conflicts, len(dryRuns), dryRuns, r.Outcome)
		}
		// Each dry-run carried the resourceVersion read just before, and the
		// change was proposed again on what was read.
		for i, d := range dryRuns {
			rv, ranges, _ := strings.Cut(d, ":")
			if i > 0 && rv == strings.Split(dryRuns[i-1], ":")[0] {
				t.Errorf("%d conflicts: dry-run %d carried the stale resourceVersion %s", tt.conflicts, i+1, rv)
			}
			if want := map[bool]string{true: "a,b", false: "a,x,b"}[i == 0]; ranges != want {
				t.Errorf("%d conflicts: dry-run %d proposed ranges %s, want %s", tt.conflicts, i+1, ranges, want)
			}
		}
		if tt.conflicts > 0 && !strings.Contains(strings.Join(r.Changes, "\n"), "add b") || strings.Contains(strings.Join(r.Changes, "\n"), "add x") {
			t.Errorf("%d conflicts: changes %q", tt.conflicts, r.Changes)
		}
	}
}

// TestPlanChangeCreateRace: a PodNetwork created between plan's read and its
// dry-run create is read, and the change dry-run as an update of it.
func TestPlanChangeCreateRace(t *testing.T) {
	fastBackoff(t)
	base := fake.NewClientBuilder().WithScheme(scheme.Scheme()).Build()
	var calls []string
	c := interceptor.NewClient(base, interceptor.Funcs{
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			calls = append(calls, "create")
			pn := &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
				Spec: v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}}}}
			if err := cl.Create(ctx, pn); err != nil {
				return err
			}
			return apierrors.NewAlreadyExists(podNetworks, "default")
		},
		Update: func(_ context.Context, _ client.WithWatch, obj client.Object, _ ...client.UpdateOption) error {
			calls = append(calls, "update "+obj.GetResourceVersion())
			return nil
		},
	})
	cluster := planCluster(t, c)
	r, err := PlanChange(context.Background(), c, cluster, addRanges("b=10.245.0.0/16"), time.Now)
	if err != nil || strings.Join(calls, ",") != "create,update 1" || r.Outcome != cli.OutcomeProceeds || cluster.PodNetwork == nil {
		t.Errorf("calls %q, outcome %s, error %v", calls, r.Outcome, err)
	}
}

// TestPlanChangeOutcomes: a refusal is a Rejected report, a missing
// permission an error with its hint.
func TestPlanChangeOutcomes(t *testing.T) {
	pn := &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
		Spec: v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}}}}
	for _, tt := range []struct {
		err     error
		outcome cli.PlanOutcome
		wantErr bool
	}{
		{&apierrors.StatusError{ErrStatus: metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: `admission webhook "w" denied the request: no`}}, cli.OutcomeRejected, false},
		{rbacDenial("update", podNetworks, "default"), "", true},
	} {
		base := fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(pn.DeepCopy()).Build()
		c := interceptor.NewClient(base, interceptor.Funcs{
			Update: func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error { return tt.err },
		})
		r, err := PlanChange(context.Background(), c, planCluster(t, c), addRanges("b=10.245.0.0/16"), time.Now)
		if (err != nil) != tt.wantErr || r.Outcome != tt.outcome {
			t.Errorf("%v: outcome %q, error %v", tt.err, r.Outcome, err)
		}
	}
	// A --remove of a range that is not there is the user's mistake.
	base := fake.NewClientBuilder().WithScheme(scheme.Scheme()).WithObjects(pn.DeepCopy()).Build()
	_, err := PlanChange(context.Background(), base, planCluster(t, base), func(pn *v1alpha1.PodNetwork) (v1alpha1.PodNetworkSpec, error) {
		return proposedSpec(pn, nil, []string{"zzz"})
	}, time.Now)
	var usage usageError
	if !errors.As(err, &usage) {
		t.Errorf("--remove zzz: %v, want a usage error", err)
	}
}
