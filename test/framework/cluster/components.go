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
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// startTimeout bounds how long a component may take to report healthy.
const startTimeout = 2 * time.Minute

// ControllerManagerOptions selects what kube-controller-manager runs.
type ControllerManagerOptions struct {
	// Controllers is the --controllers list, e.g. {"nodeipam", "daemonset"}.
	Controllers []string
	// QPS and Burst are the client limits; zero keeps kube-controller-manager's
	// defaults (20 and 30).
	QPS   int
	Burst int
	// Args are extra flags (name without dashes → value), for example
	// "allocate-node-cidrs": "true", "cluster-cidr": "10.244.0.0/16".
	Args map[string]string
	// Name distinguishes several instances in logs; "kube-controller-manager"
	// when empty.
	Name string
}

// StartControllerManager runs the real kube-controller-manager against the
// cluster and waits until it is healthy.
func (c *Cluster) StartControllerManager(opts ControllerManagerOptions) error {
	_, err := c.RunControllerManager(opts)
	return err
}

// RunControllerManager is StartControllerManager returning the process, for
// callers that stop it before the cluster (a benchmark starts one per run)
// or read its resource usage.
func (c *Cluster) RunControllerManager(opts ControllerManagerOptions) (*Process, error) {
	bin, err := c.Binary("kube-controller-manager")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := map[string]string{
		"kubeconfig":                c.KubeconfigPath,
		"authentication-kubeconfig": c.KubeconfigPath,
		"authorization-kubeconfig":  c.KubeconfigPath,
		"controllers":               strings.Join(opts.Controllers, ","),
		"leader-elect":              "false",
		"bind-address":              "127.0.0.1",
		"secure-port":               fmt.Sprint(port),
		"cert-dir":                  filepath.Join(c.WorkDir, "kcm-certs"),
	}
	if opts.QPS > 0 {
		args["kube-api-qps"] = fmt.Sprint(opts.QPS)
	}
	if opts.Burst > 0 {
		args["kube-api-burst"] = fmt.Sprint(opts.Burst)
	}
	maps.Copy(args, opts.Args)
	name := opts.Name
	if name == "" {
		name = "kube-controller-manager"
	}
	p, err := c.startProcess(name, bin, flagList(args)...)
	if err != nil {
		return nil, err
	}
	if err := p.waitHealthy("https", port); err != nil {
		return nil, err
	}
	return &Process{p: p}, nil
}

// StartScheduler runs the real kube-scheduler. DaemonSet pods need it: the
// DaemonSet controller targets nodes through node affinity and leaves the
// binding to the scheduler.
func (c *Cluster) StartScheduler() error {
	bin, err := c.Binary("kube-scheduler")
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	args := map[string]string{
		"kubeconfig":                c.KubeconfigPath,
		"authentication-kubeconfig": c.KubeconfigPath,
		"authorization-kubeconfig":  c.KubeconfigPath,
		"leader-elect":              "false",
		"bind-address":              "127.0.0.1",
		"secure-port":               fmt.Sprint(port),
		"cert-dir":                  filepath.Join(c.WorkDir, "scheduler-certs"),
	}
	p, err := c.startProcess("kube-scheduler", bin, flagList(args)...)
	if err != nil {
		return err
	}
	return p.waitHealthy("https", port)
}

// KwokOptions configures kwok, which plays the kubelets of fake nodes: it
// marks them Ready, keeps their heartbeats and runs their pods.
type KwokOptions struct {
	// NodeLabelSelector picks the nodes kwok manages, e.g. "type=kwok".
	NodeLabelSelector string
	// Binary and StagesFile default to bin/kwok and bin/kwok-stages.yaml
	// (`make kwok` installs both).
	Binary     string
	StagesFile string
}

// KwokNodeLabel is the label the harness's fake nodes carry by default.
const KwokNodeLabel = "type=kwok"

// StartKwok runs kwok against the cluster and waits until it is healthy.
func (c *Cluster) StartKwok(opts KwokOptions) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	if opts.Binary == "" {
		opts.Binary = filepath.Join(root, "bin", "kwok")
	}
	if opts.StagesFile == "" {
		opts.StagesFile = filepath.Join(root, "bin", "kwok-stages.yaml")
	}
	if opts.NodeLabelSelector == "" {
		opts.NodeLabelSelector = KwokNodeLabel
	}
	if !isExecutable(opts.Binary) {
		return fmt.Errorf("kwok not found at %s: run `make kwok`", opts.Binary)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	args := map[string]string{
		"kubeconfig":                       c.KubeconfigPath,
		"config":                           opts.StagesFile,
		"manage-all-nodes":                 "false",
		"manage-nodes-with-label-selector": opts.NodeLabelSelector,
		"server-address":                   fmt.Sprintf("127.0.0.1:%d", port),
	}
	p, err := c.startProcess("kwok", opts.Binary, flagList(args)...)
	if err != nil {
		return err
	}
	return p.waitHealthy("http", port)
}

// flagList renders flags in a stable order so logs are comparable.
func flagList(args map[string]string) []string {
	out := make([]string, 0, len(args))
	for _, k := range slices.Sorted(maps.Keys(args)) {
		out = append(out, fmt.Sprintf("--%s=%s", k, args[k]))
	}
	return out
}
