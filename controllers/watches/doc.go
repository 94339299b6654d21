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

// Package watches holds what the operator's controllers share about what
// they watch: the one request every whole-network controller reconciles
// (PodNetwork "default"), the node update predicates that keep heartbeats
// from waking them, and the node cache transform that keeps only the node
// fields they read.
package watches
