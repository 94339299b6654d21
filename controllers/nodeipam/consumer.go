package nodeipam

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// consumerDescription is spec.description of NodeIPAM's
// PodNetworkConsumer.
const consumerDescription = "Built-in NodeIPAM of podnetwork-operator: assigns node.spec.podCIDRs from Active ranges."

// registerConsumer creates NodeIPAM's PodNetworkConsumer, required,
// unless it exists (an admin may have made it optional; that is kept).
func registerConsumer(ctx context.Context, c client.Client) error {
	obj := &podnetworkv1alpha1.PodNetworkConsumer{
		ObjectMeta: metav1.ObjectMeta{Name: ConsumerName},
		Spec: podnetworkv1alpha1.PodNetworkConsumerSpec{
			Required:    ptr.To(true),
			Description: consumerDescription,
		},
	}
	if err := c.Create(ctx, obj, client.FieldOwner(FieldManager)); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("registering PodNetworkConsumer %s: %w", ConsumerName, err)
	}
	return nil
}

// writeAcks acknowledges, in the status of NodeIPAM's PodNetworkConsumer,
// every range phase the allocator has applied, through the same public
// helper (v1alpha1.Acks) any consumer uses, and only when that changes the
// status. A consumer that was deleted is not re-created: whoever deleted it
// no longer wants transitions to wait for NodeIPAM.
func (r *NetworkReconciler) writeAcks(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork) error {
	self := &podnetworkv1alpha1.PodNetworkConsumer{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: ConsumerName}, self); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("reading PodNetworkConsumer %s: %w", ConsumerName, err)
	}
	if !self.DeletionTimestamp.IsZero() {
		return nil
	}
	status := podnetworkv1alpha1.PodNetworkConsumerStatus{
		ObservedGeneration: self.Generation,
		Conditions:         slices.Clone(self.Status.Conditions),
		Ranges:             r.state.Acks(pn, self.Status.Ranges),
	}
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type:               podnetworkv1alpha1.ConsumerReadyCondition,
		Status:             metav1.ConditionTrue,
		Reason:             podnetworkv1alpha1.ConsumerRunningReason,
		Message:            "NodeIPAM rebuilt its allocator from the nodes and allocates podCIDRs",
		ObservedGeneration: self.Generation,
	})
	if equality.Semantic.DeepEqual(status, self.Status) {
		return nil
	}
	u, err := podnetworkv1alpha1.ConsumerStatusApply(ConsumerName, &status)
	if err != nil {
		return err
	}
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying status of PodNetworkConsumer %s: %w", ConsumerName, err)
	}
	return nil
}
