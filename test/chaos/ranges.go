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

package chaos

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

// The ranges of a run, named as in IPv4. "ab" is the supernet that expands
// "a" and "b" in place; "c" is drained by deleting its nodes. Each has an
// IPv6 twin named with a "6" ("a6", "ab6"): Families picks which a run
// declares, and every edit of the script applies to both twins.
var rangeCIDRs = map[string]string{
	"a":  "10.128.0.0/16",
	"b":  "10.129.0.0/16",
	"ab": "10.128.0.0/15",
	"c":  "10.130.0.0/16",
}

// poolCIDR4 is the autoscaler's IPv4 pool, beside the ranges (its IPv6
// twin is the /16 slot after c's): the adapters' covering prefix of every
// range and pool stays 10.128.0.0/14 (and its IPv6 twin).
const poolCIDR4 = "10.131.0.0/16"

// ipv6Base holds the IPv6 twins: fd00:c4a0::/48, /64 blocks.
var ipv6Base = netip.MustParsePrefix("fd00:c4a0::/48")

// ipv6NodeMaskSize is the block size of every IPv6 range and pool.
const ipv6NodeMaskSize = 64

// twin6 returns the IPv6 twin of an IPv4 prefix inside 10.128.0.0/14 for
// IPv4 blocks of nodeMaskSize: the same number of /64 blocks, laid out the
// same way (a /16 of 2^k blocks is a /(64-k), the j-th /16 of 10.128.0.0/14
// starts at block j*2^k), so a supernet stays a supernet and the IPv6
// ranges exhaust like the IPv4 ones.
func twin6(p4 netip.Prefix, nodeMaskSize int32) netip.Prefix {
	k := int(nodeMaskSize) - 16 // block bits of a /16
	a := p4.Addr().As4()
	j := uint16(a[1]-128) << k //nolint:gosec // j < 4, k <= 14
	b := ipv6Base.Addr().As16()
	b[6], b[7] = byte(j>>8), byte(j)
	return netip.PrefixFrom(netip.AddrFrom16(b), 64-k-(16-p4.Bits()))
}

// Families are the IP families of a run's ranges.
type Families string

// The families a configuration may declare.
const (
	IPv4      Families = "IPv4"
	IPv6      Families = "IPv6"
	DualStack Families = "DualStack"
)

// ParseFamilies reads IPv4, IPv6 or DualStack.
func ParseFamilies(s string) (Families, error) {
	for _, f := range []Families{IPv4, IPv6, DualStack} {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown families %q (IPv4, IPv6 or DualStack)", s)
}

func (f Families) has4() bool { return f != IPv6 }
func (f Families) has6() bool { return f != IPv4 }

// Labels of the nodes (storm.go gives them by name, nodeClass): a
// single-family node of a dual-stack run, a node of the autoscaler's pools,
// a node the adapters' DaemonSets run on.
const (
	familyLabel  = "chaos.podnetwork.io/family"
	poolLabel    = "chaos.podnetwork.io/pool"
	poolValue    = "auto"
	adapterLabel = "chaos.podnetwork.io/adapters"
)

// familySelector is the nodeSelector of a range of family in a dual-stack
// run: every node but those of the other family alone. Single-family runs
// select every node.
func familySelector(families Families, ipv6 bool) *corev1.NodeSelector {
	if families != DualStack {
		return nil
	}
	other := string(IPv6)
	if ipv6 {
		other = string(IPv4)
	}
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: familyLabel, Operator: corev1.NodeSelectorOpNotIn, Values: []string{other}},
	}}}}
}

// initialRanges are in the spec when the run starts.
var initialRanges = []string{"a", "c"}

// RangeEdit is one change of the PodNetwork spec, as an admin would make
// it: of spec.ranges, or of spec.allocation.
type RangeEdit string

// The edits, in the order the script makes them.
const (
	AddB    RangeEdit = "add b"
	Expand  RangeEdit = "expand a and b into ab"
	RemoveC RangeEdit = "remove c"
	RemoveA RangeEdit = "remove a (covered by ab)"
	ReaddA  RangeEdit = "re-add a"
	ReaddC  RangeEdit = "re-add c"
	// ReuseOldest sets whenExhausted ReuseOldest: a node that finds every
	// free block quarantined gets the one freed longest ago at once.
	ReuseOldest RangeEdit = "whenExhausted ReuseOldest"
	// ZeroDelay sets whenExhausted back to Wait with recycleDelaySeconds 0:
	// a freed block is reusable at once.
	ZeroDelay RangeEdit = "whenExhausted Wait, recycleDelaySeconds 0"
)

