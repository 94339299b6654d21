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

package cluster

import (
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"time"
)

// KarpenterOptions configures Karpenter's kwok cloud provider
// (sigs.k8s.io/karpenter/kwok, built by hack/karpenter.sh): the real
// Karpenter controllers (provisioning, NodeClaim lifecycle, the node
// termination finalizer, disruption) over fake instances, whose Nodes it
// creates itself. kwok (StartKwok) then plays their kubelets, so a NodePool's
// template must carry the label kwok selects (KwokNodeLabel).
type KarpenterOptions struct {
	// Binary defaults to bin/karpenter-kwok (`make karpenter` builds it).
	Binary string
	// Kubeconfig is the identity Karpenter acts as; the admin kubeconfig
	// when empty. A kubeconfig of its own (WriteKubeconfig of an
	// impersonating configuration) tells its requests apart in the
	// apiserver's audit log.
	Kubeconfig string
	// BatchIdleDuration and BatchMaxDuration bound how long Karpenter
	// gathers pending pods before it provisions (its defaults, 1s and 10s,
	// when zero).
	BatchIdleDuration time.Duration
	BatchMaxDuration  time.Duration
	// Args are extra flags (name without dashes → value), for example
	// "log-level": "debug".
	Args map[string]string
}

// KarpenterBinary is where `make karpenter` links Karpenter's kwok provider.
func KarpenterBinary() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "bin", "karpenter-kwok"), nil
}

// KarpenterCRDs is the directory of Karpenter's CRDs (NodePool, NodeClaim,
// NodeOverlay, CapacityBuffer, KWOKNodeClass) that `make karpenter` copies
// from the same module as the binary.
func KarpenterCRDs() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "bin", "karpenter-crds"), nil
}

// StartKarpenter runs Karpenter's kwok provider against the cluster, without
// leader election, and waits until it is healthy. Its CRDs must be
// installed first (KarpenterCRDs): it refuses to start without them.
func (c *Cluster) StartKarpenter(opts KarpenterOptions) (*Process, error) {
	if opts.Binary == "" {
		bin, err := KarpenterBinary()
		if err != nil {
			return nil, err
		}
		opts.Binary = bin
	}
	if !isExecutable(opts.Binary) {
		return nil, fmt.Errorf("karpenter-kwok not found at %s: run `make karpenter`", opts.Binary)
	}
	if opts.Kubeconfig == "" {
		opts.Kubeconfig = c.KubeconfigPath
	}
	// Karpenter takes its client configuration only from the environment
	// (KUBECONFIG, as controller-runtime reads it): its own flag set has no
	// --kubeconfig. env(1) sets it for the child alone.
	envBin, err := exec.LookPath("env")
	if err != nil {
		return nil, errors.New("env(1) not found: it passes KUBECONFIG to Karpenter")
	}
	health, err := freePort()
	if err != nil {
		return nil, err
	}
	metrics, err := freePort()
	if err != nil {
		return nil, err
	}
	args := map[string]string{
		"disable-leader-election": "true",
		"health-probe-port":       fmt.Sprint(health),
		"metrics-port":            fmt.Sprint(metrics),
	}
	if opts.BatchIdleDuration > 0 {
		args["batch-idle-duration"] = opts.BatchIdleDuration.String()
	}
	if opts.BatchMaxDuration > 0 {
		args["batch-max-duration"] = opts.BatchMaxDuration.String()
	}
	maps.Copy(args, opts.Args)
	argv := append([]string{"KUBECONFIG=" + opts.Kubeconfig, opts.Binary}, flagList(args)...)
	p, err := c.startProcess("karpenter", envBin, argv...)
	if err != nil {
		return nil, err
	}
	if err := p.waitHealthy("http", health); err != nil {
		return nil, err
	}
	return &Process{p: p}, nil
}
