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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
)

// podNodeNameField lists the pods of one node, as drain assist does: the
// plugin keeps no pod list of the whole cluster either.
const podNodeNameField = "spec.nodeName"

// AddDrainSchedule adds to r, a plan of spec for the cluster c, the drain
// schedule of the nodes holding blocks in the ranges it leaves Draining
// (cli.PlanDrain), reading their pods and the PodDisruptionBudgets. A
// refused read is no failure: the schedule says what it could not check.
func AddDrainSchedule(ctx context.Context, cl client.Reader, c *cli.Cluster, r *cli.PlanReport, spec v1alpha1.PodNetworkSpec) error {
	if r.Outcome == cli.OutcomeRejected {
		return nil
	}
	holders := cli.DrainHolders(c, r, spec)
	if len(holders) == 0 {
		return nil
	}
	reads, err := ReadDrain(ctx, cl, holders)
	if err != nil {
		return err
	}
	r.DrainSchedule = cli.PlanDrain(c, r, spec, reads)
	return nil
}

// ReadDrain reads the pods of each node (field selector spec.nodeName, in
// pages) and every PodDisruptionBudget. A denial is recorded in
// Unreadable, and the pods of the other nodes are not asked for then;
// other errors are returned.
func ReadDrain(ctx context.Context, cl client.Reader, nodes []string) (cli.DrainReads, error) {
	out := cli.DrainReads{Pods: map[string][]corev1.Pod{}, PodsRead: true, PDBsRead: true}
	for _, name := range nodes {
		pods, err := listAll(ctx, podsPage(cl), PageSize, client.MatchingFields{podNodeNameField: name})
		if isAuthorizationDenial(err) {
			out.PodsRead, out.Pods = false, nil
			out.Unreadable = append(out.Unreadable, cli.Unreadable{Resource: "pods", Message: statusMessage(err)})
			break
		}
		if err != nil {
			return out, fmt.Errorf("listing the pods of node %s: %w", name, err)
		}
		out.Pods[name] = pods
	}
	var err error
	out.PDBs, err = listAll(ctx, pdbsPage(cl), PageSize)
	switch {
	case isAuthorizationDenial(err):
		out.PDBsRead = false
		out.Unreadable = append(out.Unreadable, cli.Unreadable{Resource: cli.ResourcePDBs, Message: statusMessage(err)})
	case err != nil:
		return out, fmt.Errorf("listing PodDisruptionBudgets: %w", err)
	}
	return out, nil
}

func pdbsPage(c client.Reader) page[policyv1.PodDisruptionBudget] {
	return func(ctx context.Context, opts ...client.ListOption) ([]policyv1.PodDisruptionBudget, string, error) {
		var l policyv1.PodDisruptionBudgetList
		err := c.List(ctx, &l, opts...)
		return l.Items, l.Continue, err
	}
}
