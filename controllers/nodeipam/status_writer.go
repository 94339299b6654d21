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

package nodeipam

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// writeReport applies the PodNetwork status fields NodeIPAM owns
// (ranges[].usage, quarantine, allocationConflicts) when they differ from
// what the PodNetwork shows, at most once per StatusInterval. It returns
// when to look again: at the end of the interval if a write was held back,
// or when the next quarantined block becomes free.
func (r *NetworkReconciler) writeReport(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork) (time.Duration, error) {
	rep, expiry, ok := r.state.Report()
	if !ok {
		return 0, nil
	}
	desired := rep.Status(&pn.Status)
	if equality.Semantic.DeepEqual(podnetworkv1alpha1.OwnedStatus(podnetworkv1alpha1.StatusOwnerNodeIPAM, &pn.Status), desired) {
		return expiry, nil
	}
	// Usage left on a Released range holds up its purge: write it away at
	// once. Anything else waits for the interval.
	if wait := r.StatusInterval - r.Clock.Since(r.lastWrite); wait > 0 && !usageOnReleased(pn) {
		return wait, nil
	}
	err := r.applyReport(ctx, desired)
	if apierrors.IsInvalid(err) {
		// A range NodeIPAM reports usage for was purged between the read and
		// the write (the entry would lack its required fields): read the
		// PodNetwork from the API server and report against it.
		fresh := &podnetworkv1alpha1.PodNetwork{}
		if err := r.Reader.Get(ctx, client.ObjectKeyFromObject(pn), fresh); err != nil {
			return 0, fmt.Errorf("re-reading PodNetwork %s: %w", pn.Name, err)
		}
		err = r.applyReport(ctx, rep.Status(&fresh.Status))
	}
	if err != nil {
		return 0, err
	}
	r.lastWrite = r.Clock.Now()
	return expiry, nil
}

// usageOnReleased reports whether a Released range still shows usage.
func usageOnReleased(pn *podnetworkv1alpha1.PodNetwork) bool {
	return slices.ContainsFunc(pn.Status.Ranges, func(rs podnetworkv1alpha1.RangeStatus) bool {
		return rs.Phase == podnetworkv1alpha1.RangePhaseReleased && !rs.Usage.IsZero()
	})
}

// applyReport server-side applies NodeIPAM's part of the PodNetwork status
// under its own field manager. Range entries carry only their name (the key)
// and usage; the lifecycle owns every other field of them. Leaving a field
// out gives it up, which is how usage disappears from a Released range.
func (r *NetworkReconciler) applyReport(ctx context.Context, status podnetworkv1alpha1.PodNetworkStatus) error {
	u, err := podnetworkv1alpha1.PodNetworkStatusApply(podnetworkv1alpha1.PodNetworkName, &status)
	if err != nil {
		return err
	}
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying NodeIPAM's PodNetwork status: %w", err)
	}
	return nil
}
