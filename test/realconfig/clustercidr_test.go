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
	"path/filepath"
	"strings"
	"testing"

	adapterkubeproxy "podnetwork.io/operator/internal/adapters/kubeproxy"
)

// TestClusterCIDRCheckAgreesWithKubeProxy writes each clusterCIDR into
// kubeadm's kube-proxy configuration and checks that the adapter's
// CheckClusterCIDR refuses exactly the values kube-proxy refuses, so the
// adapter flags a value as invalid only when kube-proxy would not start
// with it.
func TestClusterCIDRCheckAgreesWithKubeProxy(t *testing.T) {
	base, err := os.ReadFile("../../internal/adapters/kubeproxy/testdata/kubeadm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const line = "clusterCIDR: 10.244.0.0/16\n"
	if !strings.Contains(string(base), line) {
		t.Fatalf("kubeadm.yaml has no line %q", line)
	}
	for _, value := range []string{
		"10.244.0.0/16",
		"10.244.0.0/16,fd00:10:244::/56",
		"10.244.1.0/16",
		"010.244.0.0/16",
		"10.244.0.0/16, fd00:10:244::/56",
		"10.244.0.0/16 ,fd00:10:244::/56",
		"10.244.0.0/16,",
		"10.244.0.0/16,10.245.0.0/16",
		"10.244.0.0/16,fd00::/48,10.245.0.0/16",
		"garbage",
		"10.244.0.0",
	} {
		t.Run(value, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "config.yaml")
			text := strings.Replace(string(base), line, "clusterCIDR: \""+value+"\"\n", 1)
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, refusal := loadKubeProxy(path, t.TempDir())
			ours := adapterkubeproxy.CheckClusterCIDR(value)
			switch {
			case refusal != nil && !strings.Contains(refusal.Error(), "ClusterCIDRs"):
				t.Fatalf("kube-proxy refuses the file for another reason: %v", refusal)
			case (refusal == nil) != (ours == nil):
				t.Errorf("kube-proxy: %v; CheckClusterCIDR: %v", refusal, ours)
			}
		})
	}
}
