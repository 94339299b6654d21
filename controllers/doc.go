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

// Package controllers wires the operator together: Options composes the
// options of every subsystem (each binds its own flags), Scheme holds the
// types they use, and Run builds the manager (leader election, probes,
// metrics, the node cache) and sets up each subsystem:
//
//   - controllers/lifecycle: the range lifecycle, writer of the PodNetwork
//     status it owns;
//   - controllers/nodeipam: the built-in NodeIPAM, writer of node podCIDRs;
//   - controllers/adapters: the adapters of internal/adapters/registry
//     (kube-proxy, flannel), whose namespaced RBAC hack/chartgen generates
//     from the same list;
//   - controllers/autoscale: the autoscaler, writer of AutoscaledRangeSet
//     "default" and status.autoscaling;
//   - controllers/drain: drain assist, which cordons, drains and hands over
//     the nodes holding blocks in Draining ranges, writer of
//     status.drainAssist;
//   - controllers/audit: the opt-in continuous audit, which only reads and
//     reports (metrics, events), with RBAC of its own;
//   - controllers/metrics: the operator's Prometheus metrics;
//   - controllers/watches: what the controllers share about their watches.
//
// docs/architecture.md's layout table is the map of every package.
//
// Each subsystem package is thin: it reads, calls the decisions in
// internal/ and writes. The envtest suite test/integration/lifecycle runs
// the operator as wired, through Run.
package controllers
