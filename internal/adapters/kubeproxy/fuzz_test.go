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

package kubeproxy

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzSetClusterCIDR edits arbitrary configuration files (seeded with the
// golden inputs) and checks the editor's promises: it never panics, an edit
// it accepts parses as a KubeProxyConfiguration holding the new value, and
// editing the result again changes nothing.
func FuzzSetClusterCIDR(f *testing.F) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), "10.244.0.0/15")
		f.Add(string(data), "10.244.0.0/16,fd00:10:244::/48")
	}
	f.Fuzz(func(t *testing.T, text, value string) {
		out, err := SetClusterCIDR(text, value)
		if err != nil {
			return
		}
		cfg, err := Parse(out)
		if err != nil {
			t.Fatalf("the edited configuration does not parse: %v\n%s", err, out)
		}
		if cfg.ClusterCIDR != value {
			t.Fatalf("clusterCIDR is %q after setting %q\n%s", cfg.ClusterCIDR, value, out)
		}
		again, err := SetClusterCIDR(out, value)
		if err != nil || again != out {
			t.Fatalf("setting the same value twice changed the text (err %v)\n%s\n---\n%s", err, out, again)
		}
	})
}
