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

// Package cli is the logic of the kubectl plugin (cmd/kubectl-podnetwork):
// what `kubectl podnetwork status`, `check` and `plan` compute from a
// Cluster read from the API, and how they print it: the human tables, and
// the reports (StatusReport, CheckReport, PlanReport, Version of
// cli.podnetwork.io/v1alpha1) that -o json, yaml and the templates print,
// laid out in docs/kubectl-plugin.md. Everything here is pure: reading the
// cluster, the server-side dry-run and the command line live in the
// subpackage app.
//
// The plugin decides nothing on its own: status reads what the operator
// wrote and groups it with nodeipam.SelectorGroups (the rule the metrics
// use); check applies the operator's own rules (nodeipam.FindOverlaps,
// lifecycle.ForeignPodCIDRs, nodeipam.Choose, v1alpha1.AckState, the
// adapters' planners and adapters.Uncovered) to what it reads; plan runs
// the lifecycle's Compute, NodeIPAM's Config and the adapters' pure
// planners on the proposed spec, round after round, as the operator and
// its consumers would, and drain assist's own planner (drain.ScheduleOf)
// on where that leaves the nodes of Draining ranges.
package cli
