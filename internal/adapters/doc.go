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

// Package adapters holds the pure logic of the kube-proxy and flannel
// adapters: the consumers that make components which do not speak the
// PodNetwork protocol part of the handshake.
//
// Both components read their pod CIDR once at start and take a single CIDR
// per IP family, so an adapter cannot hand them a list of ranges. Instead it
// summarises the desired ranges of each family by their smallest covering
// prefix (Decide), writes that prefix into the component's ConfigMap
// (subpackages kubeproxy and flannel, which rewrite only the managed fields),
// restarts the component's DaemonSet through a pod-template annotation that
// holds a hash of the configuration (ConfigHash; RolloutHash when the plan
// also marks the template, Plan.Template) and acknowledges a phase only
// once every pod runs the new configuration (subpackage rollout).
//
// Each component package also exports its Descriptor (Adapter): the name,
// defaults, flags, RBAC, planner, coverage check and proof of its adapter.
// Subpackage registry lists them, and that list is the only place that
// names the adapters for the operator, the kubectl plugin and the chart.
//
// Nothing here talks to the API server, and nothing here imports the
// operator's controllers (imports_test.go at the root enforces it): the
// adapters' reconciler reads the objects, calls these functions and writes
// the results.
package adapters
