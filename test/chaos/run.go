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

// Package chaos is the fault-injection suite (`make chaos`, `make
// chaos-short`): two operator processes with leader election on a local
// control plane, a node storm, range edits and three consumers, while
// leaders are killed and paused, kube-apiserver and etcd restart and a
// proxy between the operators and the apiserver injects errors, resets,
// latency and cut watches, stream by stream over HTTP/2. The ranges are
// dual-stack, the kube-proxy and flannel adapters and the autoscaler run,
// and the allocation policy moves from Wait to ReuseOldest to a delay of
// 0. Every change of Nodes, PodNetworks, PodNetworkConsumers,
// AutoscaledRangeSets and the leader Lease is recorded from an apiserver no
// fault touches, every write of the operators is logged by the proxy, and
// the invariants are checked over the whole history. docs/reliability.md
// describes it.
package chaos

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/internal/chaosbug"
	"podnetwork.io/operator/test/chaos/faultproxy"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/cluster"
)

// Options are what a run needs besides its configuration.
type Options struct {
	// Binary is the operator binary under test.
	Binary string
	// WorkDir receives the logs of every process; it is emptied first.
	WorkDir string
	// Label names the run in progress messages and the report ("operator",
	// "seeded bug").
	Label string
	// Bug, when set, is the seeded bug to activate in Binary (a build with
	// -tags chaosbug) through chaosbug.Env; the result is judged by it.
	Bug *SeededBug
}

// run is the state of one run.
type run struct {
	cfg   Config
	opts  Options
	plan  Plan
	c     *cluster.Cluster
	admin client.Client    // the apiserver under test
	rec   client.WithWatch // the recording apiserver
	proxy *faultproxy.Proxy
	wlog  *faultproxy.Log
	ops   *operators
	cons  *consumers
	storm *storm

	mu       sync.Mutex
	injected []Injected
	skipped  map[Kind]int
	pauses   sync.WaitGroup
	spec     []v1alpha1.PodCIDRRange
}

// Injected is a process fault as it happened.
type Injected struct {
	Kind   Kind
	At     time.Time
	Target string
}

// Run runs one configuration against one operator binary and checks the
// history it recorded.
func Run(ctx context.Context, cfg Config, opts Options) (_ *Result, err error) {
	cfg.Proxy.Seed = cfg.Seed
	if err := os.RemoveAll(opts.WorkDir); err != nil {
		return nil, fmt.Errorf("emptying %s: %w", opts.WorkDir, err)
	}
	logFile, err := harnessLog(opts.WorkDir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := logFile.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing the harness log: %w", cerr)
		}
	}()
	// The operator processes inherit the environment: set (or clear) the
	// bug's name for them, and restore it for whatever runs next.
	bugName := ""
	if opts.Bug != nil {
		bugName = opts.Bug.Name
	}
	restore, err := setEnv(chaosbug.Env, bugName)
	if err != nil {
		return nil, err
	}
	defer restore()
	r := &run{cfg: cfg, opts: opts, plan: Schedule(cfg), skipped: map[Kind]int{}, wlog: &faultproxy.Log{}}
	start := time.Now()
	progress("%s: %s run (%s), seed %d, work dir %s", opts.Label, cfg.Name, cfg.Features(), cfg.Seed, opts.WorkDir)
	res, err := r.run(ctx)
	if res != nil {
		res.Duration = time.Since(start)
	}
	return res, err
}

// setEnv sets (value empty: unsets) the environment variable key and
// returns what restores its previous state.
func setEnv(key, value string) (restore func(), err error) {
	old, had := os.LookupEnv(key)
	if value == "" {
		err = os.Unsetenv(key)
	} else {
		err = os.Setenv(key, value)
	}
	if err != nil {
		return nil, fmt.Errorf("setting %s: %w", key, err)
	}
	return func() {
		if had {
			_ = os.Setenv(key, old)
		} else {
			_ = os.Unsetenv(key)
		}
	}, nil
}

