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

package flannel

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// FuzzSetNetworks edits arbitrary net-conf.json texts (seeded with the golden
// inputs) and checks the editor's promises: it never panics, an edit it
// accepts parses and holds the networks asked for, and editing the result
// again changes nothing.
func FuzzSetNetworks(f *testing.F) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), "10.244.0.0/15", "", false)
		f.Add(string(data), "10.244.0.0/16", "fd00:10:244::/48", true)
	}
	f.Fuzz(func(t *testing.T, text, network, ipv6Network string, enableIPv6 bool) {
		// The adapter only ever asks for prefixes of the right family.
		if p, err := netip.ParsePrefix(network); network != "" && (err != nil || !p.Addr().Is4()) {
			return
		}
		if p, err := netip.ParsePrefix(ipv6Network); ipv6Network != "" && (err != nil || !p.Addr().Is6()) {
			return
		}
		want := Networks{Network: network, IPv6Network: ipv6Network, EnableIPv6: enableIPv6}
		out, err := SetNetworks(text, want)
		if err != nil {
			return
		}
		got, err := Parse(out)
		if err != nil {
			t.Fatalf("the edited net-conf.json does not parse: %v\n%s", err, out)
		}
		if network != "" && got.Network != network {
			t.Fatalf("Network is %q after setting %q\n%s", got.Network, network, out)
		}
		if ipv6Network != "" && got.IPv6Network != ipv6Network {
			t.Fatalf("IPv6Network is %q after setting %q\n%s", got.IPv6Network, ipv6Network, out)
		}
		if enableIPv6 && !got.IPv6Enabled() {
			t.Fatalf("EnableIPv6 is not on after setting it\n%s", out)
		}
		again, err := SetNetworks(out, want)
		if err != nil || again != out {
			t.Fatalf("setting the same networks twice changed the text (err %v)\n%s\n---\n%s", err, out, again)
		}
	})
}
