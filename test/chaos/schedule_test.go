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
	"net/netip"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

func TestScheduleIsReproducible(t *testing.T) {
	for _, cfg := range []Config{Short(1), Short(2), Long(1)} {
		p := Schedule(cfg)
		if !reflect.DeepEqual(p, Schedule(cfg)) {
			t.Fatalf("%s seed %d: two schedules differ", cfg.Name, cfg.Seed)
		}
		want := map[Kind]int{KillLeader: cfg.LeaderKills, KillStandby: cfg.StandbyKills, PauseLeader: cfg.LeaderPauses,
			RestartAPIServer: cfg.APIServerRestarts, RestartEtcd: cfg.EtcdRestarts}
		if got := p.Counts(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s seed %d: faults %v, want %v", cfg.Name, cfg.Seed, got, want)
		}
		for i, f := range p.Faults {
			if f.At < 0 || f.At > cfg.FaultWindow || (i > 0 && f.At < p.Faults[i-1].At) {
				t.Errorf("%s seed %d: fault %d at %s, out of order or outside the %s window", cfg.Name, cfg.Seed, i, f.At, cfg.FaultWindow)
			}
			if f.Kind == PauseLeader && f.Pause <= LeaseDuration {
				t.Errorf("%s seed %d: a pause of %s does not outlast the %s lease", cfg.Name, cfg.Seed, f.Pause, LeaseDuration)
			}
		}
		waves, edits := 0, 0
		for _, s := range p.Steps {
			if s.Wave > 0 {
				waves++
			} else {
				edits++
			}
		}
		if want := len(rangeScript) + len(policyEdits(cfg)); waves != cfg.Waves || edits != want {
			t.Errorf("%s seed %d: %d waves and %d edits, want %d and %d", cfg.Name, cfg.Seed, waves, edits, cfg.Waves, want)
		}
	}
	if reflect.DeepEqual(Schedule(Short(1)).Faults, Schedule(Short(2)).Faults) {
		t.Error("seeds 1 and 2 schedule the same faults")
	}
}

func TestRangeScriptEndsWithEveryRange(t *testing.T) {
	for _, tc := range []struct {
		families Families
		want     []string
	}{
		{IPv4, []string{"a", "ab", "b", "c"}},
		{IPv6, []string{"a6", "ab6", "b6", "c6"}},
		{DualStack, []string{"a", "a6", "ab", "ab6", "b", "b6", "c", "c6"}},
	} {
		cfg := Short(1)
		cfg.Families = tc.families
		got := cfg.finalRangeNames()
		slices.Sort(got)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: ranges after the script: %v, want %v", tc.families, got, tc.want)
		}
	}
}

// TestIPv6TwinsMirrorTheIPv4Ranges: each IPv6 twin has as many blocks as
// its IPv4 range, a supernet stays a supernet and c and the pool stay
// apart, for the block sizes of both configurations.
func TestIPv6TwinsMirrorTheIPv4Ranges(t *testing.T) {
	for _, cfg := range []Config{Short(1), Long(1)} {
		blocks := func(name string) int {
			p := cfg.rangePrefix(name)
			if p.Addr().Is6() {
				return 1 << (ipv6NodeMaskSize - p.Bits())
			}
			return 1 << (int(cfg.NodeMaskSize) - p.Bits())
		}
		for _, n := range []string{"a", "b", "ab", "c"} {
			if blocks(n) != blocks(n+"6") {
				t.Errorf("%s: %s has %d blocks, %s6 %d", cfg.Name, n, blocks(n), n, blocks(n+"6"))
			}
			if r := cfg.specRange(n + "6"); r.NodeMaskSize != ipv6NodeMaskSize || !netip.MustParsePrefix(r.CIDR).Addr().Is6() {
				t.Errorf("%s: %s6 is %+v", cfg.Name, n, r)
			}
		}
		ab := cfg.rangePrefix("ab6")
		if !ab.Contains(cfg.rangePrefix("a6").Addr()) || !ab.Contains(cfg.rangePrefix("b6").Addr()) || ab.Overlaps(cfg.rangePrefix("c6")) {
			t.Errorf("%s: ab6 %s does not cover a6 and b6 alone", cfg.Name, ab)
		}
		pool := twin6(netip.MustParsePrefix(poolCIDR4), cfg.NodeMaskSize)
		for _, n := range []string{"ab6", "c6"} {
			if pool.Overlaps(cfg.rangePrefix(n)) {
				t.Errorf("%s: the IPv6 pool %s overlaps %s", cfg.Name, pool, n)
			}
		}
	}
	if got := Short(1).rangePrefix("b6").String(); got != "fd00:c4a0:0:80::/57" {
		t.Errorf("b6 of the short run is %s", got)
	}
}