// rangeScript places the edits in the fault window: every range lifecycle
// path (added, activated, expanded by a supernet, drained by replacing
// nodes, released without replacing any because a supernet covers it,
// re-added while draining or after being purged) happens under faults.
var rangeScript = []scriptedEdit{
	{0.12, AddB},
	{0.25, Expand},
	{0.40, RemoveC},
	{0.50, RemoveA},
	{0.65, ReaddA},
	{0.9, ReaddC},
}

// scriptedEdit is an edit at a fraction of the fault window.
type scriptedEdit struct {
	fraction float64
	edit     RangeEdit
}

// policyEdits are the allocation policy's edits of a configuration, at
// its ReuseOldestAt and ZeroDelayAt.
func policyEdits(cfg Config) []scriptedEdit {
	var out []scriptedEdit
	if cfg.ReuseOldestAt > 0 {
		out = append(out, scriptedEdit{cfg.ReuseOldestAt, ReuseOldest})
	}
	if cfg.ZeroDelayAt > 0 {
		out = append(out, scriptedEdit{cfg.ZeroDelayAt, ZeroDelay})
	}
	return out
}

// ranges names the ranges of the run: the IPv4 name, its IPv6 twin, or
// both.
func (cfg Config) ranges(name string) []string {
	var out []string
	if cfg.Families.has4() {
		out = append(out, name)
	}
	if cfg.Families.has6() {
		out = append(out, name+"6")
	}
	return out
}

// edited returns the spec ranges after edit (the policy edits change
// none).
func (cfg Config) edited(ranges []v1alpha1.PodCIDRRange, edit RangeEdit) []v1alpha1.PodCIDRRange {
	add := func(name string) {
		for _, n := range cfg.ranges(name) {
			if !slices.ContainsFunc(ranges, func(r v1alpha1.PodCIDRRange) bool { return r.Name == n }) {
				ranges = append(ranges, cfg.specRange(n))
			}
		}
	}
	remove := func(name string) {
		for _, n := range cfg.ranges(name) {
			ranges = slices.DeleteFunc(ranges, func(r v1alpha1.PodCIDRRange) bool { return r.Name == n })
		}
	}
	switch edit {
	case AddB:
		add("b")
	case Expand:
		add("ab")
	case RemoveC:
		remove("c")
	case RemoveA:
		remove("a")
	case ReaddA:
		add("a")
	case ReaddC:
		add("c")
	}
	return ranges
}

// rangePrefix returns the CIDR of range name ("a" or its twin "a6").
func (cfg Config) rangePrefix(name string) netip.Prefix {
	if base, ok := strings.CutSuffix(name, "6"); ok {
		return twin6(netip.MustParsePrefix(rangeCIDRs[base]), cfg.NodeMaskSize)
	}
	return netip.MustParsePrefix(rangeCIDRs[name])
}

// specRange returns range name as the spec declares it.
func (cfg Config) specRange(name string) v1alpha1.PodCIDRRange {
	p := cfg.rangePrefix(name)
	mask := cfg.NodeMaskSize
	if p.Addr().Is6() {
		mask = ipv6NodeMaskSize
	}
	w := framework.Range(name, p.String()).NodeMaskSize(mask)
	if sel := familySelector(cfg.Families, p.Addr().Is6()); sel != nil {
		w = w.NodeSelector(sel)
	}
	return w.Obj()
}

// initialSpec returns the ranges the run starts with.
func (cfg Config) initialSpec() []v1alpha1.PodCIDRRange {
	var out []v1alpha1.PodCIDRRange
	for _, n := range initialRanges {
		for _, name := range cfg.ranges(n) {
			out = append(out, cfg.specRange(name))
		}
	}
	return out
}

// finalRangeNames are the spec ranges once the script has run.
func (cfg Config) finalRangeNames() []string {
	ranges := cfg.initialSpec()
	for _, s := range rangeScript {
		ranges = cfg.edited(ranges, s.edit)
	}
	names := make([]string, 0, len(ranges))
	for _, r := range ranges {
		names = append(names, r.Name)
	}
	return names
}
