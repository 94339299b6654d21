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

	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/internal/cli"
)

// AddNetworkPolicies adds to r the NetworkPolicies whose ipBlock rules
// leave out a range the change adds (cli.PlanNetworkPolicies), listing
// them in pages. A user who may not list them gets a plan that says so,
// not a failure: the prediction does not depend on them. Nothing is read
// when the change adds no range or the API server refused it.
func AddNetworkPolicies(ctx context.Context, cl client.Reader, r *cli.PlanReport) error {
	if r.Outcome == cli.OutcomeRejected || len(cli.PlanNewRanges(r)) == 0 {
		return nil
	}
	policies, err := listAll(ctx, networkPoliciesPage(cl), PageSize)
	switch {
	case isAuthorizationDenial(err):
		cli.PlanNetworkPolicies(r, nil, &cli.Unreadable{Resource: cli.ResourceNetworkPolicies, Message: statusMessage(err)})
	case err != nil:
		return fmt.Errorf("listing NetworkPolicies: %w", err)
	default:
		cli.PlanNetworkPolicies(r, policies, nil)
	}
	return nil
}

func networkPoliciesPage(c client.Reader) page[networkingv1.NetworkPolicy] {
	return func(ctx context.Context, opts ...client.ListOption) ([]networkingv1.NetworkPolicy, string, error) {
		var l networkingv1.NetworkPolicyList
		err := c.List(ctx, &l, opts...)
		return l.Items, l.Continue, err
	}
}
