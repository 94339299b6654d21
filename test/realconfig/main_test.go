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

package realconfig

import (
	"os"
	"testing"
)

// TestMain lets the test binary play kube-proxy: kube-proxy's command keeps
// its state in globals (feature gates, logging, flags), so each file gets a
// fresh process, as on a node.
func TestMain(m *testing.M) {
	if os.Getenv(kubeProxyChildEnv) != "" {
		os.Exit(runKubeProxy(os.Args[1:]))
	}
	os.Exit(m.Run())
}
