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

// Package bench compares the operator's node block allocator with
// kube-controller-manager's cidrset, the allocator behind
// --allocate-node-cidrs, on the same machine in the same run, so the ratio
// means something even where absolute times are noise.
//
// Run from this directory (make bench does):
//
//	go test -run '^$' -bench . -benchmem -count 6 . | tee micro.txt
//	benchstat -col /impl micro.txt
//
// Names are benchstat keys: BenchmarkAllocateNext/range=v4-8-24/fill=99.9/impl=ours.
// Results and how to read them: docs/performance.md.
package bench
