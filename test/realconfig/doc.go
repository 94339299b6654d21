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

// Package realconfig checks that every golden input and output of the
// kube-proxy and flannel adapters is a file the real programs load: a
// fixture no real cluster can have proves nothing about the adapter.
//
//   - kube-proxy v1.37.2: the test binary re-executes itself as kube-proxy
//     (k8s.io/kubernetes/cmd/kube-proxy/app.NewProxyCommand) with
//     --config <file> --write-config-to <tmp>, so the file goes through
//     kube-proxy's own loadConfig (strict decoding, then the lenient fallback
//     with its warning), defaulting, feature gates, logging validation and
//     validation.Validate, and kube-proxy then writes the configuration it
//     would run instead of starting.
//   - flannel v0.28.10: subnet.ParseConfig, which is all flanneld
//     --kube-subnet-mgr checks of net-conf.json before it asks for a lease,
//     plus the one file-only condition of that lease (an enabled family
//     needs its network).
//
// The files are found by glob, so a new fixture is checked without editing
// this module. A golden input the real program refuses must say so in its
// name (<name>.refused.yaml, <name>.refused.json) and have an entry in
// refusedInputs recording the refusal and why the fixture is kept.
//
// Run from this directory (make test does):
//
//	go test -race -count=1 ./...
package realconfig
