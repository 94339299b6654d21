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

package flannel_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/goldenfile"
)

// TestSetNetworksGolden rewrites the managed keys of real-world
// net-conf.json files and compares the result with testdata/<name>.golden;
// every other member keeps its bytes, and so do whitespace and key spelling.
func TestSetNetworksGolden(t *testing.T) {
	tests := []struct {
		name, file string
		want       flannel.Networks
	}{
		{"upstream-grow", "upstream.json", flannel.Networks{Network: "10.244.0.0/15"}},
		{"upstream-add-ipv6", "upstream.json", flannel.Networks{Network: "10.244.0.0/16", IPv6Network: "fd00:10:244::/56", EnableIPv6: true}},
		{"dualstack-grow", "dualstack.json", flannel.Networks{Network: "10.42.0.0/15", IPv6Network: "2001:cafe:42::/55", EnableIPv6: true}},
		{"hand-edited", "hand-edited.json", flannel.Networks{Network: "10.240.0.0/12", IPv6Network: "fd00::/48", EnableIPv6: true}},
		{"no-network", "no-network.refused.json", flannel.Networks{Network: "10.244.0.0/16", IPv6Network: "fd00::/48", EnableIPv6: true}},
		{"empty", "empty.refused.json", flannel.Networks{Network: "10.244.0.0/16", IPv6Network: "fd00::/48", EnableIPv6: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := read(t, tt.file)
			got, err := flannel.SetNetworks(in, tt.want)
			if err != nil {
				t.Fatalf("SetNetworks: %v", err)
			}
			c, err := flannel.Parse(got)
			if err != nil {
				t.Fatalf("result does not parse: %v\n%s", err, got)
			}
			if c.Network != tt.want.Network || c.IPv6Network != tt.want.IPv6Network || c.IPv6Enabled() != tt.want.EnableIPv6 {
				t.Errorf("got Network %q IPv6Network %q EnableIPv6 %v, want %+v", c.Network, c.IPv6Network, c.IPv6Enabled(), tt.want)
			}
			// Every member the adapter does not manage decodes to the same value.
			var before, after map[string]json.RawMessage
			_ = json.Unmarshal([]byte(in), &before)
			_ = json.Unmarshal([]byte(got), &after)
			for k, v := range before {
				if managed(k) {
					continue
				}
				if string(after[k]) != string(v) {
					t.Errorf("member %q changed from %s to %s", k, v, after[k])
				}
			}
			golden(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}

func TestSetNetworksUnchanged(t *testing.T) {
	in := read(t, "upstream.json")
	got, err := flannel.SetNetworks(in, flannel.Networks{Network: "10.244.0.0/16"})
	if err != nil || got != in {
		t.Fatalf("setting the current value must return the text unchanged (err %v)", err)
	}
}

func TestParseRefuses(t *testing.T) {
	tests := map[string]string{
		"not an object":          `["Network"]`,
		"not JSON":               `{"Network": 10.244.0.0/16}`,
		"two values":             `{"Network": "10.244.0.0/16"} {}`,
		"Network not a prefix":   `{"Network": "10.244.0.0"}`,
		"Network IPv6":           `{"Network": "fd00::/48"}`,
		"IPv6Network IPv4":       `{"IPv6Network": "10.0.0.0/8"}`,
		"Network twice":          `{"Network": "10.244.0.0/16", "network": "10.0.0.0/16"}`,
		"Backend not an object":  `{"Network": "10.244.0.0/16", "Backend": "vxlan"}`,
		"EnableIPv6 not boolean": `{"Network": "10.244.0.0/16", "EnableIPv6": "yes"}`,
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := flannel.Parse(text); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

func managed(k string) bool {
	for _, m := range []string{"Network", "IPv6Network", "EnableIPv6"} {
		if strings.EqualFold(k, m) {
			return true
		}
	}
	return false
}

func read(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// golden compares got with the file at path (goldenfile.Compare).
func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Compare(t, path, []byte(got))
}
