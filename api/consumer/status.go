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

package consumer

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Ready is the consumer's Ready condition; Status fills in its type and
// observedGeneration.
type Ready struct {
	Status  metav1.ConditionStatus
	Reason  string
	Message string
}

// Running is Ready=True, reason Running: the consumer runs and applies
// ranges.
func Running(message string) Ready {
	return Ready{Status: metav1.ConditionTrue, Reason: v1alpha1.ConsumerRunningReason, Message: message}
}

// ApplyFailed is Ready=False, reason ApplyFailed: the consumer failed to
// apply its configuration, for the reason in message.
func ApplyFailed(message string) Ready {
	return Ready{Status: metav1.ConditionFalse, Reason: v1alpha1.ConsumerApplyFailedReason, Message: message}
}

// Update is what one status write says.
type Update struct {
	// PodNetwork is the PodNetwork whose ranges are answered; nil (there is
	// none) keeps the previous acknowledgements as they are.
	PodNetwork *v1alpha1.PodNetwork
	// Applied answers the current phase of each range offered (see
	// v1alpha1.Acks); nil keeps the previous acknowledgements as they are.
	Applied v1alpha1.AckFunc
	// Now stamps new acknowledgements.
	Now metav1.Time
	// Ready is the consumer's Ready condition.
	Ready Ready
}

// Status returns the complete status self should show after u: the
// acknowledgements v1alpha1.Acks computes from the previous ones, the Ready
// condition (other conditions kept), and observedGeneration.
func Status(self *v1alpha1.PodNetworkConsumer, u Update) v1alpha1.PodNetworkConsumerStatus {
	status := v1alpha1.PodNetworkConsumerStatus{
		ObservedGeneration: ptr.To(self.Generation),
		Conditions:         slices.Clone(self.Status.Conditions),
		Ranges:             self.Status.Ranges,
	}
	if u.PodNetwork != nil && u.Applied != nil {
		status.Ranges = v1alpha1.Acks(u.PodNetwork, self.Status.Ranges, u.Now, u.Applied)
	}
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type:               v1alpha1.ConsumerReadyCondition,
		Status:             u.Ready.Status,
		Reason:             u.Ready.Reason,
		Message:            u.Ready.Message,
		ObservedGeneration: self.Generation,
	})
	return status
}

// WriteStatus applies Status(self, u) as the whole status of the consumer's
// PodNetworkConsumer, by server-side apply under FieldManager, unless it is
// what self already shows. Fields the consumer leaves out are given up, so
// the entry of a range that is no longer tracked disappears by not being
// sent.
func (c *Client) WriteStatus(ctx context.Context, self *v1alpha1.PodNetworkConsumer, u Update) error {
	status := Status(self, u)
	if equality.Semantic.DeepEqual(status, self.Status) {
		return nil
	}
	body, err := v1alpha1.ConsumerStatusApply(c.Name, &status)
	if err != nil {
		return err
	}
	if err := c.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(body),
		client.FieldOwner(c.FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying status of PodNetworkConsumer %s: %w", c.Name, err)
	}
	return nil
}