func (r *run) run(ctx context.Context) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := r.startCluster(); err != nil {
		return nil, err
	}
	defer func() { _ = r.c.Stop() }()

	hist, err := framework.RecordHistory(ctx, r.rec,
		framework.Watched{List: &corev1.NodeList{}},
		framework.Watched{List: &v1alpha1.PodNetworkList{}},
		framework.Watched{List: &v1alpha1.PodNetworkConsumerList{}},
		framework.Watched{List: &coordinationv1.LeaseList{}, Namespace: LeaseNamespace},
		framework.Watched{List: &v1alpha1.AutoscaledRangeSetList{}},
	)
	if err != nil {
		return nil, err
	}
	defer hist.Stop()

	if err := r.startWorkload(ctx); err != nil {
		return nil, err
	}
	defer func() { _ = r.cons.stop() }()
	defer r.ops.stop()

	progress("%s: waiting for a leader and the initial ranges", r.opts.Label)
	if r.ops.waitLeader(ctx, 2*time.Minute) == nil {
		return nil, errors.New("no operator replica became leader within 2 minutes")
	}
	if err := r.waitSettled(ctx, 2*time.Minute); err != nil {
		return nil, fmt.Errorf("before any fault: %w", err)
	}

	progress("%s: injecting faults for %s", r.opts.Label, r.cfg.FaultWindow)
	windowStart := time.Now()
	r.proxy.SetFaults(true)
	r.cons.faulting.Store(true)
	var wg sync.WaitGroup
	wg.Go(func() { r.injectFaults(ctx, windowStart) })
	wg.Go(func() { r.runSteps(ctx, windowStart) })
	wg.Wait()
	r.pauses.Wait()
	r.proxy.SetFaults(false)
	r.cons.faulting.Store(false)
	r.cons.settled.Store(true)
	faultsEnd := time.Now()
	progress("%s: faults over after %s; waiting for the system to settle", r.opts.Label, faultsEnd.Sub(windowStart).Round(time.Second))

	res := &Result{Config: r.cfg, Label: r.opts.Label, Binary: r.opts.Binary, Bug: r.opts.Bug, FaultsEnd: faultsEnd}
	if err := r.waitSettled(ctx, r.cfg.RecoverTimeout); err != nil {
		res.NotRecovered = err.Error()
		progress("%s: %v", r.opts.Label, err)
	} else {
		res.Recovery = time.Since(faultsEnd)
		progress("%s: settled %s after the last fault", r.opts.Label, res.Recovery.Round(100*time.Millisecond))
	}

	r.ops.stop()
	if err := r.cons.stop(); err != nil {
		progress("%s: stopping the consumers: %v", r.opts.Label, err)
	}
	if err := r.flush(ctx, hist); err != nil {
		return nil, err
	}
	hist.Stop()
	res.HistoryErr = hist.Err()
	events := hist.Events()
	r.collect(res, events)
	if err := dump(r.opts.WorkDir, res, events); err != nil {
		progress("%s: %v", r.opts.Label, err)
	}
	return res, nil
}

