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
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework/invariants"
)

// scenario is how the nodes arrive, and onto what.
type scenario struct {
	nodes int
	rate  float64 // nodes per second; 0 is a burst
	// dualStack gives every node an IPv4 and an IPv6 block.
	dualStack bool
	// existing nodes already have podCIDRs when the allocator starts, as
	// after a migration from kube-controller-manager (a scale point).
	existing int
}

func (s scenario) String() string {
	out := fmt.Sprintf("burst %d", s.nodes)
	if s.rate != 0 {
		out = fmt.Sprintf("%d at %g/s", s.nodes, s.rate)
	}
	if s.dualStack {
		out += " dual-stack"
	}
	if s.existing > 0 {
		out += fmt.Sprintf(" onto %d", s.existing)
	}
	return out
}

// configs are the allocator settings every scenario runs, in table order.
var configs = []config{
	{kind: kindLimit, writers: fewerWorkers},
	{kind: kindLimit, writers: kcmWorkers},
	{kind: kindKCM},
	{kind: kindKCM, qps: 500, burst: 1000},
	{kind: kindOurs, qps: 20, burst: 30},
	{kind: kindOurs, qps: 500, burst: 1000},
	{kind: kindOurs},
	// Fewer writes in flight than kube-controller-manager, to tell the
	// worker count apart from everything else in a gap to the limit.
	{kind: kindOurs, qps: 500, burst: 1000, writers: fewerWorkers},
}

// sectionConfigs are the allocator settings of the dual-stack and scale
// runs: both allocators at the same client limits, high enough that the
// limits do not decide the burst's throughput (nor hold back a steady
// arrival).
var sectionConfigs = []config{
	{kind: kindKCM, qps: 500, burst: 1000},
	{kind: kindOurs, qps: 500, burst: 1000},
}

// planned is one run, or a run left out and why.
type planned struct {
	scenario scenario
	config   config
	skip     string
	// rep is the repetition (1 …) the run belongs to.
	rep int
}

// planRuns is every run the options ask for, in the order they run: each
// repetition is a whole round (A B A B, not A A B B), so a spell of load on
// the machine hits every configuration alike. A round holds the bursts and
// the steady arrival at every configuration, then the dual-stack bursts and
// the dual-stack steady arrival, then the scale points in the order given;
// the two allocators of a round share a point's existing nodes.
func planRuns(o options) []planned {
	var scenarios []scenario
	for _, n := range o.sizes {
		scenarios = append(scenarios, scenario{nodes: n})
	}
	if o.steadyNodes > 0 {
		scenarios = append(scenarios, scenario{nodes: o.steadyNodes, rate: o.steadyRate})
	}
	var round []planned
	add := func(s scenario, cs []config) {
		for _, c := range withBaseline(cs, o.baseline != "") {
			if o.only != "" && !strings.Contains(c.String(), o.only) {
				continue
			}
			p := planned{scenario: s, config: c}
			if c.throttled() && s.rate == 0 && o.throttledMax > 0 && s.nodes > o.throttledMax {
				q, _ := c.limits()
				p.skip = fmt.Sprintf("not run: would take about %ds at %d QPS (-throttled-max=%d)", s.nodes/q, q, o.throttledMax)
			}
			round = append(round, p)
		}
	}
	for _, s := range scenarios {
		add(s, configs)
	}
	if o.dualStack {
		for _, n := range o.dualStackNodes {
			add(scenario{nodes: n, dualStack: true}, sectionConfigs)
		}
	}
	if o.steadyDualStackOn() {
		add(scenario{nodes: o.steadyNodes, rate: o.steadyRate, dualStack: true}, sectionConfigs)
	}
	for _, n := range o.scaleNodes {
		add(scenario{nodes: o.scaleBurst, existing: n}, sectionConfigs)
	}
	var out []planned
	for rep := 1; rep <= max(o.repeat, 1); rep++ {
		for _, p := range round {
			p.rep = rep
			out = append(out, p)
		}
	}
	return out
}

