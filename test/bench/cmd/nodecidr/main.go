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

// Command nodecidr benchmarks node CIDR assignment side by side on one local
// control plane: the raw write limit of the apiserver, kube-controller-manager
// v1.37.2 running only its nodeipam controller, and this operator's NodeIPAM,
// each as its own process, at the same client limits, for nodes created in a
// burst and at a steady rate; optionally dual-stack bursts of one or more
// sizes (-dual-stack, -dual-stack-nodes) and a dual-stack steady arrival
// (-steady-dual-stack), and a burst onto nodes that already have podCIDRs
// at one or more counts, up to 100,000 (-scale-nodes), which shows how the
// burst's CPU per node grows with the cluster.
// Absolute times on a shared machine are noise; the ratios between
// allocators measured in the same run are the result.
//
// Every finished run is appended to -results (JSON lines); -resume goes on
// with the runs the file does not hold, so a plan longer than one session
// can be run in several, and the report is made from the whole file.
//
// Usage (from the repository root, after `make bench` built the binaries):
//
//	(cd test/bench && go run ./cmd/nodecidr [flags])
//
// It prints a Markdown table and writes it to -out; -doc replaces the
// generated block of docs/performance.md. Nothing is asserted: the goals
// are reported, not enforced.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/test/framework/cluster"
)

// options are the command-line flags.
type options struct {
	sizes        []int
	steadyNodes  int
	steadyRate   float64
	throttledMax int
	cacheNodes   int
	only         string
	clusterCIDR  string
	nodeMask     int
	operator     string
	baseline     string
	operatorArgs []string
	repeat       int
	out          string
	doc          string
	runTimeout   time.Duration
	autoscale    bool
	as           autoscaleOptions
	// The resumable results file.
	results string
	resume  bool
	// The dual-stack section: a burst of each size, and with
	// steadyDualStack the steady arrival too.
	dualStack       bool
	dualStackNodes  []int
	steadyDualStack bool
	clusterCIDRv6   string
	nodeMaskV6      int
	// The scale points: one per existing node count.
	scaleNodes []int
	scaleBurst int
}

// steadyDualStackOn reports whether the plan holds the dual-stack steady
// arrival: -steady-dual-stack is part of the dual-stack section (it runs on
// its network) and arrives like the steady run (-steady-nodes at
// -steady-rate), so it needs both.
func (o options) steadyDualStackOn() bool {
	return o.steadyDualStack && o.dualStack && o.steadyNodes > 0
}

// dualStackOn reports whether the plan holds any dual-stack run.
func (o options) dualStackOn() bool {
	return o.dualStack && (len(o.dualStackNodes) > 0 || o.steadyDualStackOn())
}

// check refuses flags that would quietly plan nothing of what they ask for.
func (o options) check() error {
	if o.steadyDualStack && !o.steadyDualStackOn() {
		return errors.New("-steady-dual-stack needs -dual-stack and -steady-nodes > 0 (the dual-stack steady arrival is -steady-nodes at -steady-rate on the dual-stack network)")
	}
	return nil
}

