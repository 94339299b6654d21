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

// Package lazylog defers a logger's WithValues to the messages it
// actually writes.
//
// controller-runtime builds a logger for every reconcile: the controller's
// default LogConstructor adds the object (three WithValues calls), and the
// reconcile adds its reconcileID. zapr hands each WithValues to zap's With,
// which encodes the values into a new JSON buffer at once. In a burst of
// new nodes that was 6% of the operator's CPU (docs/performance.md),
// spent on loggers that wrote nothing: a reconcile that assigns a podCIDR
// logs one line at the default level, the others none. Deferred, a
// WithValues costs a slice append, and the values are encoded, in the same
// order and as the same fields, only for a message the level lets through.
package lazylog