// withBaseline is cs with every operator configuration followed by its
// baseline twin when -baseline names a second binary.
func withBaseline(cs []config, baseline bool) []config {
	if !baseline {
		return cs
	}
	var out []config
	for _, c := range cs {
		out = append(out, c)
		if c.kind == kindOurs {
			c.baseline = true
			out = append(out, c)
		}
	}
	return out
}

// result is what one run measured.
type result struct {
	planned
	// total is from the first create call to the last node seen with
	// podCIDRs; created is from the first to the last create call returning.
	total, created time.Duration
	p50, p99, max  time.Duration
	cpuSeconds     float64
	peakRSSMiB     float64
	// writes counts the API writes during the run other than the node
	// creations; writesBy breaks them down by verb and resource.
	writes   float64
	writesBy string
	// The scale points only: rebuild is the operator's own start-up rebuild
	// as it logged it (0 for kube-controller-manager, which logs none);
	// firstAlloc is the allocator's start → its first allocation (a canary
	// node created as it starts); steadyRSSMiB its resident set once that
	// settled, before the burst. cpuSeconds and peakRSSMiB then cover the
	// whole run from the start, so burstCPUSeconds is the burst's own share:
	// what a node arriving costs as the cluster grows, without the rebuild
	// that grows with it too (0: recorded before it was measured).
	rebuild, firstAlloc time.Duration
	steadyRSSMiB        float64
	burstCPUSeconds     float64
	err                 error
}

func (r result) rate() float64 {
	if r.total <= 0 {
		return 0
	}
	return float64(r.scenario.nodes) / r.total.Seconds()
}

func (r result) line() string {
	switch {
	case r.skip != "":
		return fmt.Sprintf("%-10s %-26s %s", r.scenario, r.config, r.skip)
	case r.err != nil:
		return fmt.Sprintf("%-10s %-26s FAILED: %v", r.scenario, r.config, r.err)
	}
	line := fmt.Sprintf("%-10s %-26s %7.1fs %7.1f nodes/s  p50 %6dms  p99 %6dms  cpu %5.1fs  rss %4.0fMiB  writes: %s",
		r.scenario, r.config, r.total.Seconds(), r.rate(), r.p50.Milliseconds(), r.p99.Milliseconds(), r.cpuSeconds, r.peakRSSMiB, r.writesBy)
	if r.scenario.existing > 0 {
		line += fmt.Sprintf("  first allocation %s  steady rss %.0fMiB  burst cpu %.2fs", r.firstAlloc.Round(time.Millisecond), r.steadyRSSMiB, r.burstCPUSeconds)
	}
	if r.rebuild > 0 {
		line += fmt.Sprintf("  rebuild %s", r.rebuild.Round(time.Millisecond))
	}
	return line
}

// runOne starts the allocator, creates the nodes, waits until every one has
// podCIDRs, reads the allocator's CPU time and peak memory, checks the
// invariants, and leaves the cluster empty for the next run (but for the
// scale point's existing nodes, which the next scale run reuses).
func (b *bench) runOne(ctx context.Context, p planned, id string) result {
	r := result{planned: p}
	if p.skip != "" {
		return r
	}
	progress("%s: %s, %s (repetition %d)", id, p.scenario, p.config, p.rep)
	nw := b.networkFor(p.scenario)
	// Creating or deleting the scale point's nodes is set-up, not part of
	// the run and its timeout.
	seedCtx, cancelSeed := context.WithTimeout(ctx, seedTimeout)
	r.err = b.ensureSeed(seedCtx, p.scenario, nw)
	cancelSeed()
	if r.err == nil {
		runCtx, cancel := context.WithTimeout(ctx, b.opts.runTimeout)
		if p.scenario.existing > 0 {
			r.err = b.measureScale(runCtx, &r, nw, id)
		} else {
			r.err = b.measure(runCtx, &r, nw, id)
		}
		cancel()
	}
	if err := b.reset(ctx, p.config); err != nil {
		r.err = errors.Join(r.err, err)
	}
	return r
}

