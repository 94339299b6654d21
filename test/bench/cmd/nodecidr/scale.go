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
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The scale points (-scale-nodes, one per existing node count): nodes that
// already have podCIDRs, as after a migration from kube-controller-manager,
// then the allocator starts (each in its own run) and a burst of new nodes
// arrives on top. Each reports how long the allocator takes to rebuild and
// to allocate for the first time, its resident memory once settled and at
// its peak, the burst's throughput and its CPU per node; several points
// show how that CPU grows with the cluster.

// seedLabel marks the scale point's existing nodes. The two allocators of a
// round share them; reset deletes every other node.
const seedLabel = "bench.podnetwork.io/existing"

// seedTimeout bounds creating or deleting the existing nodes: 100,000 take
// minutes either way on 2 cores.
const seedTimeout = 30 * time.Minute

// seed is the set of existing nodes the cluster holds: how many, with
// blocks of which size. The zero seed is none; nodes < 0 is unknown (a
// creation or deletion stopped half-way).
type seed struct {
	nodes, mask int
}

// ensureSeed makes the cluster hold the scenario's existing nodes and no
// others before a run: none for every run but the scale point's.
func (b *bench) ensureSeed(ctx context.Context, s scenario, nw network) error {
	want := seed{}
	if s.existing > 0 {
		want = seed{nodes: s.existing, mask: nw.v4Mask}
	}
	if b.seed == want {
		return nil
	}
	if b.seed != (seed{}) {
		progress("deleting the existing nodes of the scale point")
		b.seed = seed{nodes: -1}
		if err := deleteNodes(ctx, b.cs, ""); err != nil {
			return err
		}
		if err := b.compactEtcd(ctx); err != nil {
			return err
		}
		b.seed = seed{}
	}
	if want.nodes == 0 {
		return nil
	}
	progress("scale: creating %d nodes with podCIDRs (/%d blocks of %s, consecutively)", want.nodes, want.mask, nw.v4)
	b.seed = seed{nodes: -1}
	start := time.Now()
	if err := createNodesWith(ctx, b.cs, want.nodes, 0, func(i int) *corev1.Node { return seedNode(i, b.block(i, want.mask)) }); err != nil {
		return err
	}
	if err := b.compactEtcd(ctx); err != nil {
		return err
	}
	b.seed = want
	progress("scale: created in %s", time.Since(start).Round(time.Second))
	return nil
}

// seedNode is existing node i: a light node (as the bursts create) whose
// podCIDR is the i-th block, as kube-controller-manager left it. podCIDRs
// may be set on create.
func seedNode(i int, podCIDR string) *corev1.Node {
	n := newNode(nodeName("existing-", i))
	n.Labels[seedLabel] = "true"
	n.Spec.PodCIDR, n.Spec.PodCIDRs = podCIDR, []string{podCIDR}
	return n
}

// measureScale starts the allocator against the existing nodes with a
// canary node created as it starts, then, once its memory settled, creates
// the burst.
func (b *bench) measureScale(ctx context.Context, r *result, nw network, id string) error {
	if r.config.kind == kindOurs {
		// The admin declared the PodNetwork before the operator took over.
		if err := b.createPodNetwork(ctx, nw); err != nil {
			return err
		}
	}
	t0 := time.Now()
	proc, err := b.launch(r.config, nw, processName(id, r.config))
	if err != nil {
		return fmt.Errorf("starting %s: %w", r.config, err)
	}
	defer func() { _ = proc.Stop() }()
	if err := b.canary(ctx, "canary-"+id, b.opts.runTimeout); err != nil {
		return fmt.Errorf("%s (log: %s): %w", r.config, proc.LogPath(), err)
	}
	r.firstAlloc = time.Since(t0)
	if r.config.kind == kindOurs {
		// The operator logs its rebuild as it starts allocating; the line
		// may reach the log just after the canary got its block.
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			d, ok := loggedRebuild(proc.LogPath())
			r.rebuild = d
			return ok, nil
		})
		if err != nil {
			return fmt.Errorf("no rebuild in the operator log %s: %w", proc.LogPath(), err)
		}
	}
	settled := settle(proc, cacheUsage{})
	if settled.err != nil {
		return settled.err
	}
	r.steadyRSSMiB = settled.rssMiB

	prefix := id + "-"
	rec, err := startRecorder(ctx, b.cs, prefix, r.scenario.nodes)
	if err != nil {
		return err
	}
	writes0, err := b.apiWrites(ctx)
	if err != nil {
		return err
	}
	// The CPU at the burst's start: the CPU up to here is the start-up and
	// rebuild, which the burst's CPU per node must not include.
	cpu0, err := cpuSeconds(proc.Pid())
	if err != nil {
		return err
	}
	t1 := time.Now()
	if err := createNodes(ctx, b.cs, prefix, r.scenario.nodes, 0); err != nil {
		return err
	}
	r.created = time.Since(t1)
	if err := rec.wait(ctx); err != nil {
		return fmt.Errorf("%w (allocator log: %s)", err, proc.LogPath())
	}
	lat, last := rec.latencies()
	cpu, err := cpuSeconds(proc.Pid())
	if err != nil {
		return err
	}
	hwm, err := memoryKiB(proc.Pid(), "VmHWM")
	if err != nil {
		return err
	}
	writes1, err := b.apiWrites(ctx)
	if err != nil {
		return err
	}
	r.writes, r.writesBy = allocatorWrites(writes0, writes1)
	r.total, r.cpuSeconds, r.burstCPUSeconds, r.peakRSSMiB = last.Sub(t1), cpu, cpu-cpu0, float64(hwm)/1024
	r.p50, r.p99, r.max = percentile(lat, 50), percentile(lat, 99), percentile(lat, 100)
	return b.verify(ctx, r.config, r.scenario)
}

