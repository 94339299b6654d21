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

package kubeproxy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/goldenfile"
)

// TestSetClusterCIDRGolden rewrites clusterCIDR in real-world configuration
// files and compares the result with testdata/<name>.golden: exactly one
// line differs (or one is added) and everything else survives byte for byte.
func TestSetClusterCIDRGolden(t *testing.T) {
	tests := []struct {
		file, value string
	}{
		{"kubeadm.yaml", "10.244.0.0/15"},
		{"kubeadm-empty.yaml", "10.244.0.0/16"},
		{"kubeadm-dualstack.yaml", "10.244.0.0/15,fd00:10:244::/55"},
		{"dualstack-space.refused.yaml", "10.244.0.0/16,fd00:10:244::/56"},
		{"hand-edited.yaml", "10.244.0.0/14"},
		{"no-cluster-cidr.yaml", "10.244.0.0/16"},
		{"null-cluster-cidr.yaml", "10.244.0.0/16"},
		{"crlf.yaml", "10.244.0.0/15"},
		{"kubeadm.yaml", ""},
	}
	for _, tt := range tests {
		// An input real kube-proxy refuses is named <name>.refused.yaml
		// (test/realconfig); the adapter's output is <name>.golden all the
		// same, since it must be a file kube-proxy loads.
		name := strings.TrimSuffix(strings.TrimSuffix(tt.file, ".yaml"), ".refused")
		if tt.value == "" {
			name += "-cleared"
		}
		t.Run(name, func(t *testing.T) {
			in := read(t, tt.file)
			got, err := kubeproxy.SetClusterCIDR(in, tt.value)
			if err != nil {
				t.Fatalf("SetClusterCIDR: %v", err)
			}
			cfg, err := kubeproxy.Parse(got)
			if err != nil {
				t.Fatalf("result does not parse: %v", err)
			}
			if cfg.ClusterCIDR != tt.value {
				t.Errorf("clusterCIDR = %q, want %q", cfg.ClusterCIDR, tt.value)
			}
			if changed := diffLines(in, got); changed != 1 {
				t.Errorf("%d lines changed, want exactly 1", changed)
			}
			golden(t, filepath.Join("testdata", name+".golden"), got)
		})
	}
}

func TestSetClusterCIDRUnchanged(t *testing.T) {
	in := read(t, "hand-edited.yaml")
	got, err := kubeproxy.SetClusterCIDR(in, "10.244.0.0/16")
	if err != nil || got != in {
		t.Fatalf("setting the current value must return the text unchanged (err %v)", err)
	}
}

// TestSetClusterCIDRRefusesWhatItCannotEditInPlace checks that each layout
// is refused with a message naming what it is, so the admin knows what to
// change in the file.
func TestSetClusterCIDRRefusesWhatItCannotEditInPlace(t *testing.T) {
	const header = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
	tests := []struct {
		name, text, want string
	}{
		// The comment keeps the decoder from taking the text for JSON, which
		// would refuse it before the editor sees it.
		{"flow mapping", "# kube-proxy\n{apiVersion: kubeproxy.config.k8s.io/v1alpha1, kind: KubeProxyConfiguration, clusterCIDR: 10.0.0.0/16}\n", "flow-style"},
		{"flow sequence value", header + "clusterCIDR: [10.0.0.0/16]\n", "KubeProxyConfiguration"},
		{"block scalar", header + "clusterCIDR: |\n  10.0.0.0/16\n", "block scalar"},
		{"multi-line quoted", header + "clusterCIDR: \"10.0.0.0/16,\n  fd00::/48\"\n", "spans several lines"},
		{"multi-line plain", header + "clusterCIDR: 10.0.0.0/16,\n  fd00::/48\n", "spans several lines"},
		{"tagged", header + "clusterCIDR: !!str 10.0.0.0/16\n", "YAML tag !!str"},
		{"anchored", header + "clusterCIDR: &pods 10.244.0.0/16\n", "YAML anchor &pods"},
		{"anchored and quoted", header + "clusterCIDR: &pods '10.244.0.0/16'\n", "YAML anchor &pods"},
		{"anchored and tagged", header + "clusterCIDR: &pods !!str 10.244.0.0/16\n", "YAML anchor &pods"},
		{"alias value", "x: &v 10.0.0.0/16\n" + header + "clusterCIDR: *v\n", "YAML alias *v"},
		{"two documents", header + "clusterCIDR: 10.0.0.0/16\n---\n" + header, "more than one YAML document"},
		{"duplicate", header + "clusterCIDR: 10.0.0.0/16\nclusterCIDR: 10.1.0.0/16\n", "clusterCIDR"},
		{"merge key", "base: &b\n  clusterCIDR: 10.0.0.0/16\n" + header + "<<: *b\n", "merge keys"},
		{"wrong kind", "apiVersion: v1\nkind: ConfigMap\n", "KubeProxyConfiguration"},
		{"not YAML at all", "{{{", "KubeProxyConfiguration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := kubeproxy.SetClusterCIDR(tt.text, "10.244.0.0/15")
			if err == nil {
				t.Fatalf("want an error, got\n%s", got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func read(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// diffLines counts the lines of b that are not in a (a line-set diff is
// enough for one-field edits).
func diffLines(a, b string) int {
	seen := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		seen[l]++
	}
	n := 0
	for _, l := range strings.Split(b, "\n") {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		n++
	}
	return n
}

// golden compares got with the file at path (goldenfile.Compare).
func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Compare(t, path, []byte(got))
}
