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

package adapters

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"podnetwork.io/operator/api/consumer"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/text"
)

// consumerClient is the adapter's side of the consumer protocol, the same
// client every consumer uses.
func (r *Reconciler) consumerClient() *consumer.Client {
	return &consumer.Client{Client: r.Client, Name: r.Adapter.Name, FieldManager: r.Adapter.FieldManager()}
}

// statusUpdate is what the adapter's status write says for out: a Pending
// range the component cannot take is rejected at once; every other current
// phase is accepted only once the configuration is applied; until then, and
// whenever the adapter cannot act, the previous acknowledgements stand.
func statusUpdate(s *scope, out outcome, now metav1.Time) consumer.Update {
	return consumer.Update{
		PodNetwork: s.pn,
		Now:        now,
		Ready:      consumer.Ready{Status: out.ready, Reason: out.reason, Message: out.message},
		Applied: func(rs podnetworkv1alpha1.RangeStatus) (podnetworkv1alpha1.AckResult, string, bool) {
			if !out.answer {
				return "", "", false
			}
			if msg, ok := out.rejected[rs.Name]; ok && rs.Phase == podnetworkv1alpha1.RangePhasePending {
				return podnetworkv1alpha1.AckRejected, msg, true
			}
			if out.applied {
				if note, ok := out.notCarried[rs.Name]; ok {
					// Accepted, not yet carried: the note comes first, so
					// the cut to the message limit keeps it.
					return podnetworkv1alpha1.AckAccepted, text.Message(note + ". " + out.accepted), true
				}
				return podnetworkv1alpha1.AckAccepted, out.accepted, true
			}
			return "", "", false
		},
	}
}

// writeStatus applies the adapter's whole PodNetworkConsumer status under
// its own field manager, and only when it changed.
func (r *Reconciler) writeStatus(ctx context.Context, s *scope, out outcome) error {
	return r.consumerClient().WriteStatus(ctx, s.self, statusUpdate(s, out, metav1.NewTime(r.clock().Now())))
}

// spec is what the adapter registers: required, unless an admin made its
// existing PodNetworkConsumer optional (registration keeps that).
func (r *Reconciler) spec() podnetworkv1alpha1.PodNetworkConsumerSpec {
	return podnetworkv1alpha1.PodNetworkConsumerSpec{Required: ptr.To(true), Description: r.Adapter.Description}
}