// scaleMarkdown renders the scale points' rows, if any: one table, a row
// per point and allocator, then each operator row against
// kube-controller-manager and, with several points, how the burst's CPU per
// node grows with the cluster.
func (rep report) scaleMarkdown() string {
	var rows []row
	for _, r := range rep.rows() {
		if r.scenario.existing > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(rep.scaleIntro(rows))
	b.WriteString("| existing nodes | allocator | QPS/burst | rebuild s | first allocation s | steady RSS MiB | peak RSS MiB | burst s | burst nodes/s | burst p99 ms | CPU s | burst CPU ms/node | API writes/node | ours ÷ kcm |\n")
	b.WriteString("|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		q, bu := r.config.limits()
		allocator := string(r.config.kind)
		if r.config.baseline {
			allocator += " (baseline)"
		}
		fmt.Fprintf(&b, "| %d | %s | %d/%d | ", r.scenario.existing, allocator, q, bu)
		if len(r.runs) == 0 {
			msg := "failed"
			if r.err != nil {
				msg += ": " + strings.ReplaceAll(r.err.Error(), "\n", " ")
			}
			fmt.Fprintf(&b, "%s | | | | | | | | | | |\n", msg)
			continue
		}
		rebuild := "–"
		if r.config.kind == kindOurs {
			rebuild = r.cell("%.1f", func(x result) float64 { return x.rebuild.Seconds() })
		}
		fmt.Fprintf(&b, "%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |",
			rebuild,
			r.cell("%.1f", func(x result) float64 { return x.firstAlloc.Seconds() }),
			r.cell("%.0f", func(x result) float64 { return x.steadyRSSMiB }),
			r.cell("%.0f", func(x result) float64 { return x.peakRSSMiB }),
			r.cell("%.1f", func(x result) float64 { return x.total.Seconds() }),
			r.cell("%.0f", result.rate),
			r.cell("%.0f", func(x result) float64 { return float64(x.p99.Milliseconds()) }),
			r.cell("%.2f", func(x result) float64 { return x.cpuSeconds }),
			spread("%.2f", r.burstCPUms()),
			r.cell("%.2f", func(x result) float64 { return x.writes / float64(x.scenario.nodes) }),
			rep.vsKCM(r))
		if len(r.failed) > 0 {
			fmt.Fprintf(&b, " (%d of %d runs failed: %s)", len(r.failed), len(r.failed)+len(r.runs),
				strings.ReplaceAll(r.failed[0].err.Error(), "\n", " "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nrebuild: the operator's own start-up rebuild from its log (\"rebuilt the node allocator from the API\"); " +
		"kube-controller-manager logs none. first allocation: the allocator process started → a canary node created as it started has podCIDRs " +
		"(the operator's PodNetwork existed before it started). steady RSS: VmRSS once the resident set grew less than 1% in 5 s, before the burst; " +
		"peak RSS: VmHWM at the end; burst: first create call → last burst node seen with podCIDRs; CPU: from the process start to the end of the burst; " +
		"burst CPU ms/node: the CPU from just before the burst's first create call to its end, per burst node " +
		"(– for runs recorded before it was measured). ours ÷ kcm compares the burst's nodes/s.\n\n")
	for _, r := range rows {
		if r.config.kind != kindOurs || len(r.runs) == 0 {
			continue
		}
		k, ok := rep.kcmPeer(r)
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "- %s, %s ÷ kcm: first allocation %s, steady RSS %s, peak RSS %s, burst nodes/s %s, burst CPU/node %s\n",
			r.scenario, r.config, ratio(r.firstAlloc.Seconds(), k.firstAlloc.Seconds()),
			ratio(r.steadyRSSMiB, k.steadyRSSMiB), ratio(r.peakRSSMiB, k.peakRSSMiB), ratio(r.rate(), k.rate()),
			medianRatio(r.burstCPUms(), k.burstCPUms()))
	}
	b.WriteString(cpuGrowth(rows))
	b.WriteString("\n")
	return b.String()
}

// scaleIntro says what the scale rows ran: the burst, the existing node
// counts and, when the report knows the network, their blocks.
func (rep report) scaleIntro(rows []row) string {
	var points []scenario
	for _, r := range rows {
		if !slices.ContainsFunc(points, func(s scenario) bool { return s.existing == r.scenario.existing }) {
			points = append(points, r.scenario)
		}
	}
	counts, masks := make([]string, len(points)), make([]string, len(points))
	for i, s := range points {
		counts[i] = strconv.Itoa(s.existing)
		if rep.network != nil {
			masks[i] = fmt.Sprintf("/%d", rep.network(s).v4Mask)
		}
	}
	out := fmt.Sprintf("Scale: a burst of %d nodes onto %s nodes that already have podCIDRs", points[0].nodes, joinAnd(counts))
	if rep.network != nil {
		blocks, respectively := masks[0], ""
		if slices.ContainsFunc(masks, func(m string) bool { return m != masks[0] }) {
			blocks, respectively = joinAnd(masks), " respectively"
		}
		out += fmt.Sprintf(" (%s blocks of %s%s, carved consecutively, as kube-controller-manager leaves them)", blocks, rep.network(points[0]).v4, respectively)
	}
	return out + ":\n\n"
}

// joinAnd joins items as a sentence lists them: "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// burstCPUms is the burst's CPU milliseconds per burst node in each run
// that measured it.
func (w row) burstCPUms() []float64 {
	var out []float64
	for _, r := range w.runs {
		if r.burstCPUSeconds > 0 {
			out = append(out, r.burstCPUSeconds*1000/float64(r.scenario.nodes))
		}
	}
	return out
}

// medianRatio is the ratio of the medians of a and b, or "–" when either
// has no value.
func medianRatio(a, b []float64) string {
	if len(a) == 0 || len(b) == 0 {
		return "–"
	}
	return ratio(medianOf(a), medianOf(b))
}

// cpuGrowth is, with several scale points, one line per allocator: the
// burst's median CPU per node onto each existing node count, smallest
// first, and the largest count's ÷ the smallest's, 1× when what a node's
// allocation costs does not depend on how many nodes there already are.
func cpuGrowth(rows []row) string {
	var counts []int
	var configs []config
	ms := map[config]map[int][]float64{}
	for _, r := range rows {
		if !slices.Contains(counts, r.scenario.existing) {
			counts = append(counts, r.scenario.existing)
		}
		if ms[r.config] == nil {
			configs = append(configs, r.config)
			ms[r.config] = map[int][]float64{}
		}
		ms[r.config][r.scenario.existing] = r.burstCPUms()
	}
	if len(counts) < 2 {
		return ""
	}
	slices.Sort(counts)
	lo, hi := counts[0], counts[len(counts)-1]
	var b strings.Builder
	for _, c := range configs {
		at := make([]string, 0, len(counts))
		for _, n := range counts {
			v := "–"
			if vs := ms[c][n]; len(vs) > 0 {
				v = fmt.Sprintf("%.2f ms", medianOf(vs))
			}
			at = append(at, fmt.Sprintf("%s onto %d", v, n))
		}
		fmt.Fprintf(&b, "- CPU per burst node as the cluster grows, %s: %s existing nodes; %d ÷ %d: %s\n",
			c, strings.Join(at, ", "), hi, lo, medianRatio(ms[c][hi], ms[c][lo]))
	}
	return b.String()
}
