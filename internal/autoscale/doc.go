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

// Package autoscale decides, as a pure function, how the autoscaler grows
// and shrinks the pod network from the pools of PodNetwork
// spec.autoscaling: Decide takes a snapshot (the admin's ranges, the
// autoscaler's set, the tracked ranges with NodeIPAM's usage, nodes,
// ServiceCIDRs and the time) and returns the new set, the status of every
// pool and the events to emit. It never talks to the API server; the
// controller (controllers/autoscale) reads, calls it and writes.
//
// Per pool (docs/autoscaling.md has the reasoning):
//
//   - the serving ranges are the outermost Active declared ranges with the
//     pool's family and nodeSelector; their usage, minus the pool's nodes
//     still waiting for a block, is the free capacity;
//   - a range the autoscaler added that an Active range it added strictly
//     contains is removed (an expansion finished);
//   - while a range of the pool is not Active the pool waits; if a required
//     consumer rejected it, or it is invalid, the pool is Blocked;
//   - the pool grows when the free blocks forecast two lead times ahead, at
//     the observed arrival rate of its nodes, fall below its grow
//     threshold: by a one-bit supernet of a serving range (expand), else a
//     new range of rangePrefixLength (add), else it is Exhausted;
//   - with a shrink policy, a range it added that has been empty for
//     idleSeconds is removed when the thresholds still hold without it.
//
// Recommend mode computes the same steps and reports them instead.
package autoscale