// startCluster starts etcd and kube-apiserver (restartable, no compaction),
// the recording apiserver, and kube-controller-manager and kwok if asked.
func (r *run) startCluster() error {
	root, err := cluster.RepoRoot()
	if err != nil {
		return err
	}
	// Neither apiserver compacts etcd, so a watch can resume from any
	// revision of the run.
	noCompaction := map[string]string{"etcd-compaction-interval": "0"}
	r.c, err = cluster.Start(cluster.Options{
		CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")},
		WorkDir:           r.opts.WorkDir,
		Restartable:       true,
		APIServerArgs:     noCompaction,
	})
	if err != nil {
		return err
	}
	// The recorder's apiserver has no watch cache: a cache starts at the
	// revision it listed and answers 410 Gone to a watch from before, which
	// would leave a gap after every restart of etcd.
	recCfg, err := r.c.AddAPIServer("kube-apiserver-recorder", map[string]string{"etcd-compaction-interval": "0", "watch-cache": "false"})
	if err != nil {
		return errors.Join(err, r.c.Stop())
	}
	for _, cfg := range []*rest.Config{r.c.Config, recCfg} {
		cfg.QPS, cfg.Burst = -1, 0
	}
	if r.admin, err = client.New(r.c.Config, client.Options{Scheme: controllers.Scheme()}); err != nil {
		return errors.Join(err, r.c.Stop())
	}
	if r.rec, err = client.NewWithWatch(recCfg, client.Options{Scheme: controllers.Scheme()}); err != nil {
		return errors.Join(err, r.c.Stop())
	}
	if r.cfg.ControllerManager {
		// The node controllers that write nodes beside NodeIPAM: taints and
		// conditions (nodelifecycle), the ttl annotation (ttl).
		kcm := cluster.ControllerManagerOptions{Controllers: []string{"nodelifecycle", "ttl", "garbagecollector"}}
		if r.cfg.Adapters {
			// The adapters' DaemonSets: the controller makes their pods,
			// kube-scheduler binds them, kwok runs them.
			kcm.Controllers = append(kcm.Controllers, "daemonset")
		}
		if r.cfg.KwokHeartbeat > 0 {
			kcm.Args = map[string]string{"node-monitor-grace-period": (3 * r.cfg.KwokHeartbeat).String()}
		}
		if err := r.c.StartControllerManager(kcm); err != nil {
			return errors.Join(err, r.c.Stop())
		}
	}
	if r.cfg.Adapters {
		if !r.cfg.ControllerManager || !r.cfg.Kwok {
			return errors.Join(errors.New("the adapters need kube-controller-manager and kwok to run their DaemonSets"), r.c.Stop())
		}
		if err := r.c.StartScheduler(); err != nil {
			return errors.Join(err, r.c.Stop())
		}
	}
	if r.cfg.Kwok {
		opts := cluster.KwokOptions{}
		if r.cfg.KwokHeartbeat > 0 || r.cfg.Adapters {
			if opts.StagesFile, err = kwokStages(root, r.opts.WorkDir, r.cfg.KwokHeartbeat, r.cfg.Adapters); err != nil {
				return errors.Join(err, r.c.Stop())
			}
		}
		if err := r.c.StartKwok(opts); err != nil {
			return errors.Join(err, r.c.Stop())
		}
	}
	return nil
}

// kwokStages writes a copy of bin/kwok-stages.yaml whose node heartbeats
// come every heartbeat to 1.5 times heartbeat (when set), and, with
// noNetworkCondition, whose nodes never report NetworkUnavailable: kwok
// reports it False (RouteCreated) from its own list of conditions at every
// heartbeat, which would overwrite the FlannelIsUp stamp of
// adapterKubelet, where a kubelet leaves that condition to the network
// plugin.
func kwokStages(root, dir string, heartbeat time.Duration, noNetworkCondition bool) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "bin", "kwok-stages.yaml"))
	if err != nil {
		return "", fmt.Errorf("reading kwok's stages (make kwok writes them): %w", err)
	}
	out := string(data)
	if heartbeat > 0 {
		const delay = "durationMilliseconds: 20000\n    jitterDurationMilliseconds: 25000"
		if !strings.Contains(out, delay) {
			return "", fmt.Errorf("kwok's node heartbeat stage no longer has %q", delay)
		}
		out = strings.Replace(out, delay, fmt.Sprintf("durationMilliseconds: %d\n    jitterDurationMilliseconds: %d",
			heartbeat.Milliseconds(), heartbeat.Milliseconds()*3/2), 1)
	}
	if noNetworkCondition {
		if out, err = withoutNetworkCondition(out); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, "kwok-stages.yaml")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil { //nolint:gosec // configuration
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// withoutNetworkCondition makes every "range NodeConditions" loop of kwok's
// stages skip NetworkUnavailable: node-initialize and node-heartbeat.
func withoutNetworkCondition(stages string) (string, error) {
	const loop, end = "{{ range NodeConditions }}", "{{ end }}"
	var b strings.Builder
	n := 0
	for {
		i := strings.Index(stages, loop)
		if i < 0 {
			break
		}
		j := strings.Index(stages[i:], end)
		if j < 0 {
			return "", errors.New("kwok's stages: a range over NodeConditions without its end")
		}
		b.WriteString(stages[:i] + loop + `{{ if ne .type "NetworkUnavailable" }}` + stages[i+len(loop):i+j] + end + end)
		stages = stages[i+j+len(end):]
		n++
	}
	if n != 2 {
		return "", fmt.Errorf("kwok's stages range over NodeConditions %d times, not twice (node-initialize and node-heartbeat)", n)
	}
	b.WriteString(stages)
	return b.String(), nil
}

// startWorkload creates the namespace and the PodNetwork, and starts the
// consumers and the operators.
func (r *run) startWorkload(ctx context.Context) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: LeaseNamespace}}
	if err := r.admin.Create(ctx, ns); err != nil {
		return fmt.Errorf("creating namespace %s: %w", LeaseNamespace, err)
	}
	r.spec = r.cfg.initialSpec()
	pn := framework.PodNetwork().Ranges(r.spec...).RecycleDelaySeconds(r.cfg.RecycleDelaySeconds).
		WhenExhausted(v1alpha1.WhenExhaustedWait).Obj()
	pn.Spec.Autoscaling = autoscaling(r.cfg)
	if err := r.admin.Create(ctx, pn); err != nil {
		return fmt.Errorf("creating the PodNetwork: %w", err)
	}
	var flags []string
	if r.cfg.Adapters {
		if err := createAdapterFixtures(ctx, r.admin, r.cfg.Families); err != nil {
			return err
		}
		go adapterKubelet(ctx, r.admin)
		flags = append(flags, adapterFlags...)
	}
	var err error
	if r.proxy, err = faultproxy.New(r.c.Config, r.cfg.Proxy, r.wlog); err != nil {
		return err
	}
	r.cons = &consumers{seed: r.cfg.Seed, maxDelay: r.cfg.ConsumerMaxDelay}
	if err := r.cons.start(ctx, r.c.Config); err != nil {
		return err
	}
	r.storm = newStorm(r.admin, r.cfg)
	r.ops = &operators{cluster: r.c, proxy: r.proxy, binary: r.opts.Binary, args: flags, reader: r.rec, log: r.wlog}
	return r.ops.start(ctx, "a", "b")
}

