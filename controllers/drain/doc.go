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

// Package drain is drain assist's controller (PodNetwork spec.drainAssist):
// it reads PodNetwork "default", the nodes, and, for the nodes it works on
// or may start, the whole Node and its pods, lets the pure internal/drain
// decide, then cordons, evicts through the Eviction API (policy/v1) and
// hands drained nodes over (deletes the Node, or sets its
// PodCIDRReplacementNeeded condition), writes status.drainAssist once and
// emits the events. It is always registered and does nothing while the
// mode is Off.
//
// It keeps no cache of pods: it lists the pods of one node at a time with
// the field selector spec.nodeName, from the API server, and reads the
// nodes it marked (label podnetwork.io/drain-assist) from the API server
// too, never from the cache, so maxUnavailable counts what is, not what
// the cache has seen so far.
package drain
