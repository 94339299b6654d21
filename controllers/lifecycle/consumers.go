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
	"fmt"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// labelConsumers sets the in-sync label of every consumer to what the
// lifecycle just reported in status.consumers, patching only the consumers
// whose label changed. The label is what `kubectl get pnc` shows as IN SYNC.
func (r *Reconciler) labelConsumers(ctx context.Context, consumers []podnetworkv1alpha1.PodNetworkConsumer, summaries []podnetworkv1alpha1.ConsumerSummary) error {
	inSync := make(map[string]bool, len(summaries))
	for _, s := range summaries {
		inSync[s.Name] = s.InSync
	}
	for i := range consumers {
		c := &consumers[i]
		want, known := inSync[c.Name]
		if !known || !c.DeletionTimestamp.IsZero() {
			continue
		}
		value := strconv.FormatBool(want)
		if c.Labels[podnetworkv1alpha1.InSyncLabel] == value {
			continue
		}
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, podnetworkv1alpha1.InSyncLabel, value)
		if err := r.Client.Patch(ctx, c, client.RawPatch("application/merge-patch+json", []byte(patch))); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("labelling PodNetworkConsumer %s: %w", c.Name, err)
		}
	}
	return nil
}
