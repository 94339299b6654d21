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
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// report renders the results as Markdown.
type report struct {
	results []result
	cache   *cacheResult
	args    []string
	wall    time.Duration
	machine string
	// sessions is how many benchmark processes made the results, runWall
	// the time their runs took in all, resultsPath the file they are in.
	sessions    int
	runWall     time.Duration
	resultsPath string
	// network says what a scenario ran on; nil leaves it unsaid.
	network func(scenario) network
}

func (rep report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %s.\n\n", rep.machine)
	if rep.sessions > 1 {
		fmt.Fprintf(&b, "Command: `bin/bench/nodecidr %s`, resumed: the results of %d sessions in `%s` (their runs took %s in all; this session %s).\n\n",
			strings.Join(rep.args, " "), rep.sessions, filepath.Base(rep.resultsPath), rep.runWall.Round(time.Second), rep.wall.Round(time.Second))
	} else {
		fmt.Fprintf(&b, "Command: `bin/bench/nodecidr %s` (wall time %s).\n\n", strings.Join(rep.args, " "), rep.wall.Round(time.Second))
	}
	b.WriteString(rep.mainMarkdown())
	b.WriteString(rep.baselineComparison())
	b.WriteString(rep.scaleMarkdown())
	if rep.cache != nil {
		b.WriteString(rep.cache.markdown())
	}
	return b.String()
}

