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

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/invariants"
)

// scenario is how the nodes arrive.
type scenario struct {
	nodes int
	rate  float64 // nodes per second; 0 is a burst
}

func (s scenario) String() string {
	if s.rate == 0 {
		return fmt.Sprintf("burst %d", s.nodes)
	}
	return fmt.Sprintf("%d at %g/s", s.nodes, s.rate)
}

// configs are the allocator settings every scenario runs, in table order.
var configs = []config{
	{kind: kindLimit, writers: oursWorkers},
	{kind: kindLimit, writers: kcmWorkers},
	{kind: kindKCM},
	{kind: kindKCM, qps: 500, burst: 1000},
	{kind: kindOurs, qps: 20, burst: 30},
	{kind: kindOurs, qps: 500, burst: 1000},
	{kind: kindOurs},
	// As many writes in flight as kube-controller-manager, to tell the
	// worker count apart from everything else in a gap to the limit.
	{kind: kindOurs, qps: 500, burst: 1000, writers: kcmWorkers},
}

// planned is one run, or a run left out and why.
type planned struct {
	scenario scenario
	config   config
	skip     string
}

func (b *bench) plan() []planned {
	var scenarios []scenario
	for _, n := range b.opts.sizes {
		scenarios = append(scenarios, scenario{nodes: n})
	}
	if b.opts.steadyNodes > 0 {
		scenarios = append(scenarios, scenario{nodes: b.opts.steadyNodes, rate: b.opts.steadyRate})
	}
	var round []planned
	for _, s := range scenarios {
		for _, c := range b.configs() {
			if b.opts.only != "" && !strings.Contains(c.String(), b.opts.only) {
				continue
			}
			p := planned{scenario: s, config: c}
			if c.throttled() && s.rate == 0 && b.opts.throttledMax > 0 && s.nodes > b.opts.throttledMax {
				q, _ := c.limits()
				p.skip = fmt.Sprintf("not run: would take about %ds at %d QPS (-throttled-max=%d)", s.nodes/q, q, b.opts.throttledMax)
			}
			round = append(round, p)
		}
	}
	// Repetitions are whole rounds, so the runs of one configuration are
	// spread over the benchmark's wall time (A B A B, not A A B B) and a
	// spell of load on the machine hits every configuration alike.
	var out []planned
	for range max(b.opts.repeat, 1) {
		out = append(out, round...)
	}
	return out
}

// configs is the table of configurations, with every operator one followed
// by its baseline twin when -baseline names a second binary.
func (b *bench) configs() []config {
	if b.opts.baseline == "" {
		return configs
	}
	var out []config
	for _, c := range configs {
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
	err      error
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
	return fmt.Sprintf("%-10s %-26s %7.1fs %7.1f nodes/s  p50 %6dms  p99 %6dms  cpu %5.1fs  rss %4.0fMiB  writes: %s",
		r.scenario, r.config, r.total.Seconds(), r.rate(), r.p50.Milliseconds(), r.p99.Milliseconds(), r.cpuSeconds, r.peakRSSMiB, r.writesBy)
}

// runOne starts the allocator, creates the nodes, waits until every one has
// podCIDRs, reads the allocator's CPU time and peak memory, checks the
// invariants, and leaves the cluster empty for the next run.
func (b *bench) runOne(ctx context.Context, p planned, id string) result {
	r := result{planned: p}
	if p.skip != "" {
		return r
	}
	progress("%s: %s, %s", id, p.scenario, p.config)
	ctx, cancel := context.WithTimeout(ctx, b.opts.runTimeout)
	defer cancel()
	r.err = b.measure(ctx, &r, id)
	if err := b.reset(context.Background(), p.config); err != nil {
		r.err = errors.Join(r.err, err)
	}
	return r
}

func (b *bench) measure(ctx context.Context, r *result, id string) error {
	proc, err := b.start(ctx, r.config, id+"-"+strings.NewReplacer(" ", "", ",", "", "/", "-", "(", "", ")", "", "[", "-", "]", "").Replace(r.config.String()))
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
	return b.verify(ctx, r.config)
}

// verify checks that every node has podCIDRs and that the invariant checker
// finds nothing (no overlapping podCIDRs; for the operator, every podCIDR in
// a range seen Active).
func (b *bench) verify(ctx context.Context, cfg config) error {
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
	if err := checker.Check(nodes); err != nil {
		return fmt.Errorf("invariants violated: %w", err)
	}
	return nil
}

// reset stops nothing (the run's deferred Stop did); it deletes every node,
// and for the operator its PodNetwork and consumers, then compacts etcd.
func (b *bench) reset(ctx context.Context, cfg config) error {
	if err := deleteAllNodes(ctx, b.cs); err != nil {
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