// TestNodeClasses: a dual-stack run with the autoscaler and the adapters
// has IPv4-only, IPv6-only, pool and adapter nodes, a tenth each but the
// adapters' few dozen, and the ranges select them by family.
func TestNodeClasses(t *testing.T) {
	for _, cfg := range []Config{Short(1), Long(1)} {
		counts := map[string]int{}
		for i := range poolSize(cfg) {
			l := nodeLabels(cfg, i)
			counts[l[familyLabel]+"/"+l[poolLabel]+"/"+l[adapterLabel]]++
		}
		n := poolSize(cfg)
		if counts["IPv4//"] != n/10 || counts["IPv6//"] != n/10 || counts["/auto/"] != n/10 {
			t.Errorf("%s: node classes %v", cfg.Name, counts)
		}
		if a := counts["//true"]; a < cfg.AdapterNodes || a > cfg.AdapterNodes+cfg.AdapterNodes/2 {
			t.Errorf("%s: %d adapter node names, want about %d", cfg.Name, a, cfg.AdapterNodes)
		}
		v4 := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: nodeLabels(cfg, 1)}}
		v6 := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: nodeLabels(cfg, 2)}}
		for _, tc := range []struct {
			rng  string
			node *corev1.Node
			want bool
		}{{"a", v4, true}, {"a6", v4, false}, {"a", v6, false}, {"a6", v6, true}} {
			sel := cfg.specRange(tc.rng).NodeSelector
			got, err := nodeaffinity.NewLazyErrorNodeSelector(sel).Match(tc.node)
			if err != nil || got != tc.want {
				t.Errorf("%s: range %s matches node %v: %v (%v), want %v", cfg.Name, tc.rng, tc.node.Labels, got, err, tc.want)
			}
		}
	}
}

// TestPolicyPhases: the short run's waves fall under Wait (the first four,
// the third full), ReuseOldest (the fifth, full, while c is out of the
// spec) and a delay of 0 (the sixth); the long run's under Wait (1-6),
// ReuseOldest (7-8, the seventh full) and a delay of 0 (9-10); no wave
// shares its time with a policy edit.
func TestPolicyPhases(t *testing.T) {
	for _, tc := range []struct {
		cfg                Config
		reuseOldest, final int // the waves under ReuseOldest, the last wave
	}{
		{Short(1), 5, 6},
		{Long(1), 7, 10},
	} {
		testPolicyPhases(t, tc.cfg, tc.reuseOldest, tc.final)
	}
}

