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

package v1alpha1

// MaxMessageLength is the longest message, in bytes, that a message field of
// this API accepts: every `message` and `invalidMessage`, a rejection's
// message and an allocation conflict carry
// +kubebuilder:validation:MaxLength=1024, which a marker cannot take from a
// constant, so test/integration/crd checks the CRDs against this one. It is
// also the limit events.k8s.io puts on an Event's note, so the operator bounds
// both with it (internal/text.Message), and a plugin writing its own
// acknowledgement messages should too.
const MaxMessageLength = 1024
