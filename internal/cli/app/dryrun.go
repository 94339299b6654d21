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
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// DryRun sends the change of PodNetwork "default" to spec to the API server
// as a server-side dry-run, so the CRD's schema and CEL rules and every
// validating admission policy judge it without anything being written. It
// returns the reasons of a refusal, or an error when the API server could
// not judge.
func DryRun(ctx context.Context, c client.Client, current *v1alpha1.PodNetwork, spec v1alpha1.PodNetworkSpec) ([]string, error) {
	var err error
	if current == nil {
		pn := &v1alpha1.PodNetwork{Spec: spec}
		pn.Name = v1alpha1.PodNetworkName
		err = c.Create(ctx, pn, client.DryRunAll)
	} else {
		pn := current.DeepCopy()
		pn.Spec = spec
		err = c.Update(ctx, pn, client.DryRunAll)
	}
	if err == nil {
		return nil, nil
	}
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) || !errors.As(err, &status) {
		return nil, fmt.Errorf("dry-run of the change: %w", err)
	}
	var reasons []string
	if d := status.Status().Details; d != nil {
		for _, cause := range d.Causes {
			if cause.Field != "" {
				reasons = append(reasons, cause.Field+": "+cause.Message)
			} else {
				reasons = append(reasons, cause.Message)
			}
		}
	}
	if len(reasons) == 0 {
		reasons = append(reasons, status.Status().Message)
	}
	return reasons, nil
}
