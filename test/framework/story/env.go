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

package story

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/refconsumer"
)

// The chart release the demo and the e2e suite install, and the ranges of
// the story.
const (
	ReleaseNamespace = "podnetwork-system"
	ReleaseName      = "podnetwork-operator"

	FirstRange  = "first"
	FirstCIDR   = "10.100.0.0/19" // 32 node blocks of /24
	SecondRange = "second"
	SecondCIDR  = "10.100.64.0/18" // 64 node blocks of /24

	// firstBlocks is how many nodes the first range serves.
	firstBlocks = 32
	// waitingNodes is how many nodes find the first range full.
	waitingNodes = 4
	// namedHolders is how many holders a range's status names.
	namedHolders = 20

	// AutoscalePool is the autoscaling pool of the last act, around the
	// second range (the first range's space is purged by then).
	AutoscalePool     = "pods"
	AutoscalePoolCIDR = "10.100.0.0/16"
	// growNodes join, one every growInterval, once the pool is on.
	growNodes    = 40
	growInterval = 250 * time.Millisecond
)

// Env is what the story drives.
type Env struct {
	// API is the admin's client.
	API framework.API
	// Nodes is how many nodes join in the first act (fewer than 32).
	Nodes int
	// RecycleDelaySeconds is the PodNetwork's allocation.recycleDelaySeconds.
	RecycleDelaySeconds int32
	// Plugin is the reference plugin's consumer name.
	Plugin string
}

// HelmInstallArgs are the arguments of `helm install` for the chart at
// chart, with the plugin allowed to acknowledge as ServiceAccount
// pluginNamespace/Plugin.
func (e *Env) HelmInstallArgs(chart, pluginNamespace string, extra ...string) []string {
	return append([]string{"install", ReleaseName, chart, "--namespace", ReleaseNamespace, "--create-namespace",
		"--set", "plugins[0].name=" + e.Plugin,
		"--set", "plugins[0].serviceAccount.name=" + e.Plugin,
		"--set", "plugins[0].serviceAccount.namespace=" + pluginNamespace}, extra...)
}

// NewPlugin returns a manager that runs the reference plugin with cfg (its
// ServiceAccount's configuration), acknowledging each phase delay after it
// begins; the caller starts it.
func (e *Env) NewPlugin(cfg *rest.Config, delay time.Duration) (ctrl.Manager, error) {
	mgr, err := framework.NewManager(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the plugin's manager: %w", err)
	}
	plugin := &refconsumer.Consumer{Client: mgr.GetClient(), Name: e.Plugin, Required: true, Delay: delay}
	if err := plugin.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the plugin: %w", err)
	}
	return mgr, nil
}

// AddNodes creates count nodes named <prefix>-<i> from index from on; the
// index gives each a node address outside every pod range.
func (e *Env) AddNodes(prefix string, from, count int) error {
	for i := from; i < from+count; i++ {
		if err := e.API.Create(e.API.Ctx, node(fmt.Sprintf("%s-%02d", prefix, i), i)); err != nil {
			return fmt.Errorf("creating node: %w", err)
		}
	}
	return nil
}

// AddNodesEvery creates count nodes named <prefix>-<i>, one every
// interval, as nodes join a growing cluster; index gives each a node
// address outside every pod range.
func (e *Env) AddNodesEvery(prefix string, from, count int, interval time.Duration) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for i := from; i < from+count; i++ {
		if i > from {
			select {
			case <-tick.C:
			case <-e.API.Ctx.Done():
				return e.API.Ctx.Err()
			}
		}
		if err := e.API.Create(e.API.Ctx, node(fmt.Sprintf("%s-%02d", prefix, i), i)); err != nil {
			return fmt.Errorf("creating node: %w", err)
		}
	}
	return nil
}

func node(name string, index int) *corev1.Node {
	return framework.Node(name).InternalIP(fmt.Sprintf("172.18.%d.%d", index/250, index%250+1)).Obj()
}
