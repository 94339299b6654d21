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

package adapters_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/adapterstest"
	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
)

func TestUncovered(t *testing.T) {
	pn := adapterstest.PodNetwork(adapterstest.Active("a", "10.244.0.0/16"), adapterstest.Draining("b", "10.245.0.0/16"), adapterstest.Pending("c", "10.246.0.0/16"),
		adapterstest.Released("d", "10.247.0.0/16"), adapterstest.Active("v6", "fd99::/48"))
	mp := netip.MustParsePrefix
	tests := []struct {
		name    string
		covered adapters.Covered
		want    []string
	}{
		{"the original single range leaves the grown ones out", adapters.Covered{Prefixes: []netip.Prefix{mp("10.244.0.0/16")}}, []string{"b", "v6"}},
		{"a covering prefix per family covers every range in use; Pending and Released ones need none", adapters.Covered{Prefixes: []netip.Prefix{mp("10.244.0.0/15"), mp("fd99::/32")}}, nil},
		{"nothing configured", adapters.Covered{}, []string{"a", "b", "v6"}},
		{"range-independent covers everything", adapters.Covered{RangeIndependent: "detectLocalMode is NodeCIDR"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, rs := range adapters.Uncovered(tt.covered, pn) {
				got = append(got, rs.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Uncovered (-want +got):\n%s", diff)
			}
		})
	}
}

// prefixes compares netip.Prefix values by ==.
var prefixes = cmpopts.EquateComparable(netip.Prefix{})

func testdata(t *testing.T, pkg, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pkg, "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCoveredReadsTheManagedFields(t *testing.T) {
	mp := netip.MustParsePrefix
	kp, err := kubeproxy.Covered(testdata(t, "kubeproxy", "kubeadm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(adapters.Covered{Prefixes: []netip.Prefix{mp("10.244.0.0/16")}}, kp, prefixes); diff != "" {
		t.Errorf("kube-proxy (-want +got):\n%s", diff)
	}
	nodeCIDR := strings.Replace(testdata(t, "kubeproxy", "kubeadm.yaml"), `detectLocalMode: ""`, `detectLocalMode: NodeCIDR`, 1)
	if kp, err := kubeproxy.Covered(nodeCIDR); err != nil || kp.RangeIndependent == "" {
		t.Errorf("kube-proxy in NodeCIDR mode: got %+v, %v; want range-independent", kp, err)
	}
	fl, err := flannel.Covered(testdata(t, "flannel", "upstream.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(adapters.Covered{Prefixes: []netip.Prefix{mp("10.244.0.0/16")}}, fl, prefixes); diff != "" {
		t.Errorf("flannel (-want +got):\n%s", diff)
	}
	dual := `{"Network": "10.244.0.0/16", "IPv6Network": "fd99::/48", "EnableIPv6": true, "Backend": {"Type": "vxlan"}}`
	fl, err = flannel.Covered(dual)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(adapters.Covered{Prefixes: []netip.Prefix{mp("10.244.0.0/16"), mp("fd99::/48")}}, fl, prefixes); diff != "" {
		t.Errorf("flannel dual-stack (-want +got):\n%s", diff)
	}
	off := `{"Network": "10.244.0.0/16", "IPv6Network": "fd99::/48", "Backend": {"Type": "vxlan"}}`
	if fl, err := flannel.Covered(off); err != nil || len(fl.Prefixes) != 1 {
		t.Errorf("flannel with EnableIPv6 off covers only Network: got %+v, %v", fl, err)
	}
}
