package kubeproxy_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podnetwork.io/operator/internal/adapters/kubeproxy"
)

var update = flag.Bool("update", false, "rewrite the golden files")

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
		{"dualstack-space.yaml", "10.244.0.0/16,fd00:10:244::/56"},
		{"hand-edited.yaml", "10.244.0.0/14"},
		{"no-cluster-cidr.yaml", "10.244.0.0/16"},
		{"null-cluster-cidr.yaml", "10.244.0.0/16"},
		{"crlf.yaml", "10.244.0.0/15"},
		{"kubeadm.yaml", ""},
	}
	for _, tt := range tests {
		name := strings.TrimSuffix(tt.file, ".yaml")
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

func TestSetClusterCIDRRefusesWhatItCannotEditInPlace(t *testing.T) {
	const header = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
	tests := map[string]string{
		"flow mapping":    `{apiVersion: kubeproxy.config.k8s.io/v1alpha1, kind: KubeProxyConfiguration, clusterCIDR: 10.0.0.0/16}`,
		"block scalar":    header + "clusterCIDR: |\n  10.0.0.0/16\n",
		"multi-line":      header + "clusterCIDR: \"10.0.0.0/16,\n  fd00::/48\"\n",
		"tagged":          header + "clusterCIDR: !!str 10.0.0.0/16\n",
		"two documents":   header + "clusterCIDR: 10.0.0.0/16\n---\n" + header,
		"duplicate":       header + "clusterCIDR: 10.0.0.0/16\nclusterCIDR: 10.1.0.0/16\n",
		"merge key":       "base: &b\n  clusterCIDR: 10.0.0.0/16\n" + header + "<<: *b\n",
		"alias value":     "x: &v 10.0.0.0/16\n" + header + "clusterCIDR: *v\n",
		"wrong kind":      "apiVersion: v1\nkind: ConfigMap\n",
		"not YAML at all": "{{{",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			if got, err := kubeproxy.SetClusterCIDR(text, "10.244.0.0/16"); err == nil {
				t.Fatalf("want an error, got\n%s", got)
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

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("result differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
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
