package adapters

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// consumerStatus computes the adapter's PodNetworkConsumer status from the
// outcome, through the same public helper (v1alpha1.Acks) every consumer
// uses: a Pending range the component cannot take is rejected at once;
// every other current phase is accepted only once the configuration is
// applied; until then, and whenever the adapter cannot act, the previous
// acknowledgements stand.
func consumerStatus(s *scope, out outcome, now metav1.Time) podnetworkv1alpha1.PodNetworkConsumerStatus {
	status := podnetworkv1alpha1.PodNetworkConsumerStatus{
		ObservedGeneration: s.self.Generation,
		Conditions:         slices.Clone(s.self.Status.Conditions),
		Ranges:             s.self.Status.Ranges,
	}
	if s.pn != nil {
		status.Ranges = podnetworkv1alpha1.Acks(s.pn, s.self.Status.Ranges, now, func(rs podnetworkv1alpha1.RangeStatus) (podnetworkv1alpha1.AckResult, string, bool) {
			if !out.answer {
				return "", "", false
			}
			if msg, ok := out.rejected[rs.Name]; ok && rs.Phase == podnetworkv1alpha1.RangePhasePending {
				return podnetworkv1alpha1.AckRejected, msg, true
			}
			if out.applied {
				return podnetworkv1alpha1.AckAccepted, out.accepted, true
			}
			return "", "", false
		})
	}
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type:               podnetworkv1alpha1.ConsumerReadyCondition,
		Status:             out.ready,
		Reason:             out.reason,
		Message:            out.message,
		ObservedGeneration: s.self.Generation,
	})
	return status
}

// writeStatus applies the adapter's whole PodNetworkConsumer status under
// its own field manager, and only when it changed.
func (r *Reconciler) writeStatus(ctx context.Context, s *scope, out outcome) error {
	status := consumerStatus(s, out, metav1.NewTime(r.clock().Now()))
	if equality.Semantic.DeepEqual(status, s.self.Status) {
		return nil
	}
	u, err := podnetworkv1alpha1.ConsumerStatusApply(r.Consumer, &status)
	if err != nil {
		return err
	}
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(r.FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying status of PodNetworkConsumer %s: %w", r.Consumer, err)
	}
	return nil
}
