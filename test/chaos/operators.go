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
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/chaos/faultproxy"
	"podnetwork.io/operator/test/framework/cluster"
)

// LeaseNamespace holds the operators' leader-election Lease.
const LeaseNamespace = "chaos-system"

// A replica that exited stays down restartDelay before it starts again,
// doubled for every start in a row that ran less than stableRun (it cannot
// reach the apiserver while that restarts), up to maxRestartDelay: a
// kubelet's crash-loop back-off, shortened.
const (
	restartDelay    = time.Second
	maxRestartDelay = 8 * time.Second
	stableRun       = 10 * time.Second
)

// operators runs two replicas of the operator binary, each restarted
// whenever it exits. Every start is a new process ("operator-a.3": replica
// a, third start) with its own proxy listener, so each request and each
// Lease identity belongs to exactly one process.
type operators struct {
	cluster *cluster.Cluster
	proxy   *faultproxy.Proxy
	binary  string
	// args are the operator's flags beyond those of leader election.
	args []string
	// reader reads the Lease (from the recording apiserver, which no fault
	// touches).
	reader client.Reader
	log    *faultproxy.Log

	mu       sync.Mutex
	current  map[string]*replica // by replica name
	stopping bool
	wg       sync.WaitGroup
	starts   int
}

// errStopping says no replica starts any more.
var errStopping = errors.New("the operators are stopping")

// replica is one running operator process.
type replica struct {
	process string
	proc    *cluster.Process
}

func (o *operators) start(ctx context.Context, names ...string) error {
	o.current = map[string]*replica{}
	for _, name := range names {
		first, err := o.run(name, 1)
		if err != nil {
			return err
		}
		o.wg.Add(1)
		go o.supervise(ctx, name, first)
	}
	return nil
}

// run starts generation gen of replica name.
func (o *operators) run(name string, gen int) (*replica, error) {
	process := fmt.Sprintf("operator-%s.%d", name, gen)
	url, err := o.proxy.Listen(process)
	if err != nil {
		return nil, err
	}
	kubeconfig, err := writeKubeconfig(filepath.Join(o.cluster.WorkDir, process+".kubeconfig"), url, o.proxy.CAData())
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopping {
		return nil, errStopping
	}
	args := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=true",
		"--leader-election-namespace=" + LeaseNamespace,
		"--leader-election-lease-duration=" + LeaseDuration.String(),
		"--leader-election-renew-deadline=" + RenewDeadline.String(),
		"--leader-election-retry-period=" + RetryPeriod.String(),
		"--metrics-bind-address=0",
		"--health-probe-bind-address=0",
	}, o.args...)
	proc, err := o.cluster.Run(process, o.binary, args...)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", process, err)
	}
	r := &replica{process: process, proc: proc}
	o.current[name] = r
	o.starts++
	return r, nil
}

// supervise restarts replica name each time it exits, until stop.
func (o *operators) supervise(ctx context.Context, name string, r *replica) {
	defer o.wg.Done()
	delay := restartDelay
	started := time.Now()
	for gen := 2; ; gen++ {
		select {
		case <-r.proc.Done():
		case <-ctx.Done():
			return
		}
		if time.Since(started) >= stableRun {
			delay = restartDelay
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return
		}
		delay = min(2*delay, maxRestartDelay)
		started = time.Now()
		next, err := o.run(name, gen)
		if errors.Is(err, errStopping) {
			return
		}
		if err != nil {
			progress("restarting replica %s: %v", name, err)
			continue
		}
		r = next
	}
}

// leader returns the replica whose process holds an unexpired Lease, nil
// when none does (a failover is under way).
func (o *operators) leader(ctx context.Context) *replica {
	lease := &coordinationv1.Lease{}
	if err := o.reader.Get(ctx, client.ObjectKey{Namespace: LeaseNamespace, Name: controllers.LeaderElectionID}, lease); err != nil {
		return nil
	}
	if lease.Spec.HolderIdentity == nil || lease.Spec.RenewTime == nil || lease.Spec.LeaseDurationSeconds == nil {
		return nil
	}
	if time.Since(lease.Spec.RenewTime.Time) > time.Duration(*lease.Spec.LeaseDurationSeconds)*time.Second {
		return nil
	}
	process := o.log.Identities()[*lease.Spec.HolderIdentity]
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range o.current {
		if r.process == process && !r.proc.Exited() {
			return r
		}
	}
	return nil
}

// standby returns a running replica that is not r.
func (o *operators) standby(r *replica) *replica {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.current {
		if s != r && !s.proc.Exited() {
			return s
		}
	}
	return nil
}

// waitLeader polls until a replica leads, up to timeout.
func (o *operators) waitLeader(ctx context.Context, timeout time.Duration) *replica {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if r := o.leader(ctx); r != nil {
			return r
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// waitStandby polls until a replica runs beside a leader (one that was
// just paused or killed may be restarting), up to timeout.
func (o *operators) waitStandby(ctx context.Context, timeout time.Duration) *replica {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if l := o.leader(ctx); l != nil {
			if s := o.standby(l); s != nil {
				return s
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// stop stops every replica (SIGTERM) and the restarts.
func (o *operators) stop() {
	o.mu.Lock()
	o.stopping = true
	procs := make([]*replica, 0, len(o.current))
	for _, r := range o.current {
		procs = append(procs, r)
	}
	o.mu.Unlock()
	for _, r := range procs {
		_ = r.proc.Stop()
	}
	o.wg.Wait()
}

// processes returns how many operator processes were started.
func (o *operators) processes() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.starts
}

// writeKubeconfig writes a kubeconfig for a proxy listener: HTTPS with the
// proxy's CA, so the operator's client speaks HTTP/2 to it as to an
// apiserver; no credentials, the proxy authenticates upstream.
func writeKubeconfig(path, server string, caData []byte) (string, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["chaos"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caData}
	kc.AuthInfos["chaos"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["chaos"] = &clientcmdapi.Context{Cluster: "chaos", AuthInfo: "chaos"}
	kc.CurrentContext = "chaos"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}
