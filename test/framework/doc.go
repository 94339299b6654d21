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

// Package framework is what every suite of the operator builds on: a local
// control plane with the CRDs and an admin client (ControlPlane), the
// operator and consumers running in-process (StartOperator, StartManager,
// Process), object builders in one style (PodNetwork, Range, Consumer,
// Node), the getters specs poll (API), a recorder of every change the
// specs' invariant checks read afterwards (Recorder), and malformed writes
// the apiserver lets through (Injections and the functions beside it in
// badinput.go), for the bad-input suite and chaos storms.
//
// The functions that return errors work outside ginkgo too (the demo uses
// them); those documented "in a spec" assert with gomega.
package framework