// injectFaults performs the process faults at their times.
func (r *run) injectFaults(ctx context.Context, start time.Time) {
	for _, f := range r.plan.Faults {
		if !sleepUntil(ctx, start.Add(f.At)) {
			return
		}
		target, err := r.inject(ctx, f)
		switch {
		case err != nil:
			progress("%s: %s: %v", r.opts.Label, f.Kind, err)
			r.mu.Lock()
			r.skipped[f.Kind]++
			r.mu.Unlock()
		default:
			progress("%s: %s %s", r.opts.Label, f.Kind, target)
			r.mu.Lock()
			r.injected = append(r.injected, Injected{Kind: f.Kind, At: time.Now(), Target: target})
			r.mu.Unlock()
		}
	}
}

// leaderWait bounds how long a fault aimed at the leader waits for one
// (a failover may be under way).
const leaderWait = 20 * time.Second

func (r *run) inject(ctx context.Context, f Fault) (string, error) {
	switch f.Kind {
	case KillLeader, PauseLeader:
		l := r.ops.waitLeader(ctx, leaderWait)
		if l == nil {
			return "", errors.New("no leader to target")
		}
		if f.Kind == KillLeader {
			return l.process, l.proc.Kill()
		}
		if err := l.proc.Pause(); err != nil {
			return "", err
		}
		r.pauses.Go(func() {
			time.Sleep(f.Pause)
			if err := l.proc.Resume(); err != nil {
				progress("%s: %v", r.opts.Label, err)
			}
		})
		return fmt.Sprintf("%s for %s", l.process, f.Pause.Round(100*time.Millisecond)), nil
	case KillStandby:
		s := r.ops.waitStandby(ctx, leaderWait)
		if s == nil {
			return "", errors.New("no standby to target")
		}
		return s.process, s.proc.Kill()
	case RestartAPIServer:
		return hardness(f.Hard), r.c.RestartAPIServer(f.Hard)
	case RestartEtcd:
		return hardness(f.Hard), r.c.RestartEtcd(f.Hard)
	}
	return "", fmt.Errorf("unknown fault %q", f.Kind)
}

func hardness(hard bool) string {
	if hard {
		return "(SIGKILL)"
	}
	return "(SIGTERM)"
}

