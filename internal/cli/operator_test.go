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

package cli_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"podnetwork.io/operator/internal/cli"
)

func operatorDeployment(ns string, desired, ready int32) appsv1.Deployment {
	return appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "podnetwork-operator", Labels: map[string]string{cli.OperatorLabel: cli.OperatorName}},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(desired)},
		Status:     appsv1.DeploymentStatus{Replicas: desired, ReadyReplicas: ready},
	}
}

// lease is the operator's Lease held by holder, acquired acquired ago and
// renewed renewed ago, with a lease of 15 seconds.
func lease(ns, holder string, acquired, renewed time.Duration) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cli.LeaseName},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To[int32](15),
			AcquireTime: ptr.To(metav1.NewMicroTime(now.Add(-acquired))), RenewTime: ptr.To(metav1.NewMicroTime(now.Add(-renewed))),
		},
	}
}

func operatorFindings(r cli.CheckReport) []cli.Finding {
	var out []cli.Finding
	for _, f := range r.Findings {
		if f.Check == cli.CheckOperator {
			out = append(out, f)
		}
	}
	return out
}

func TestOperatorHealth(t *testing.T) {
	const ns = "podnetwork-system"
	for _, tc := range []struct {
		name       string
		op         *cli.Operator
		unreadable []cli.Unreadable
		// status is a line status prints; errors and warnings what check
		// finds of the operator; skipped why it skipped it.
		status           string
		errors, warnings []string
		skipped          string
	}{
		{
			name:   "healthy",
			op:     &cli.Operator{Deployments: []appsv1.Deployment{operatorDeployment(ns, 2, 2)}, Leases: map[string]*coordinationv1.Lease{ns: lease(ns, "op-a_1", 5*time.Minute, 3*time.Second)}},
			status: "Operator: Deployment podnetwork-system/podnetwork-operator 2/2 ready; leader op-a_1 for 5m (renewed 3s ago)\n",
		},
		{
			name:     "scaled down with an expired lease",
			op:       &cli.Operator{Deployments: []appsv1.Deployment{operatorDeployment(ns, 2, 0)}, Leases: map[string]*coordinationv1.Lease{ns: lease(ns, "op-a_1", time.Hour, time.Minute)}},
			status:   "Operator: Deployment podnetwork-system/podnetwork-operator 0/2 ready; leader op-a_1, Lease expired 45s ago: no replica leads\n",
			errors:   []string{"deployment/podnetwork-system/podnetwork-operator: 0/2 replicas ready", "lease/podnetwork-system/podnetwork-operator: the Lease held by op-a_1 expired 45s ago"},
			warnings: nil,
		},
		{
			name:     "one replica short, no lease",
			op:       &cli.Operator{Deployments: []appsv1.Deployment{operatorDeployment(ns, 2, 1)}, Leases: map[string]*coordinationv1.Lease{ns: nil}},
			status:   "Operator: Deployment podnetwork-system/podnetwork-operator 1/2 ready; no Lease podnetwork-operator: no replica has been elected leader\n",
			warnings: []string{"deployment/podnetwork-system/podnetwork-operator: 1/2 replicas ready", "lease/podnetwork-system/podnetwork-operator: there is no leader-election Lease"},
		},
		{
			name:   "no deployment",
			op:     &cli.Operator{Namespace: "ops", Leases: map[string]*coordinationv1.Lease{}},
			status: "Operator: no Deployment labelled app.kubernetes.io/name=podnetwork-operator in namespace ops\n",
			warnings: []string{
				"no Deployment labelled app.kubernetes.io/name=podnetwork-operator in namespace ops: nothing reconciles unless the operator runs elsewhere",
			},
		},
		{
			name:       "lease unreadable",
			op:         &cli.Operator{Deployments: []appsv1.Deployment{operatorDeployment(ns, 1, 1)}, Leases: map[string]*coordinationv1.Lease{}},
			unreadable: []cli.Unreadable{{Resource: cli.ResourceLeases, Namespace: ns, Name: cli.LeaseName, Message: "forbidden"}},
			status:     "Operator: Deployment podnetwork-system/podnetwork-operator 1/1 ready; Lease podnetwork-operator could not be read\n",
			warnings:   []string{"lease/podnetwork-system/podnetwork-operator: the leader-election Lease could not be read"},
		},
		{
			name:       "deployments unreadable",
			op:         &cli.Operator{Leases: map[string]*coordinationv1.Lease{}},
			unreadable: []cli.Unreadable{{Resource: cli.ResourceDeployments, Message: "forbidden"}},
			status:     "Operator: its Deployment could not be read\n",
			skipped:    "deployments could not be read",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cli.Cluster{Operator: tc.op, Unreadable: tc.unreadable}
			s := cli.BuildStatus(c, now)
			var b bytes.Buffer
			if err := cli.WriteStatusText(&b, &s); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.status) {
				t.Errorf("status:\n%s\nwant the line %q", b.String(), tc.status)
			}
			r := cli.Check(c, cli.CheckOptions{Now: now})
			if r.Operator == nil || len(r.Operator.Deployments) != len(tc.op.Deployments) {
				t.Errorf("check's operator field %+v", r.Operator)
			}
			var errs, warns []cli.Finding
			for _, f := range operatorFindings(r) {
				if f.Severity == cli.SeverityError {
					errs = append(errs, f)
				} else {
					warns = append(warns, f)
				}
			}
			match := func(what string, got []cli.Finding, want []string) {
				if len(got) != len(want) {
					t.Errorf("%s: %+v, want %q", what, got, want)
					return
				}
				for i := range want {
					line := got[i].Message
					if got[i].Subject != "" {
						line = got[i].Subject + ": " + line
					}
					if !strings.HasPrefix(line, want[i]) {
						t.Errorf("%s %d: %q, want it to start with %q", what, i, line, want[i])
					}
				}
			}
			match("errors", errs, tc.errors)
			match("warnings", warns, tc.warnings)
			for _, ch := range r.Checks {
				if ch.Name == cli.CheckOperator && ch.Skipped != tc.skipped {
					t.Errorf("skipped %q, want %q", ch.Skipped, tc.skipped)
				}
			}
		})
	}
}

