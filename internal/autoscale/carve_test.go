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

package autoscale

import (
	"net/netip"
	"testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func testPool(t *testing.T, cidr string, rangeBits, nms int32, exclusions ...string) poolSpec {
	t.Helper()
	p := v1alpha1.AutoscalingPool{Name: "p", CIDR: cidr, RangePrefixLength: rangeBits, NodeMaskSize: nms}
	for _, x := range exclusions {
		p.Exclusions = append(p.Exclusions, v1alpha1.CIDRString(x))
	}
	ps, err := parsePool(&p)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

type known struct {
	cidr string
	nms  int32
}

func testSpace(t *testing.T, svcs []string, addrs []string, ranges ...known) *space {
	t.Helper()
	var ps []netip.Prefix
	for _, s := range svcs {
		ps = append(ps, mp(s))
	}
	var nodes []Node
	for _, a := range addrs {
		nodes = append(nodes, Node{Name: "n", Addresses: []netip.Addr{netip.MustParseAddr(a)}})
	}
	s, err := newSpace(ps, nodes)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ranges {
		s.add(mp(k.cidr), k.nms)
	}
	return s
}

func TestCarve(t *testing.T) {
	tests := []struct {
		name       string
		pool       poolSpec
		svcs       []string
		addrs      []string
		ranges     []known
		want       string // "" when there is no room
		exclusions []string
	}{
		{name: "empty pool: its first /20", pool: testPool(t, "10.64.0.0/16", 20, 24), want: "10.64.0.0/20"},
		{name: "after a known range", pool: testPool(t, "10.64.0.0/16", 20, 24), ranges: []known{{"10.64.0.0/20", 24}}, want: "10.64.16.0/20"},
		{name: "a tracked range of another nodeMaskSize too", pool: testPool(t, "10.64.0.0/16", 20, 24), ranges: []known{{"10.64.0.0/19", 26}}, want: "10.64.32.0/20"},
		{name: "around a ServiceCIDR", pool: testPool(t, "10.64.0.0/16", 20, 24), svcs: []string{"10.64.0.0/24"}, want: "10.64.16.0/20"},
		{name: "around a node address", pool: testPool(t, "10.64.0.0/16", 20, 24), addrs: []string{"10.64.3.4"}, want: "10.64.16.0/20"},
		{name: "around an IPv4-mapped node address", pool: testPool(t, "10.64.0.0/16", 20, 24), addrs: []string{"::ffff:10.64.3.4"}, want: "10.64.16.0/20"},
		{name: "around exclusions", pool: testPool(t, "10.64.0.0/16", 20, 24, "10.64.0.0/18"), want: "10.64.64.0/20"},
		{
			name: "best fit: the smallest hole it fits, lowest first, keeping large space whole",
			pool: testPool(t, "10.64.0.0/16", 20, 24),
			// Free: 10.64.16.0/20 (a /20 hole) and 10.64.128.0/17.
			ranges: []known{{"10.64.0.0/20", 24}, {"10.64.32.0/19", 24}, {"10.64.64.0/18", 24}},
			want:   "10.64.16.0/20",
		},
		{name: "full pool", pool: testPool(t, "10.64.0.0/19", 20, 24), ranges: []known{{"10.64.0.0/20", 24}, {"10.64.16.0/20", 24}}},
		{name: "only smaller holes", pool: testPool(t, "10.64.0.0/19", 20, 24), svcs: []string{"10.64.0.0/24", "10.64.16.0/24"}},
		{name: "IPv6", pool: testPool(t, "fd00:10::/48", 56, 64), ranges: []known{{"fd00:10::/56", 64}}, want: "fd00:10:0:100::/56"},
		{name: "IPv4 ranges do not occupy an IPv6 pool", pool: testPool(t, "fd00:10::/48", 56, 64), ranges: []known{{"10.64.0.0/16", 24}}, want: "fd00:10::/56"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpace(t, tc.svcs, tc.addrs, tc.ranges...)
			got, ok := s.carve(&tc.pool)
			if tc.want == "" {
				if ok {
					t.Errorf("carved %s, want no room", got)
				}
				return
			}
			if !ok || got != mp(tc.want) {
				t.Errorf("carved %s (%v), want %s", got, ok, tc.want)
			}
		})
	}
}

func TestExpansion(t *testing.T) {
	pool := testPool(t, "10.64.0.0/14", 20, 24, "10.67.0.0/16")
	tests := []struct {
		name   string
		r      string
		svcs   []string
		addrs  []string
		ranges []known
		want   string // "" when it cannot expand
	}{
		{name: "lower half", r: "10.64.0.0/20", ranges: []known{{"10.64.0.0/20", 24}}, want: "10.64.0.0/19"},
		{name: "upper half", r: "10.64.16.0/20", ranges: []known{{"10.64.16.0/20", 24}}, want: "10.64.0.0/19"},
		{name: "over nested ranges of the same nodeMaskSize in any phase", r: "10.64.0.0/19", ranges: []known{{"10.64.0.0/19", 24}, {"10.64.0.0/20", 24}, {"10.64.32.0/20", 24}}, want: "10.64.0.0/18"},
		{name: "not over a range of another nodeMaskSize", r: "10.64.0.0/20", ranges: []known{{"10.64.0.0/20", 24}, {"10.64.16.0/22", 26}}},
		{name: "not over a range that would contain it", r: "10.64.0.0/20", ranges: []known{{"10.64.0.0/20", 24}, {"10.64.0.0/19", 24}}},
		{name: "not over a ServiceCIDR in the other half", r: "10.64.0.0/20", svcs: []string{"10.64.20.0/24"}},
		{name: "not over a node address in the other half", r: "10.64.0.0/20", addrs: []string{"10.64.31.1"}},
		{name: "not over an exclusion", r: "10.66.0.0/16", ranges: []known{{"10.66.0.0/16", 24}}},
		{name: "not beyond the pool", r: "10.64.0.0/14", ranges: []known{{"10.64.0.0/14", 24}}},
		{name: "a range outside the pool", r: "10.80.0.0/20", ranges: []known{{"10.80.0.0/20", 24}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpace(t, tc.svcs, tc.addrs, tc.ranges...)
			got, ok := s.expansion(&pool, mp(tc.r))
			if tc.want == "" {
				if ok {
					t.Errorf("expanded to %s, want no expansion", got)
				}
				return
			}
			if !ok || got != mp(tc.want) {
				t.Errorf("expanded to %s (%v), want %s", got, ok, tc.want)
			}
		})
	}
	// nodeMaskSize at most 24 bits longer: a /5 of /30 blocks is refused.
	wide := testPool(t, "8.0.0.0/5", 7, 30)
	if got, ok := testSpace(t, nil, nil).expansion(&wide, mp("8.0.0.0/6")); ok {
		t.Errorf("expanded to %s, a range of more than 2^24 blocks", got)
	}
}
