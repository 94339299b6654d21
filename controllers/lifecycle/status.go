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
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	lifecyclecore "podnetwork.io/operator/internal/lifecycle"
	"podnetwork.io/operator/internal/statusedit"
)

// writeStatus applies the lifecycle's part of the PodNetwork status in one
// server-side apply, and only when it changed. The fields NodeIPAM owns
// (v1alpha1.OwnedStatus) are left out, so the two writers never overwrite
// each other.
func (r *Reconciler) writeStatus(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork, out *lifecyclecore.Output) error {
	want := r.desired(pn, out)
	if equality.Semantic.DeepEqual(owned(&pn.Status), want) {
		return nil
	}
	err := r.apply(ctx, pn.Name, want)
	if apierrors.IsInvalid(err) {
		// A purged range whose fields another manager still owns (NodeIPAM's
		// usage, or a field another client set) would survive the apply as
		// an entry without cidr or phase, which the schema refuses. NodeIPAM
		// drops usage before it acknowledges Released, so this only happens
		// when NodeIPAM stopped running meanwhile, or after a hand edit:
		// take those fields over, then drop the entries.
		moved, takeErr := r.takeOver(ctx, pn.Name, purged(want, &pn.Status))
		if takeErr != nil || !moved {
			return errors.Join(err, takeErr)
		}
		err = r.apply(ctx, pn.Name, want)
	}
	return err
}

// desired is the lifecycle's part of the status out computes.
func (r *Reconciler) desired(pn *podnetworkv1alpha1.PodNetwork, out *lifecyclecore.Output) *podnetworkv1alpha1.PodNetworkStatus {
	desired := pn.Status.DeepCopy()
	out.ApplyTo(desired)
	return owned(desired)
}

// takeBack hands the status fields other clients set back to the operator's
// field managers (statusedit.Takeover) once Compute has dealt with them,
// then applies the lifecycle's status once more, unconditionally, so the
// fields it took and does not write (a condition it keeps aside, usage
// while NodeIPAM does not run) are dropped.
func (r *Reconciler) takeBack(ctx context.Context, name string, out *lifecyclecore.Output) error {
	moved, err := r.takeOver(ctx, name, nil)
	if err != nil || !moved {
		return err
	}
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := r.reader().Get(ctx, client.ObjectKey{Name: name}, pn); err != nil {
		return fmt.Errorf("reading PodNetwork %s: %w", name, err)
	}
	return r.apply(ctx, name, r.desired(pn, out))
}

// takeOver rewrites the managedFields of PodNetwork name, read from the API
// server, with statusedit.Takeover, and reports whether anything moved. The
// patch replaces the resourceVersion too, so it fails with a conflict if the
// object changed since it was read; the next reconcile tries again.
func (r *Reconciler) takeOver(ctx context.Context, name string, purgedEntries []string) (bool, error) {
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := r.reader().Get(ctx, client.ObjectKey{Name: name}, pn); err != nil {
		return false, fmt.Errorf("reading PodNetwork %s: %w", name, err)
	}
	entries, changed, err := statusedit.Takeover(pn.ManagedFields, metav1.NewTime(r.clock().Now()), purgedEntries)
	if err != nil || !changed {
		return false, err
	}
	patch, err := json.Marshal([]map[string]any{
		{"op": "replace", "path": "/metadata/managedFields", "value": entries},
		{"op": "replace", "path": "/metadata/resourceVersion", "value": pn.ResourceVersion},
	})
	if err != nil {
		return false, fmt.Errorf("encoding the managedFields patch: %w", err)
	}
	if err := r.Client.Patch(ctx, pn, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return false, fmt.Errorf("taking back the PodNetwork status fields other clients set: %w", err)
	}
	return true, nil
}

// reader is Reader, or Client when none was given (its cache may be behind:
// a stale read makes the take-over patch conflict, and the next reconcile
// tries again).
func (r *Reconciler) reader() client.Reader {
	if r.Reader == nil {
		return r.Client
	}
	return r.Reader
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

// purged returns the names of the range entries of current that want drops.
func purged(want, current *podnetworkv1alpha1.PodNetworkStatus) []string {
	kept := make(map[string]bool, len(want.Ranges))
	for _, rs := range want.Ranges {
		kept[rs.Name] = true
	}
	var out []string
	for _, rs := range current.Ranges {
		if !kept[rs.Name] {
			out = append(out, rs.Name)
		}
	}
	return out
}

// owned returns the status fields the lifecycle controller owns.
func owned(s *podnetworkv1alpha1.PodNetworkStatus) *podnetworkv1alpha1.PodNetworkStatus {
	out := podnetworkv1alpha1.OwnedStatus(podnetworkv1alpha1.StatusOwnerLifecycle, s)
	return &out
}
