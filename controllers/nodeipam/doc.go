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

// Package nodeipam is the controller side of the built-in NodeIPAM: the
// start-up rebuild, the node reconciler that writes node.spec.podCIDRs and
// the PodNetwork reconciler that reports usage, quarantine and conflicts and
// acknowledges range phases as the consumer "node-ipam". Every decision is
// made by internal/nodeipam (State and the pure functions around it); this
// package translates watch events into calls of State, writes the results,
// logs and wakes the reconcilers the results concern. Options holds
// NodeIPAM's flags.
package nodeipam
