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

package main

import (
	"maps"
	"net/netip"
	"reflect"
	"testing"

	"podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework/cluster"
)

func TestScaleMask(t *testing.T) {
	p := netip.MustParsePrefix("10.128.0.0/9")
	for _, tc := range []struct{ mask, n, want int }{
		{24, 3201, 24},    // 3,000 existing + 200 + the canary: /24 blocks suffice
		{24, 32768, 24},   // exactly the /9's 32,768 /24 blocks
		{24, 32769, 25},   // one more
		{24, 105001, 26},  // 100,000 + 5,000 + the canary
		{0, 65000, 25},    // the memory measurement's fit
		{28, 105001, 28},  // -node-mask smaller than needed stays
		{24, 1 << 17, 26}, // exactly 131,072 /26 blocks
	} {
		if got := scaleMask(p, tc.mask, tc.n); got != tc.want {
			t.Errorf("scaleMask(%s, %d, %d) = %d, want %d", p, tc.mask, tc.n, got, tc.want)
		}
	}
}

func TestNetworkFor(t *testing.T) {
	b := &bench{
		clusterCIDR: netip.MustParsePrefix("10.128.0.0/9"), clusterCIDRv6: netip.MustParsePrefix("fd99::/48"),
		nodeMask: 24, opts: options{nodeMaskV6: 64},
	}
	v4 := netip.MustParsePrefix("10.128.0.0/9")
	for _, tc := range []struct {
		s    scenario
		want network
	}{
		{scenario{nodes: 5000}, network{v4: v4, v4Mask: 24}},
		{scenario{nodes: 1000, rate: 100}, network{v4: v4, v4Mask: 24}},
		{scenario{nodes: 5000, dualStack: true}, network{v4: v4, v4Mask: 24, v6: netip.MustParsePrefix("fd99::/48"), v6Mask: 64}},
		{scenario{nodes: 5000, existing: 100000}, network{v4: v4, v4Mask: 26}},
	} {
		if got := b.networkFor(tc.s); got != tc.want {
			t.Errorf("networkFor(%s) = %+v, want %+v", tc.s, got, tc.want)
		}
	}
}

func TestAllocatorNetworkFlags(t *testing.T) {
	v4, v6 := netip.MustParsePrefix("10.128.0.0/9"), netip.MustParsePrefix("fd99::/48")
	tests := []struct {
		name       string
		nw         network
		wantKCM    map[string]string
		wantRanges []v1alpha1.PodCIDRRange
	}{
		{
			name: "single-stack",
			nw:   network{v4: v4, v4Mask: 24},
			wantKCM: map[string]string{
				"cluster-cidr": "10.128.0.0/9", "node-cidr-mask-size": "24",
			},
			wantRanges: []v1alpha1.PodCIDRRange{{Name: benchRange, CIDR: "10.128.0.0/9", NodeMaskSize: 24}},
		},
		{
			// kube-controller-manager refuses --node-cidr-mask-size with a
			// dual-stack --cluster-cidr.
			name: "dual-stack",
			nw:   network{v4: v4, v4Mask: 24, v6: v6, v6Mask: 64},
			wantKCM: map[string]string{
				"cluster-cidr": "10.128.0.0/9,fd99::/48", "node-cidr-mask-size-ipv4": "24", "node-cidr-mask-size-ipv6": "64",
			},
			wantRanges: []v1alpha1.PodCIDRRange{
				{Name: benchRange, CIDR: "10.128.0.0/9", NodeMaskSize: 24},
				{Name: benchRangeV6, CIDR: "fd99::/48", NodeMaskSize: 64},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string]string{"allocate-node-cidrs": "true", "service-cluster-ip-range": cluster.DefaultServiceCIDR}
			maps.Copy(want, tc.wantKCM)
			if got := kcmArgs(tc.nw); !maps.Equal(got, want) {
				t.Errorf("kcmArgs = %v, want %v", got, want)
			}
			if got := podNetworkRanges(tc.nw); !reflect.DeepEqual(got, tc.wantRanges) {
				t.Errorf("podNetworkRanges = %+v, want %+v", got, tc.wantRanges)
			}
		})
	}
}

// TestConfigsAreDistinct guards the table against a default that changes
// under it: no two configurations may run the same setting, and every
// allocator's writes in flight must have a limit client run to compare with.
func TestConfigsAreDistinct(t *testing.T) {
	type setting struct {
		kind       string
		qps, burst int
		inFlight   int
		baseline   bool
	}
	seen := map[setting]config{}
	limits := map[int]bool{}
	for _, c := range configs {
		q, b := c.limits()
		s := setting{c.kind, q, b, c.concurrency(), c.baseline}
		if prev, dup := seen[s]; dup {
			t.Errorf("configurations %v and %v run the same setting", prev, c)
		}
		seen[s] = c
		if c.kind == kindLimit {
			limits[c.writers] = true
		}
	}
	for _, c := range configs {
		if c.kind != kindLimit && !limits[c.concurrency()] {
			t.Errorf("%v has %d writes in flight, which no limit client run matches", c, c.concurrency())
		}
	}
}
