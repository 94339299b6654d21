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
