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

package lifecycle

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	lifecyclecore "podnetwork.io/operator/internal/lifecycle"
)

// writeStatus applies the lifecycle's part of the PodNetwork status in one
// server-side apply, and only when it changed. The fields NodeIPAM owns
// (v1alpha1.OwnedStatus) are left out, so the two writers never overwrite
// each other.
func (r *Reconciler) writeStatus(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork, out *lifecyclecore.Output) error {
	desired := pn.Status.DeepCopy()
	out.ApplyTo(desired)
	want := owned(desired)
	if equality.Semantic.DeepEqual(owned(&pn.Status), want) {
		return nil
	}
	err := r.apply(ctx, pn.Name, want)
	if apierrors.IsInvalid(err) {
		// A purged range whose usage NodeIPAM still owns would survive the
		// apply as an entry without cidr or phase, which the schema refuses.
		// NodeIPAM drops usage before it acknowledges Released, so this only
		// happens when NodeIPAM stopped running meanwhile: take the purged
		// entries over whole (usage included), then drop them.
		if takeErr := r.apply(ctx, pn.Name, withPurgedEntries(want, &pn.Status)); takeErr != nil {
			return errors.Join(err, takeErr)
		}
		err = r.apply(ctx, pn.Name, want)
	}
	return err
}

// apply server-side applies status under the lifecycle's field manager.
func (r *Reconciler) apply(ctx context.Context, name string, status *podnetworkv1alpha1.PodNetworkStatus) error {
	u, err := podnetworkv1alpha1.PodNetworkStatusApply(name, status)
	if err != nil {
		return err
	}
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying PodNetwork status: %w", err)
	}
	return nil
}

// withPurgedEntries returns want plus, whole, every range entry of current
// that want drops.
func withPurgedEntries(want, current *podnetworkv1alpha1.PodNetworkStatus) *podnetworkv1alpha1.PodNetworkStatus {
	out := want.DeepCopy()
	kept := make(map[string]bool, len(want.Ranges))
	for _, rs := range want.Ranges {
		kept[rs.Name] = true
	}
	for _, rs := range current.Ranges {
		if !kept[rs.Name] {
			out.Ranges = append(out.Ranges, *rs.DeepCopy())
		}
	}
	return out
}

// owned returns the status fields the lifecycle controller owns.
func owned(s *podnetworkv1alpha1.PodNetworkStatus) *podnetworkv1alpha1.PodNetworkStatus {
	out := podnetworkv1alpha1.OwnedStatus(podnetworkv1alpha1.StatusOwnerLifecycle, s)
	return &out
}
