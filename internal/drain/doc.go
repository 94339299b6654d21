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

// Package drain decides what drain assist does next with the nodes that
// hold blocks in Draining ranges (PodNetwork spec.drainAssist). A node's
// podCIDRs cannot change, so a Draining range is released only when those
// nodes are replaced; drain assist cordons them a few at a time, evicts
// their pods and hands each drained node over to Karpenter (the Node is
// deleted) or to a Cluster API MachineHealthCheck (a Node condition).
//
// It is pure: the controller (controllers/drain) reads the cluster into an
// Input, asks Candidates which unstarted nodes to read whole, asks Decide
// for the steps, carries them out and hands the outcomes to Summarize,
// which says
// what to write in status.drainAssist, which events to emit and when to look
// again. Nothing is kept in memory between two reconciles: a node drain
// assist works on carries the label podnetwork.io/drain-assist and the time
// it was started, so a restart at any point resumes where it stood and
// never starts more than maxUnavailable nodes.
package drain