// mainMarkdown is the table of the bursts and the steady arrival (with the
// dual-stack burst), its legend and the goals; nothing if none ran.
func (rep report) mainMarkdown() string {
	if len(rep.mainRows()) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| arrival | allocator | QPS/burst | writes in flight | created s | total s | nodes/s | p50 ms | p99 ms | CPU s | peak RSS MiB | API writes/node | ours ÷ kcm | ÷ limit |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rep.mainRows() {
		q, bu := r.config.limits()
		limits := "unthrottled"
		if q > 0 {
			limits = fmt.Sprintf("%d/%d", q, bu)
		}
		allocator := string(r.config.kind)
		if r.config.baseline {
			allocator += " (baseline)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | ", r.scenario, allocator, limits, r.config.concurrency())
		switch {
		case r.skip != "":
			fmt.Fprintf(&b, "%s | | | | | | | | | |\n", r.skip)
		case len(r.runs) == 0 && r.err != nil:
			fmt.Fprintf(&b, "failed: %s | | | | | | | | | |\n", strings.ReplaceAll(r.err.Error(), "\n", " "))
		default:
			ms := func(d func(result) time.Duration) func(result) float64 {
				return func(x result) float64 { return float64(d(x).Milliseconds()) }
			}
			fmt.Fprintf(&b, "%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |",
				r.cell("%.1f", func(x result) float64 { return x.created.Seconds() }),
				r.cell("%.1f", func(x result) float64 { return x.total.Seconds() }),
				r.cell("%.0f", result.rate),
				r.cell("%.0f", ms(func(x result) time.Duration { return x.p50 })),
				r.cell("%.0f", ms(func(x result) time.Duration { return x.p99 })),
				r.cell("%.2f", func(x result) float64 { return x.cpuSeconds }),
				r.cell("%.0f", func(x result) float64 { return x.peakRSSMiB }),
				r.cell("%.2f", func(x result) float64 { return x.writes / float64(x.scenario.nodes) }),
				rep.vsKCM(r), rep.vsLimit(r))
			if len(r.failed) > 0 {
				fmt.Fprintf(&b, " (%d of %d runs failed: %s)", len(r.failed), len(r.failed)+len(r.runs),
					strings.ReplaceAll(r.failed[0].err.Error(), "\n", " "))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	b.WriteString("created: first create call → last create call returned (the load generator keeps 16 in flight); " +
		"total: first create call → last node seen with podCIDRs; nodes/s = N ÷ total; latency: a node's ADDED watch event → " +
		"its first watch event with podCIDRs; CPU: the allocator process's user+system seconds during the run; peak RSS: its VmHWM; " +
		"API writes/node: the apiserver's write requests during the run (apiserver_request_total) other than the node creations, per node. " +
		"ours ÷ kcm compares nodes/s at equal client limits (the operator's defaults against kube-controller-manager's); " +
		"÷ limit compares nodes/s with the limit client at the same number of writes in flight. " +
		"The limit client's CPU and RSS are those of a bare client-go process.")
	if rep.network != nil {
		for _, r := range rep.mainRows() {
			if r.scenario.dualStack {
				nw := rep.network(r.scenario)
				fmt.Fprintf(&b, " dual-stack: every node gets a /%d of %s and a /%d of %s in one write; kube-controller-manager runs with "+
					"--cluster-cidr=%s,%s --node-cidr-mask-size-ipv4=%d --node-cidr-mask-size-ipv6=%d, the operator with one range per family.",
					nw.v4Mask, nw.v4, nw.v6Mask, nw.v6, nw.v4, nw.v6, nw.v4Mask, nw.v6Mask)
				break
			}
		}
	}
	b.WriteString("\n\n")
	b.WriteString(rep.goals())
	return b.String()
}

// rows are the results summarized per scenario and configuration.
func (rep report) rows() []row { return summarize(rep.results) }

// mainRows are the rows of the main table: all but the scale point's,
// which has its own.
func (rep report) mainRows() []row {
	return slices.DeleteFunc(rep.rows(), func(r row) bool { return r.scenario.existing > 0 })
}

// find returns the row of the scenario that matches and had a successful run.
func (rep report) find(s scenario, match func(config) bool) (row, bool) {
	for _, r := range rep.rows() {
		if r.scenario == s && len(r.runs) > 0 && match(r.config) {
			return r, true
		}
	}
	return row{}, false
}

// kcmPeer is the kube-controller-manager run an operator run is compared
// with: the same client limits, or for the operator's defaults,
// kube-controller-manager's defaults.
func (rep report) kcmPeer(r row) (row, bool) {
	return rep.find(r.scenario, func(c config) bool {
		if c.kind != kindKCM {
			return false
		}
		if r.config.qps == 0 {
			return c.qps == 0
		}
		q, b := c.limits()
		rq, rb := r.config.limits()
		return q == rq && b == rb
	})
}

func (rep report) vsKCM(r row) string {
	if r.config.kind != kindOurs {
		return ""
	}
	k, ok := rep.kcmPeer(r)
	if !ok || k.rate() == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", r.rate()/k.rate())
}

func (rep report) vsLimit(r row) string {
	if r.config.kind == kindLimit {
		return ""
	}
	l, ok := rep.find(r.scenario, func(c config) bool { return c.kind == kindLimit && c.writers == r.config.concurrency() })
	if !ok || l.rate() == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", r.rate()/l.rate())
}

// goals reports the end-to-end goals against what was measured.
// They are reported, never asserted: the exit status does not depend on
// them.
func (rep report) goals() string {
	var b strings.Builder
	b.WriteString("Goals (reported, not asserted):\n\n")
	rows := rep.mainRows()
	for _, r := range rows {
		if r.config.kind != kindOurs || len(r.runs) == 0 {
			continue
		}
		if k, ok := rep.kcmPeer(r); ok && r.config.qps != 0 && r.scenario.rate == 0 {
			ratio := r.rate() / k.rate()
			verdict := met(ratio >= 1)
			if ratio < 1 && ratio >= 1-equalTolerance {
				verdict = "met (equal within the measurement's resolution)"
			}
			fmt.Fprintf(&b, "- %s, %s: throughput ≥ kube-controller-manager's at equal limits: %.2f× — %s\n",
				r.scenario, r.config, ratio, verdict)
		}
		if !r.config.throttled() && r.scenario.rate == 0 {
			var best row
			for _, l := range rows {
				if l.config.kind == kindLimit && l.scenario == r.scenario && len(l.runs) > 0 && l.rate() > best.rate() {
					best = l
				}
			}
			// The goal is about an unthrottled allocator: one whose client
			// limits would have let it write every node as fast as the limit
			// client did.
			if best.rate() > 0 && r.config.allows(r.scenario.nodes, best.total) {
				fmt.Fprintf(&b, "- %s, %s: ≥ 70%% of the raw write limit (best limit run, %s): %.0f%% — %s\n",
					r.scenario, r.config, best.config, 100*r.rate()/best.rate(), met(r.rate() >= 0.7*best.rate()))
			}
		}
		if r.scenario.rate >= 100 {
			fmt.Fprintf(&b, "- %s, %s: p99 latency under 1 s: %d ms — %s\n",
				r.scenario, r.config, r.p99.Milliseconds(), met(r.p99 < time.Second))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// equalTolerance is how far below 1 a throughput ratio still counts as
// equal: two allocators bound by the same client rate limit finish within a
// token or two of each other, and the total is read from watch events.
const equalTolerance = 0.02

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

// describeMachine says what the numbers were measured on.
func describeMachine() string {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	mem := "unknown memory"
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(data), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf("%.1f GiB memory", float64(kb)/(1<<20))
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	load, _ := os.ReadFile("/proc/loadavg")
	return fmt.Sprintf("%d CPUs (%s), %s, Linux %s, %s, load average at the end %s",
		runtime.NumCPU(), model, mem, strings.TrimSpace(string(kernel)), runtime.Version(),
		strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
}

// Markers of the generated block in the documentation.
const (
	beginMarker = "<!-- nodecidr:begin (generated by bin/bench/nodecidr -doc) -->"
	endMarker   = "<!-- nodecidr:end -->"
)

// replaceGenerated replaces the text between the markers in path.
func replaceGenerated(path, text string) error {
	return replaceBlock(path, text, beginMarker, endMarker)
}

// replaceBlock replaces the text between beginMarker and endMarker in path.
func replaceBlock(path, text, beginMarker, endMarker string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	begin := bytes.Index(data, []byte(beginMarker))
	end := bytes.Index(data, []byte(endMarker))
	if begin < 0 || end < begin {
		return fmt.Errorf("%s has no %q … %q block", path, beginMarker, endMarker)
	}
	var out bytes.Buffer
	out.Write(data[:begin+len(beginMarker)])
	out.WriteString("\n\n" + text)
	out.Write(data[end:])
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