// testPolicyPhases checks one configuration: the waves before reuseOldest
// under Wait with 10s, reuseOldest (full, c out of the spec) and the waves
// up to the middle of the rest under ReuseOldest, the others with a delay
// of 0.
func testPolicyPhases(t *testing.T, cfg Config, reuseOldest, last int) {
	t.Helper()
	p := Schedule(cfg)
	policy := "Wait 10s"
	phases := map[int]string{}
	var full []int
	cOut := false
	for _, s := range p.Steps {
		switch s.Edit {
		case ReuseOldest:
			policy = "ReuseOldest"
		case ZeroDelay:
			policy = "Wait 0s"
		case RemoveC:
			cOut = true
		case ReaddC:
			cOut = false
		}
		if s.WaitServed != (s.Wave == reuseOldest) {
			t.Errorf("%s: step %+v: only wave %d, the first under ReuseOldest, waits for its nodes to be served", cfg.Name, s, reuseOldest)
		}
		if s.Wave > 0 {
			phases[s.Wave] = policy
			if s.Full {
				full = append(full, s.Wave)
				if policy == "ReuseOldest" && !cOut {
					t.Errorf("the full wave under ReuseOldest comes while c is in the spec")
				}
			}
		}
	}
	want := map[int]string{}
	for w := 1; w <= last; w++ {
		switch {
		case w < reuseOldest:
			want[w] = "Wait 10s"
		case w >= last-(last-reuseOldest)/2 && w > reuseOldest:
			want[w] = "Wait 0s"
		default:
			want[w] = "ReuseOldest"
		}
	}
	if !reflect.DeepEqual(phases, want) {
		t.Errorf("%s: waves by policy: %v, want %v", cfg.Name, phases, want)
	}
	for _, e := range p.Steps {
		if e.Edit != ReuseOldest && e.Edit != ZeroDelay {
			continue
		}
		for _, w := range p.Steps {
			if w.Wave > 0 && w.At == e.At {
				t.Errorf("%s: wave %d and %q both at %s: which comes first is an accident", cfg.Name, w.Wave, e.Edit, e.At)
			}
		}
	}
	if middle := (cfg.Waves + 1) / 2; !reflect.DeepEqual(full, []int{middle, reuseOldest}) {
		t.Errorf("%s: full waves %v, want [%d %d]", cfg.Name, full, middle, reuseOldest)
	}
}

func TestWithoutNetworkCondition(t *testing.T) {
	stage := "conditions:\n{{ range NodeConditions }}\n- type: {{ .type }}\n{{ end }}\n{{ range .status.addresses }}{{ end }}\n"
	got, err := withoutNetworkCondition(stage + "---\n" + stage)
	if err != nil {
		t.Fatal(err)
	}
	want := "conditions:\n{{ range NodeConditions }}{{ if ne .type \"NetworkUnavailable\" }}\n- type: {{ .type }}\n{{ end }}{{ end }}\n{{ range .status.addresses }}{{ end }}\n"
	if got != want+"---\n"+want {
		t.Errorf("got\n%s", got)
	}
	if _, err := withoutNetworkCondition(stage); err == nil {
		t.Error("one loop over NodeConditions passed: kwok's stages changed shape unnoticed")
	}
}

// TestAutoscalingPools: the pools lie beside every range, carve ranges of
// their own block size, and select their nodes more specifically than the
// admin's ranges, in both configurations.
func TestAutoscalingPools(t *testing.T) {
	for _, cfg := range []Config{Short(1), Long(1)} {
		a := autoscaling(cfg)
		if a.Mode != "Auto" || len(a.Pools) != 2 {
			t.Fatalf("%s: autoscaling %+v, want Auto with a pool per family", cfg.Name, a)
		}
		for _, p := range a.Pools {
			pool := netip.MustParsePrefix(p.CIDR)
			for _, n := range []string{"a", "b", "ab", "c", "a6", "b6", "ab6", "c6"} {
				if pool.Overlaps(cfg.rangePrefix(n)) {
					t.Errorf("%s: pool %s overlaps range %s", cfg.Name, p.Name, n)
				}
			}
			if int(p.RangePrefixLength) < pool.Bits() || p.NodeMaskSize < p.RangePrefixLength || p.NodeMaskSize-p.RangePrefixLength > 24 {
				t.Errorf("%s: pool %s: cidr %s, ranges /%d of /%d blocks", cfg.Name, p.Name, p.CIDR, p.RangePrefixLength, p.NodeMaskSize)
			}
			rng := cfg.specRange(map[bool]string{true: "a6", false: "a"}[pool.Addr().Is6()])
			if got, admin := len(p.NodeSelector.NodeSelectorTerms[0].MatchExpressions), len(rng.NodeSelector.NodeSelectorTerms[0].MatchExpressions); got <= admin {
				t.Errorf("%s: pool %s selects with %d requirements, the admin's %s with %d", cfg.Name, p.Name, got, rng.Name, admin)
			}
		}
	}
}
