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

// Package crd tests the generated CRDs in config/crd/bases with the
// apiextensions-apiserver code a real kube-apiserver runs (CRD validation,
// CEL rules and their cost, defaulting), without a running apiserver.
//
// It lives in the operator's module, not next to the types, so that the API
// module (podnetwork.io/operator/api), which plugins import, never requires
// apiextensions-apiserver, not even for its tests.
package crd