// processName names an allocator's process (and its log) after the run.
func processName(id string, c config) string {
	return id + "-" + strings.NewReplacer(" ", "", ",", "", "/", "-", "(", "", ")", "", "[", "-", "]", "").Replace(c.String())
}

func (b *bench) measure(ctx context.Context, r *result, nw network, id string) error {
	proc, err := b.start(ctx, r.config, nw, processName(id, r.config))
	if err != nil {
		return err
	}
	defer func() { _ = proc.Stop() }()

	prefix := id + "-"
	rec, err := startRecorder(ctx, b.cs, prefix, r.scenario.nodes)
	if err != nil {
		return err
	}
	cpu0, err := cpuSeconds(proc.Pid())
	if err != nil {
		return err
	}
	writes0, err := b.apiWrites(ctx)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := createNodes(ctx, b.cs, prefix, r.scenario.nodes, r.scenario.rate); err != nil {
		return err
	}
	r.created = time.Since(t0)
	if err := rec.wait(ctx); err != nil {
		return fmt.Errorf("%w (allocator log: %s)", err, proc.LogPath())
	}
	lat, last := rec.latencies()
	cpu1, err := cpuSeconds(proc.Pid())
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
	r.total, r.cpuSeconds, r.peakRSSMiB = last.Sub(t0), cpu1-cpu0, float64(hwm)/1024
	r.p50, r.p99, r.max = percentile(lat, 50), percentile(lat, 99), percentile(lat, 100)
	return b.verify(ctx, r.config, r.scenario)
}

// verify checks that every node has podCIDRs (one per family in a
// dual-stack run) and that the invariant checker finds nothing (no
// overlapping podCIDRs; for the operator, every podCIDR it assigned in a
// range seen Active). The scale point's existing nodes are checked only for
// overlaps, by a sort, since comparing every pair of 100,000 nodes would
// take longer than the run.
func (b *bench) verify(ctx context.Context, cfg config, s scenario) error {
	nodes, err := b.allocated(ctx)
	if err != nil {
		return err
	}
	var checker invariants.Checker
	if cfg.kind == kindOurs {
		pn := &v1alpha1.PodNetwork{}
		if err := b.crc.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
			return fmt.Errorf("reading PodNetwork: %w", err)
		}
		checker.ObserveRanges(pn)
	}
	if s.dualStack {
		for i := range nodes {
			if len(invariants.PodCIDRs(&nodes[i])) != 2 {
				return fmt.Errorf("node %s has podCIDRs %v, want one per IP family", nodes[i].Name, nodes[i].Spec.PodCIDRs)
			}
		}
	}
	checked := nodes
	if s.existing > 0 {
		checked = slices.DeleteFunc(slices.Clone(nodes), func(n corev1.Node) bool { return n.Labels[seedLabel] != "" })
		if o, found := invariants.AnyOverlap(nodes); found {
			return fmt.Errorf("invariants violated: %s", o)
		}
	}
	if err := checker.Check(checked); err != nil {
		return fmt.Errorf("invariants violated: %w", err)
	}
	return nil
}

// reset stops nothing (the run's deferred Stop did); it deletes every node
// but the scale point's existing ones, and for the operator its PodNetwork
// and consumers, then compacts etcd.
func (b *bench) reset(ctx context.Context, cfg config) error {
	if err := deleteNodes(ctx, b.cs, "!"+seedLabel); err != nil {
		return err
	}
	if cfg.kind == kindOurs {
		if err := b.resetOperator(ctx); err != nil {
			return err
		}
	}
	return b.compactEtcd(ctx)
}

// percentile returns the nearest-rank percentile q (0-100] of ds.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(q/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func clientScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = v1alpha1.AddToScheme(s)
	return s
}
