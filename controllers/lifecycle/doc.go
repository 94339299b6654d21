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

// Package lifecycle is the controller of the range lifecycle: it moves every
// range of PodNetwork "default" through Pending → Active → Draining →
// Released as the consumers acknowledge each phase. It reads the PodNetwork,
// the consumers, the nodes and the ServiceCIDRs, lets the pure
// internal/lifecycle.Compute decide, then writes the status it owns in one
// server-side apply, emits the events, labels the consumers and manages the
// podnetwork.io/drain finalizer. Options holds its flags.
package lifecycle
