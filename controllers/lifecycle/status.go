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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	lifecyclecore "podnetwork.io/operator/internal/lifecycle"
	"podnetwork.io/operator/internal/statusedit"
)

// writeStatus applies the lifecycle's part of the status out computes from
// pn in one server-side apply that carries pn's resourceVersion, so the
// apiserver refuses it with a Conflict if the PodNetwork changed since the
// version the decision was computed from (a cache that has not yet seen
// this controller's own previous write computes that write's transitions
// again). It returns the PodNetwork after the write. The fields NodeIPAM
// owns (v1alpha1.OwnedStatus) are left out, so the two writers never
// overwrite each other.
//
// It applies when that part changed, and also when out has transitions or
// events to announce although it did not change (a StatusEdited event about
// a field the lifecycle does not own): that apply changes nothing, but it
// succeeds only if pn is still current, so nothing is announced from a
// stale read.
func (r *Reconciler) writeStatus(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork, out *lifecyclecore.Output) (*podnetworkv1alpha1.PodNetwork, error) {
	want := r.desired(pn, out)
	if equality.Semantic.DeepEqual(owned(&pn.Status), want) && len(out.Transitions) == 0 && len(out.Events) == 0 {
		return pn, nil
	}
	written, err := r.apply(ctx, pn.Name, pn.ResourceVersion, want)
	if apierrors.IsInvalid(err) {
		// A purged range whose fields another manager still owns (NodeIPAM's
		// usage, or a field another client set) would survive the apply as
		// an entry without cidr or phase, which the schema refuses. NodeIPAM
		// drops usage before it acknowledges Released, so this only happens
		// when NodeIPAM stopped running meanwhile, or after a hand edit:
		// take those fields over, then drop the entries. The apiserver
		// checks the resourceVersion before it validates, so pn is current
		// and the take-over patch is conditional on it too.
		rv, moved, takeErr := r.takeOver(ctx, pn, purged(want, &pn.Status))
		if takeErr != nil || !moved {
			// takeErr first: a conflict is found by errors.As before err.
			return nil, errors.Join(takeErr, err)
		}
		written, err = r.apply(ctx, pn.Name, rv, want)
	}
	return written, err
}

// desired is the lifecycle's part of the status out computes.
func (r *Reconciler) desired(pn *podnetworkv1alpha1.PodNetwork, out *lifecyclecore.Output) *podnetworkv1alpha1.PodNetworkStatus {
	desired := pn.Status.DeepCopy()
	out.ApplyTo(desired)
	return owned(desired)
}

// takeBack hands the status fields other clients set back to the operator's
// field managers (statusedit.Takeover) once Compute has dealt with them,
// then applies the lifecycle's status once more, so the fields it took and
// does not write (a condition it keeps aside, usage while NodeIPAM does not
// run) are dropped. pn is the PodNetwork the decision was written to (or
// read, when nothing was written): the take-over is conditional on its
// resourceVersion, and the apply on the take-over's, so neither lands on a
// PodNetwork someone else changed meanwhile.
func (r *Reconciler) takeBack(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork, out *lifecyclecore.Output) error {
	rv, moved, err := r.takeOver(ctx, pn, nil)
	if err != nil || !moved {
		return err
	}
	_, err = r.apply(ctx, pn.Name, rv, r.desired(pn, out))
	return err
}

// takeOver rewrites the managedFields of pn with statusedit.Takeover and
// returns the resourceVersion after the patch and whether anything moved.
// The patch replaces the resourceVersion too, so it fails with a Conflict if
// the PodNetwork changed since pn was read.
func (r *Reconciler) takeOver(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork, purgedEntries []string) (string, bool, error) {
	entries, changed, err := statusedit.Takeover(pn.ManagedFields, metav1.NewTime(r.clock().Now()), purgedEntries)
	if err != nil || !changed {
		return "", false, err
	}
	patch, err := json.Marshal([]map[string]any{
		{"op": "replace", "path": "/metadata/managedFields", "value": entries},
		{"op": "replace", "path": "/metadata/resourceVersion", "value": pn.ResourceVersion},
	})
	if err != nil {
		return "", false, fmt.Errorf("encoding the managedFields patch: %w", err)
	}
	after := &podnetworkv1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: pn.Name}}
	if err := r.Client.Patch(ctx, after, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return "", false, fmt.Errorf("taking back the PodNetwork status fields other clients set: %w", err)
	}
	return after.ResourceVersion, true, nil
}

// apply server-side applies status under the lifecycle's field manager,
// conditional on resourceVersion rv (a Conflict if the PodNetwork is no
// longer at rv), and returns the PodNetwork the apiserver answered with.
func (r *Reconciler) apply(ctx context.Context, name, rv string, status *podnetworkv1alpha1.PodNetworkStatus) (*podnetworkv1alpha1.PodNetwork, error) {
	u, err := podnetworkv1alpha1.PodNetworkStatusApply(name, status)
	if err != nil {
		return nil, err
	}
	u.SetResourceVersion(rv)
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return nil, fmt.Errorf("applying PodNetwork status at resourceVersion %s: %w", rv, err)
	}
	// The client decoded the answer into u.
	written := &podnetworkv1alpha1.PodNetwork{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, written); err != nil {
		return nil, fmt.Errorf("decoding the PodNetwork the status apply returned: %w", err)
	}
	return written, nil
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
