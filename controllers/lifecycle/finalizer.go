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
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// errFinalizersChanged says the object's finalizers on the server are no
// longer those read: the read came from a cache that had not seen a write
// yet (typically this controller's own previous one). The watch event for
// that write is on its way and triggers the next reconcile, so it is no
// error worth a log line or a backoff.
var errFinalizersChanged = errors.New("finalizers changed since the object was read")

// setFinalizers replaces obj's finalizers with want by a JSON patch that
// first tests the list still is what obj shows. It conflicts only when the
// finalizers themselves changed, not on every status write, and never drops
// a finalizer someone else added meanwhile.
func setFinalizers(ctx context.Context, c client.Client, obj client.Object, want []string) error {
	have := obj.GetFinalizers()
	if slices.Equal(have, want) {
		return nil
	}
	var ops []map[string]any
	if have == nil {
		ops = append(ops, map[string]any{"op": "test", "path": "/metadata/finalizers", "value": nil})
	} else {
		ops = append(ops, map[string]any{"op": "test", "path": "/metadata/finalizers", "value": have})
	}
	if want == nil {
		want = []string{}
	}
	ops = append(ops, map[string]any{"op": "add", "path": "/metadata/finalizers", "value": want})
	data, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("encoding finalizer patch: %w", err)
	}
	if err := c.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, data)); err != nil {
		if testOpFailed(err) {
			err = errFinalizersChanged
		}
		return fmt.Errorf("setting finalizers to %v: %w", want, err)
	}
	return nil
}

// testOpFailed reports whether the API server refused a JSON patch because
// a test operation failed: 422 Invalid without the kind and causes that a
// validation error of the patched object carries.
func testOpFailed(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d == nil || (d.Kind == "" && len(d.Causes) == 0)
}

// ignoreFinalizersChanged drops errFinalizersChanged: the event of the change
// that made the read stale reconciles again.
func ignoreFinalizersChanged(err error) error {
	if errors.Is(err, errFinalizersChanged) {
		return nil
	}
	return err
}
