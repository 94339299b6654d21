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

// Package cidr holds the pure prefix helpers shared by the PodNetwork webhook,
// the NodeIPAM allocator and the consumer adapters (kube-proxy, flannel).
//
// Everything here works on net/netip values and delegates prefix arithmetic to
// net/netip and go4.org/netipx. The package has no state and no Kubernetes
// dependencies, so the same rules apply at admission time and at allocation
// time (a range that passed the webhook can never be rejected later by the
// allocator for a different reason).
package cidr