// parseCounts parses a comma-separated list of node counts (-sizes,
// -dual-stack-nodes, -scale-nodes). Empty items are skipped, so "" is none;
// so is a lone "0", which -dual-stack-nodes and -scale-nodes took to mean
// "off" when they were single numbers. A count is positive and appears
// once: a repeated one would plan two runs under one results key.
func parseCounts(name, list string) ([]int, error) {
	if strings.TrimSpace(list) == "0" {
		return nil, nil
	}
	var out []int
	for s := range strings.SplitSeq(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad count %q in -%s: want positive node counts, comma-separated", s, name)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("count %d twice in -%s", n, name)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseFlags parses the flags and returns them with the arguments as given,
// for the report. In -limit-writer mode it runs the writer and exits.
func parseFlags() (options, []string) {
	o := options{}
	sizes := flag.String("sizes", "1000,5000", "comma-separated node counts created in a burst")
	flag.IntVar(&o.steadyNodes, "steady-nodes", 1000, "nodes created at -steady-rate (0: no steady run)")
	flag.Float64Var(&o.steadyRate, "steady-rate", 100, "arrival rate of the steady run, nodes per second")
	flag.IntVar(&o.throttledMax, "throttled-max", 1000,
		"largest burst that allocators limited to 50 QPS or less run (they take N/QPS seconds); 0: no limit")
	flag.IntVar(&o.cacheNodes, "cache-nodes", 65000,
		"finally measure both allocators' memory with this many nodes (with podCIDRs) in their caches; 0: skip")
	flag.StringVar(&o.only, "only", "", "run only configurations whose name contains this string (e.g. \"ours\")")
	flag.StringVar(&o.clusterCIDR, "cluster-cidr", "10.128.0.0/9", "cluster CIDR / the operator's range; keep it clear of the service range "+cluster.DefaultServiceCIDR)
	flag.IntVar(&o.nodeMask, "node-mask", 24, "node block size")
	flag.StringVar(&o.operator, "operator", "", "operator binary (default: <repo>/bin/manager, which `make bench` builds)")
	flag.StringVar(&o.baseline, "baseline", "", "a second operator binary (e.g. an earlier commit's) run as \"ours [baseline]\" beside every operator configuration, for before/after comparisons")
	operatorArgs := flag.String("operator-args", "", "extra space-separated flags for every operator run, e.g. --pprof-bind-address=127.0.0.1:6060 to profile one")
	flag.IntVar(&o.repeat, "repeat", 1, "run the whole plan this many times, interleaved (A B A B, not A A B B); the report shows medians with min–max")
	flag.StringVar(&o.out, "out", "", "also write the report to this file (default: <repo>/bin/bench/nodecidr.md)")
	flag.StringVar(&o.doc, "doc", "", "replace the generated block of this Markdown file (e.g. docs/performance.md) with the report")
	flag.StringVar(&o.results, "results", "", "append every finished run to this file, one JSON line each, and make the report from all its lines (default: <repo>/bin/bench/nodecidr.jsonl); without -resume an existing file is moved to <file>.prev")
	flag.BoolVar(&o.resume, "resume", false, "go on with the runs -results does not hold yet, in the planned order; refuses a file made with other plan flags or binaries (-autoscale neither records nor resumes)")
	flag.BoolVar(&o.dualStack, "dual-stack", false, "also run a dual-stack burst of each of -dual-stack-nodes: both allocators at 500/1000 on -cluster-cidr and -cluster-cidr-v6")
	dualStackNodes := flag.String("dual-stack-nodes", "5000", "comma-separated node counts of the dual-stack bursts, e.g. 1000,5000 (\"\" or 0: none)")
	flag.BoolVar(&o.steadyDualStack, "steady-dual-stack", false,
		"with -dual-stack, also run a dual-stack steady arrival: -steady-nodes (> 0) at -steady-rate, both allocators at 500/1000 on the dual-stack bursts' network")
	flag.StringVar(&o.clusterCIDRv6, "cluster-cidr-v6", "fd99::/48", "the IPv6 range of the dual-stack runs")
	flag.IntVar(&o.nodeMaskV6, "node-mask-v6", 64, "IPv6 node block size of the dual-stack runs")
	scaleNodes := flag.String("scale-nodes", "0",
		"comma-separated scale points, e.g. 1000,10000,100000: for each, this many nodes with podCIDRs already set, then each allocator (500/1000) starts and -scale-burst nodes arrive on top (0: none)")
	flag.IntVar(&o.scaleBurst, "scale-burst", 5000, "nodes of each scale point's burst")
	flag.DurationVar(&o.runTimeout, "run-timeout", 10*time.Minute, "longest one run may take")
	flag.BoolVar(&o.autoscale, "autoscale", false,
		"run only the autoscaling benchmark: -autoscale-nodes at -autoscale-rate onto a small range, two consumers acking after -autoscale-ack-delay, with and without the autoscaler; -doc then replaces the autoscale block")
	flag.IntVar(&o.as.nodes, "autoscale-nodes", 2000, "nodes of the autoscaling benchmark")
	flag.Float64Var(&o.as.rate, "autoscale-rate", 50, "arrival rate of the autoscaling benchmark, nodes per second")
	flag.DurationVar(&o.as.ackDelay, "autoscale-ack-delay", 2*time.Second, "how long after a phase began the two consumers acknowledge it")
	flag.StringVar(&o.as.initial, "autoscale-initial", "10.128.0.0/16", "the admin's initial range (of -node-mask blocks)")
	flag.StringVar(&o.as.pool, "autoscale-pool", "10.128.0.0/9", "the autoscaling pool around it")
	flag.DurationVar(&o.as.grace, "autoscale-grace", time.Minute, "how long after the last node was created a run waits for every node to get a block")
	quick := flag.Bool("quick", false, "quick run while developing: -sizes=200 -steady-nodes=200 -cache-nodes=0")
	limitWriter := flag.Bool("limit-writer", false, "internal: run as the limit writer process")
	kubeconfig := flag.String("writer-kubeconfig", "", "internal: the limit writer's kubeconfig")
	writers := flag.Int("writers", 4, "internal: the limit writer's concurrent PATCHes")
	flag.Parse()

	if *limitWriter {
		if err := runLimitWriter(*kubeconfig, *writers, o.clusterCIDR, o.nodeMask); err != nil {
			fmt.Fprintln(os.Stderr, "limit writer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if *quick {
		*sizes, o.steadyNodes, o.cacheNodes = "200", 200, 0
	}
	var errSizes, errDual, errScale error
	o.sizes, errSizes = parseCounts("sizes", *sizes)
	o.dualStackNodes, errDual = parseCounts("dual-stack-nodes", *dualStackNodes)
	o.scaleNodes, errScale = parseCounts("scale-nodes", *scaleNodes)
	if err := errors.Join(errSizes, errDual, errScale, o.check()); err != nil {
		// One line per bad flag.
		fmt.Fprintln(os.Stderr, "nodecidr:", strings.ReplaceAll(err.Error(), "\n", "\nnodecidr: "))
		os.Exit(2)
	}
	o.operatorArgs = strings.Fields(*operatorArgs)
	return o, os.Args[1:]
}

func main() {
	opts, args := parseFlags()
	if err := run(opts, args); err != nil {
		fmt.Fprintln(os.Stderr, "nodecidr:", err)
		os.Exit(1)
	}
}

// bench is the shared state of every run.
type bench struct {
	opts          options
	cluster       *cluster.Cluster
	cs            kubernetes.Interface
	crc           client.Client
	self          string
	operator      string
	clusterCIDR   netip.Prefix
	clusterCIDRv6 netip.Prefix
	nodeMask      int
	// seed is the scale point's existing nodes the cluster holds now.
	seed seed
}

// etcdQuota is etcd's --quota-backend-bytes, headroom for the scale
// point's 100,000 nodes and their history: past the quota (2 GiB by
// default) etcd refuses every write for the rest of the run.
const etcdQuota = 8 << 30

func run(opts options, args []string) error {
	root, err := cluster.RepoRoot()
	if err != nil {
		return err
	}
	b := &bench{opts: opts, nodeMask: opts.nodeMask, operator: opts.operator}
	if b.clusterCIDR, err = netip.ParsePrefix(opts.clusterCIDR); err != nil {
		return fmt.Errorf("bad -cluster-cidr: %w", err)
	}
	if b.clusterCIDRv6, err = netip.ParsePrefix(opts.clusterCIDRv6); err != nil || !b.clusterCIDRv6.Addr().Is6() {
		return fmt.Errorf("bad -cluster-cidr-v6 %q: want an IPv6 prefix (%w)", opts.clusterCIDRv6, err)
	}
	if b.operator == "" {
		b.operator = filepath.Join(root, "bin", "manager")
	}
	if _, err := os.Stat(b.operator); err != nil {
		return fmt.Errorf("operator binary: %w (build it with `go build -o bin/manager .` in the repository root)", err)
	}
	if opts.baseline != "" {
		if _, err := os.Stat(opts.baseline); err != nil {
			return fmt.Errorf("baseline operator binary: %w", err)
		}
	}
	if b.self, err = os.Executable(); err != nil {
		return fmt.Errorf("finding own executable: %w", err)
	}
	if opts.out == "" {
		opts.out = filepath.Join(root, "bin", "bench", "nodecidr.md")
		if opts.autoscale {
			opts.out = filepath.Join(root, "bin", "bench", "autoscale.md")
		}
	}
	if opts.results == "" {
		opts.results = filepath.Join(root, "bin", "bench", "nodecidr.jsonl")
	}

	start := time.Now()
	if opts.autoscale {
		ctx := context.Background()
		if err := b.startCluster(root); err != nil {
			return err
		}
		defer func() { _ = b.cluster.Stop() }()
		defer b.cluster.StopOnSignal()()
		results := b.runAutoscale(ctx, opts.as)
		text := autoscaleMarkdown(opts.as, results, args, time.Since(start), describeMachine())
		return b.publish(opts, text, autoscaleBeginMarker, autoscaleEndMarker)
	}

	plan := planRuns(opts)
	id, err := b.identity()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(opts.results), 0o755); err != nil {
		return fmt.Errorf("creating the results dir: %w", err)
	}
	store := resultsFile{path: opts.results, id: id, session: start.UTC().Format(time.RFC3339)}
	recs, err := store.open(opts.resume)
	if err != nil {
		return err
	}
	todo := remaining(plan, recs)
	needCache := opts.cacheNodes > 0 && !cacheDone(recs)
	progress("%d of the plan's %d runs to go (%d records in %s)", len(todo), len(plan)-skipped(plan), len(recs), opts.results)
	// An interrupt ends the run in flight, which is not recorded, and stops
	// the control plane on the way out; a second one kills at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	if len(todo) > 0 || needCache {
		if err := b.startCluster(root); err != nil {
			return err
		}
		defer func() { _ = b.cluster.Stop() }()
	}
	for _, i := range todo {
		runStart := time.Now()
		r := b.runOne(ctx, plan[i], fmt.Sprintf("r%03d", i))
		if err := b.recordable(ctx, r.err); err != nil {
			return fmt.Errorf("%s not recorded (%d records in %s; -resume goes on from there): %w", runKey(plan[i]), len(recs), opts.results, err)
		}
		progress("%s", r.line())
		rec := record{Identity: id, Session: store.session, Key: runKey(plan[i]), Finished: time.Now().UTC(),
			Wall: time.Since(runStart), Run: runRecordOf(r)}
		if err := store.append(rec); err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	if needCache {
		cacheStart := time.Now()
		var cr cacheResult
		if err := b.ensureSeed(ctx, scenario{}, network{}); err != nil {
			cr.err = err
		} else {
			cr = b.measureCache(ctx, opts.cacheNodes)
		}
		if err := b.recordable(ctx, cr.err); err != nil {
			return fmt.Errorf("the memory measurement not recorded (-resume makes it): %w", err)
		}
		rec := record{Identity: id, Session: store.session, Key: cacheKey, Finished: time.Now().UTC(),
			Wall: time.Since(cacheStart), Cache: cacheRecordOf(cr)}
		if err := store.append(rec); err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	results, cache := merge(plan, recs)
	n, runWall := sessions(recs)
	rep := report{results: results, cache: cache, args: args, wall: time.Since(start), machine: describeMachine(),
		sessions: n, runWall: runWall, resultsPath: opts.results, network: b.networkFor}
	return b.publish(opts, rep.markdown(), beginMarker, endMarker)
}

// recordable returns why a run that ended with runErr must not be
// recorded: the benchmark was interrupted, or the control plane itself is
// down, so the failure says nothing about the allocator and -resume should
// make the run again.
func (b *bench) recordable(ctx context.Context, runErr error) error {
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	if runErr == nil {
		return nil
	}
	if _, err := b.cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return fmt.Errorf("the run failed (%w) and the control plane is not ready: %w", runErr, err)
	}
	return nil
}

// skipped counts the planned runs left out.
func skipped(plan []planned) int {
	n := 0
	for _, p := range plan {
		if p.skip != "" {
			n++
		}
	}
	return n
}

// startCluster starts the local control plane and the benchmark's clients.
func (b *bench) startCluster(root string) error {
	start := time.Now()
	progress("starting the local control plane")
	c, err := cluster.Start(cluster.Options{
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		EtcdQuotaBackendBytes: etcdQuota,
	})
	if err != nil {
		return err
	}
	b.cluster = c
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = -1, 0 // the load generator and the recorder are never throttled
	if b.cs, err = kubernetes.NewForConfig(cfg); err != nil {
		return errors.Join(fmt.Errorf("creating client: %w", err), c.Stop())
	}
	if b.crc, err = client.New(cfg, client.Options{Scheme: clientScheme()}); err != nil {
		return errors.Join(fmt.Errorf("creating client: %w", err), c.Stop())
	}
	progress("control plane up in %s (work dir %s)", time.Since(start).Round(time.Second), c.WorkDir)
	return nil
}

// identity is the identity of this benchmark's plan and binaries.
func (b *bench) identity() (identity, error) {
	id := identity{Format: resultsFormat, Plan: planFlags(b.opts)}
	var err error
	if id.Operator, err = fileSHA256(b.operator); err != nil {
		return id, err
	}
	if b.opts.baseline != "" {
		if id.Baseline, err = fileSHA256(b.opts.baseline); err != nil {
			return id, err
		}
	}
	assets, err := cluster.AssetsDir()
	if err != nil {
		return id, err
	}
	out, err := exec.Command(filepath.Join(assets, "kube-controller-manager"), "--version").Output()
	if err != nil {
		return id, fmt.Errorf("reading kube-controller-manager's version (`make cluster-assets` builds it): %w", err)
	}
	id.KCM = strings.TrimSpace(string(out))
	return id, nil
}

// fileSHA256 is the hex sha256 of a file's content.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	defer f.Close() //nolint:errcheck // opened read-only: a failed close loses nothing
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// publish prints the report, writes it to -out and, with -doc, into the
// block between the markers.
func (b *bench) publish(opts options, text, begin, end string) error {
	fmt.Print(text)
	if err := os.MkdirAll(filepath.Dir(opts.out), 0o755); err != nil {
		return fmt.Errorf("creating output dir: %w", err)
	}
	if err := os.WriteFile(opts.out, []byte(text), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", opts.out, err)
	}
	if opts.doc != "" {
		if err := replaceBlock(opts.doc, text, begin, end); err != nil {
			return err
		}
	}
	return nil
}

// progress reports what the benchmark is doing on stderr, so stdout holds
// only the report.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s nodecidr: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
