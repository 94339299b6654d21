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

// Package consumer is the client side of the PodNetwork consumer protocol
// (docs/protocol.md), used by every consumer: the operator's NodeIPAM and
// adapters, the reference consumer and third-party plugins.
//
// The pure bookkeeping (which ranges to hold, Acks, AckFor, AckState) lives
// in podnetwork.io/operator/api/v1alpha1; this package does the API calls
// around it:
//
//   - Client.Register creates the consumer's PodNetworkConsumer if it is
//     missing, by server-side apply without forcing, and never touches a
//     spec someone already wrote;
//   - Client.WriteStatus computes the acknowledgements and the Ready
//     condition (Status) and server-side applies the whole status under the
//     consumer's own field manager, skipping writes that change nothing;
//   - Reconciler is a ready-made level-triggered controller-runtime loop for
//     a plugin that only needs to say, per range, whether it has applied the
//     range's current phase. It watches PodNetwork "default" and its own
//     PodNetworkConsumer through a cache of its own restricted to those two
//     names (field selector metadata.name), so a role that restricts them
//     with resourceNames is enough (docs/examples/plugin-clusterrole.yaml).
//
// It is its own Go module (podnetwork.io/operator/api/consumer) so that the
// API module stays free of controller-runtime, while a plugin needs nothing
// from the operator's module.
package consumer
