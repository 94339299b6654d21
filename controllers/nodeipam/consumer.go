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

package nodeipam

import (
	"context"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/api/consumer"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// consumerSpec is what NodeIPAM registers: required, unless an admin made
// its existing PodNetworkConsumer optional (registration keeps that).
var consumerSpec = podnetworkv1alpha1.PodNetworkConsumerSpec{
	Required:    ptr.To(true),
	Description: "Built-in NodeIPAM of podnetwork-operator: assigns node.spec.podCIDRs from Active ranges.",
}

// readyMessage is NodeIPAM's Ready=True message.
const readyMessage = "NodeIPAM rebuilt its allocator from the nodes and allocates podCIDRs"

// consumerClient is NodeIPAM's side of the consumer protocol, the same
// client every consumer uses; reader (the API server) looks the object up at
// registration.
func consumerClient(c client.Client, reader client.Reader) *consumer.Client {
	return &consumer.Client{Client: c, Reader: reader, Name: ConsumerName, FieldManager: FieldManager}
}

// writeAcks acknowledges, in the status of NodeIPAM's PodNetworkConsumer,
// every range phase the allocator has applied, and only when that changes
// the status. A consumer that was deleted is not re-created: whoever deleted
// it no longer wants transitions to wait for NodeIPAM.
func (r *NetworkReconciler) writeAcks(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork) error {
	c := consumerClient(r.Client, r.Reader)
	self, err := c.Get(ctx)
	if err != nil || self == nil {
		return err
	}
	return c.WriteStatus(ctx, self, consumer.Update{
		PodNetwork: pn,
		Applied:    r.state.Ack,
		Now:        r.state.Now(),
		Ready:      consumer.Running(readyMessage),
	})
}
