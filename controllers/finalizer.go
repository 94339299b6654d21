package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

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
		return fmt.Errorf("setting finalizers to %v: %w", want, err)
	}
	return nil
}