// TestOperatorReportFields pins the machine form of the operator's health:
// whole seconds for every age.
func TestOperatorReportFields(t *testing.T) {
	const ns = "ops"
	c := &cli.Cluster{Operator: &cli.Operator{Deployments: []appsv1.Deployment{operatorDeployment(ns, 2, 0)},
		Leases: map[string]*coordinationv1.Lease{ns: lease(ns, "op-a_1", time.Hour, time.Minute)}}}
	s := cli.BuildStatus(c, now)
	if s.Operator == nil || len(s.Operator.Deployments) != 1 {
		t.Fatalf("operator %+v", s.Operator)
	}
	d := s.Operator.Deployments[0]
	l := d.Lease
	if d.DesiredReplicas != 2 || d.ReadyReplicas != 0 || l == nil || l.Holder != "op-a_1" || !l.Expired ||
		ptr.Deref(l.HeldForSeconds, -1) != 3600 || ptr.Deref(l.RenewedSecondsAgo, -1) != 60 || ptr.Deref(l.ExpiredSeconds, -1) != 45 || l.DurationSeconds != 15 {
		t.Errorf("deployment %+v, lease %+v", d, l)
	}
	// Not read (plan): no field, no check.
	c = &cli.Cluster{}
	if s := cli.BuildStatus(c, now); s.Operator != nil {
		t.Errorf("operator of a cluster read without it: %+v", s.Operator)
	}
	for _, ch := range cli.Check(c, cli.CheckOptions{Now: now}).Checks {
		if ch.Name == cli.CheckOperator {
			t.Errorf("the operator check ran without the operator read")
		}
	}
}
