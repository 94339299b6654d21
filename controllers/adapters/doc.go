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

// Package adapters makes components that do not speak the PodNetwork
// protocol (kube-proxy, flannel) consumers: one Reconciler per enabled
// component writes the covering prefixes of the desired ranges into the
// component's ConfigMap, rolls its DaemonSet and acknowledges the phases in
// the adapter's own PodNetworkConsumer. What to write, when to reject and
// whether a rollout is complete is decided in internal/adapters; this
// package reads, calls it and writes. Every adapter is described by one
// descriptor (adapters.Descriptor) in the list of internal/adapters/registry:
// Options holds a Component per descriptor, binds its flags and Setup runs
// the same Reconciler for each enabled one.
package adapters