// waitServed waits, up to 25s, until NodeIPAM has served the nodes of a
// wave as far as it can: one replica has led for 6s (a new leader rebuilds
// first) and the nodes without podCIDRs have not become fewer for 3s while
// it did. It returns how many nodes still wait.
func (r *run) waitServed(ctx context.Context) int {
	deadline := time.Now().Add(25 * time.Second)
	best, since := -1, time.Now()
	var leader *replica
	leaderSince := time.Now()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(500 * time.Millisecond)
		if l := r.ops.leader(ctx); l == nil || l != leader {
			leader, leaderSince, since = l, time.Now(), time.Now()
			continue
		}
		var nodes corev1.NodeList
		if err := r.admin.List(ctx, &nodes); err != nil {
			since = time.Now()
			continue
		}
		n := 0
		for _, node := range nodes.Items {
			if len(node.Spec.PodCIDRs) == 0 {
				n++
			}
		}
		if best < 0 || n < best {
			best, since = n, time.Now()
		}
		if time.Since(since) >= 3*time.Second && time.Since(leaderSince) >= 6*time.Second {
			return best
		}
	}
	return best
}

// minStepGap is the least time between the end of a step and the start of
// the next: a step slowed by an apiserver or etcd restart (each retries
// until it succeeds) must not run the next ones back to back, or the wave
// under ReuseOldest would be followed at once by the switch to a delay of
// 0, before NodeIPAM served its nodes.
const minStepGap = 4 * time.Second

// runSteps runs the node waves and range edits at their times, each at
// least minStepGap after the previous one ended. While "c" is out of the
// spec every wave also deletes the nodes holding its blocks.
func (r *run) runSteps(ctx context.Context, start time.Time) {
	var last time.Time
	for _, s := range r.plan.Steps {
		at := start.Add(s.At)
		if earliest := last.Add(minStepGap); at.Before(earliest) {
			at = earliest
		}
		if !sleepUntil(ctx, at) {
			return
		}
		if s.Wave > 0 {
			r.storm.wave(ctx, s.Full)
			created, deleted := r.storm.counts()
			progress("%s: node wave %d: %d nodes (%d created, %d deleted so far)", r.opts.Label, s.Wave, len(r.storm.nodes), created, deleted)
			if s.WaitServed {
				waiting := r.waitServed(ctx)
				progress("%s: node wave %d served, %d nodes wait for a block", r.opts.Label, s.Wave, waiting)
			}
		} else {
			if err := r.edit(ctx, s.Edit); err != nil {
				progress("%s: %s: %v", r.opts.Label, s.Edit, err)
				continue
			}
			progress("%s: %s", r.opts.Label, s.Edit)
		}
		if c := r.cfg.ranges("c"); !r.inSpec(c[0]) {
			var prefixes []netip.Prefix
			for _, name := range c {
				prefixes = append(prefixes, r.cfg.rangePrefix(name))
			}
			if n := r.storm.deleteHolders(ctx, prefixes...); n > 0 {
				progress("%s: deleted %d nodes holding blocks of %s", r.opts.Label, n, strings.Join(c, " and "))
			}
		}
		last = time.Now()
	}
}

func (r *run) edit(ctx context.Context, e RangeEdit) error {
	err := retry(ctx, func() error {
		pn := &v1alpha1.PodNetwork{}
		if err := r.admin.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
			return err
		}
		pn.Spec.Ranges = r.cfg.edited(pn.Spec.Ranges, e)
		if pn.Spec.Allocation == nil {
			pn.Spec.Allocation = &v1alpha1.AllocationPolicy{}
		}
		switch e {
		case ReuseOldest:
			pn.Spec.Allocation.WhenExhausted = v1alpha1.WhenExhaustedReuseOldest
		case ZeroDelay:
			pn.Spec.Allocation.WhenExhausted = v1alpha1.WhenExhaustedWait
			pn.Spec.Allocation.RecycleDelaySeconds = ptr.To[int32](0)
		}
		return r.admin.Update(ctx, pn)
	})
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.spec = r.cfg.edited(r.spec, e)
	r.mu.Unlock()
	return nil
}

func (r *run) inSpec(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.spec, func(rg v1alpha1.PodCIDRRange) bool { return rg.Name == name })
}

// sleepUntil sleeps until t; false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Until(t)):
		return true
	}
}
