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
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(101-i)*time.Millisecond)
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0.1, time.Millisecond}} {
		if got := percentile(ds, tc.q); got != tc.want {
			t.Errorf("percentile(1..100ms, %g) = %s, want %s", tc.q, got, tc.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil) = %s, want 0", got)
	}
}

func TestReplaceGenerated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	doc := "# Title\n\nintro\n\n" + beginMarker + "\n\nold table\n\n" + endMarker + "\n\nanalysis\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replaceGenerated(path, "new table\n\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# Title\n\nintro\n\n" + beginMarker + "\n\nnew table\n\n" + endMarker + "\n\nanalysis\n"
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if err := os.WriteFile(path, []byte("no markers"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replaceGenerated(path, "x"); err == nil {
		t.Error("replaceGenerated without markers succeeded")
	}
}

func TestCPUSecondsOfSelf(t *testing.T) {
	if _, err := cpuSeconds(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if kib, err := memoryKiB(os.Getpid(), "VmHWM"); err != nil || kib <= 0 {
		t.Fatalf("memoryKiB(self, VmHWM) = %d, %v", kib, err)
	}
}

func TestConfigAllows(t *testing.T) {
	for _, tc := range []struct {
		cfg  config
		n    int
		d    time.Duration
		want bool
	}{
		{config{kind: kindLimit}, 5000, time.Second, true},
		{config{kind: kindOurs, qps: 500, burst: 1000}, 1000, 0, true},
		{config{kind: kindOurs, qps: 500, burst: 1000}, 5000, 11 * time.Second, true},
		{config{kind: kindOurs, qps: 500, burst: 1000}, 5000, 5 * time.Second, false},
		{config{kind: kindOurs, qps: 100, burst: 200}, 1000, 2 * time.Second, false},
		{config{kind: kindKCM}, 1000, 2 * time.Second, false},
	} {
		if got := tc.cfg.allows(tc.n, tc.d); got != tc.want {
			t.Errorf("%v allows %d writes in %v = %v, want %v", tc.cfg, tc.n, tc.d, got, tc.want)
		}
	}
}

func TestReportSections(t *testing.T) {
	run := func(s scenario, c config, total time.Duration) result {
		return result{planned: planned{scenario: s, config: c, rep: 1}, total: total, peakRSSMiB: 50, steadyRSSMiB: 40, firstAlloc: time.Second}
	}
	kcm, ours := config{kind: kindKCM, qps: 500, burst: 1000}, config{kind: kindOurs, qps: 500, burst: 1000}
	burst, dual, scale := scenario{nodes: 200}, scenario{nodes: 300, dualStack: true}, scenario{nodes: 200, existing: 3000}
	b := &bench{clusterCIDR: netip.MustParsePrefix("10.128.0.0/9"), clusterCIDRv6: netip.MustParsePrefix("fd99::/48"),
		nodeMask: 24, opts: options{nodeMaskV6: 64}}
	tests := []struct {
		name       string
		rep        report
		want, none []string
	}{
		{
			name: "bursts only",
			rep:  report{results: []result{run(burst, kcm, time.Second), run(burst, ours, 2*time.Second)}, sessions: 1},
			want: []string{"| arrival |", "| burst 200 | ours | 500/1000 | 30 |", "0.50×", "Goals", "(wall time"},
			none: []string{"Scale:", "dual-stack:", "resumed"},
		},
		{
			name: "the scale point alone has no empty burst table",
			rep: report{results: []result{run(scale, kcm, time.Second), run(scale, ours, time.Second)}, network: b.networkFor,
				sessions: 3, resultsPath: "bin/bench/nodecidr.jsonl", runWall: time.Hour},
			want: []string{"Scale: a burst of 200 nodes onto 3000 nodes", "/24 blocks of 10.128.0.0/9", "| ours | 500/1000 |",
				"first allocation 1.00×", "resumed: the results of 3 sessions in `nodecidr.jsonl` (their runs took 1h0m0s in all"},
			none: []string{"| arrival |", "Goals", "as the cluster grows", "respectively"},
		},
		{
			name: "dual-stack in the burst table, with what it ran on",
			rep:  report{results: []result{run(dual, kcm, time.Second), run(dual, ours, time.Second)}, network: b.networkFor},
			want: []string{"| burst 300 dual-stack | ours |", "--cluster-cidr=10.128.0.0/9,fd99::/48 --node-cidr-mask-size-ipv4=24 --node-cidr-mask-size-ipv6=64",
				"burst 300 dual-stack, ours 500/1000: throughput ≥ kube-controller-manager's at equal limits: 1.00×"},
			none: []string{"Scale:"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			md := tc.rep.markdown()
			for _, w := range tc.want {
				if !strings.Contains(md, w) {
					t.Errorf("report lacks %q:\n%s", w, md)
				}
			}
			for _, n := range tc.none {
				if strings.Contains(md, n) {
					t.Errorf("report has %q:\n%s", n, md)
				}
			}
		})
	}
}

func TestScaleMarkdownWithTwoPoints(t *testing.T) {
	kcm, ours := config{kind: kindKCM, qps: 500, burst: 1000}, config{kind: kindOurs, qps: 500, burst: 1000}
	base := ours
	base.baseline = true
	small, large := scenario{nodes: 1000, existing: 1000}, scenario{nodes: 1000, existing: 100000}
	run := func(s scenario, c config, rep int, burstCPU float64) result {
		return result{planned: planned{scenario: s, config: c, rep: rep}, total: time.Second, firstAlloc: time.Second,
			steadyRSSMiB: 40, peakRSSMiB: 50, cpuSeconds: 3, burstCPUSeconds: burstCPU}
	}
	failed := run(large, base, 1, 0)
	failed.err = errTest
	b := &bench{clusterCIDR: netip.MustParsePrefix("10.128.0.0/9"), nodeMask: 24}
	rep := report{network: b.networkFor, results: []result{
		run(small, kcm, 1, 0.5), run(small, ours, 1, 0.4),
		run(large, kcm, 1, 0), // recorded before the burst's CPU was measured
		run(large, ours, 1, 0.9), failed,
		run(small, kcm, 2, 0.5), run(small, ours, 2, 0.6),
	}}
	md := rep.scaleMarkdown()
	for _, w := range []string{
		"Scale: a burst of 1000 nodes onto 1000 and 100000 nodes that already have podCIDRs (/24 and /26 blocks of 10.128.0.0/9 respectively,",
		"| existing nodes | allocator |", "| burst CPU ms/node |",
		"| 1000 | kcm | 500/1000 |", "| 3.00 (3.00–3.00) | 0.50 (0.50–0.50) |",
		"| 1000 | ours | 500/1000 |", "| 3.00 (3.00–3.00) | 0.50 (0.40–0.60) |",
		"| 100000 | kcm | 500/1000 |", "| 3.00 | – |",
		"| 100000 | ours | 500/1000 |", "| 3.00 | 0.90 |",
		"| 100000 | ours (baseline) | 500/1000 | failed: boom |",
		"- burst 1000 onto 1000, ours 500/1000 ÷ kcm: first allocation 1.00×, steady RSS 1.00×, peak RSS 1.00×, burst nodes/s 1.00×, burst CPU/node 1.00×\n",
		"- burst 1000 onto 100000, ours 500/1000 ÷ kcm: first allocation 1.00×, steady RSS 1.00×, peak RSS 1.00×, burst nodes/s 1.00×, burst CPU/node –\n",
		"- CPU per burst node as the cluster grows, kcm 500/1000: 0.50 ms onto 1000, – onto 100000 existing nodes; 100000 ÷ 1000: –\n",
		"- CPU per burst node as the cluster grows, ours 500/1000: 0.50 ms onto 1000, 0.90 ms onto 100000 existing nodes; 100000 ÷ 1000: 1.80×\n",
		"- CPU per burst node as the cluster grows, ours 500/1000 [baseline]: – onto 1000, – onto 100000 existing nodes; 100000 ÷ 1000: –\n",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("scale table lacks %q:\n%s", w, md)
		}
	}
	// Every row, a failed one too, has as many cells as the header.
	var cells []int
	for line := range strings.SplitSeq(md, "\n") {
		if strings.HasPrefix(line, "|") {
			cells = append(cells, strings.Count(line, "|"))
		}
	}
	if len(cells) != 2+5 || slices.Min(cells) != slices.Max(cells) {
		t.Errorf("table lines have %v cell separators, want 7 lines with equally many:\n%s", cells, md)
	}
}
