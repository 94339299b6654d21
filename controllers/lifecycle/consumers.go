package lifecycle

import (
	"context"
	"fmt"
	"strconv"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
