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
	"os"
	"os/exec"
	"path/filepath"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/story"
)

const (
	pluginName      = "demo-plugin"
	pluginNamespace = "demo-plugin-system"
	// scraper is the ServiceAccount the chart's metrics.readers binds to the
	// metrics-reader role, as it would Prometheus'; the demo reads the
	// operator's metrics with one of its tokens.
	scraperName      = "prometheus"
	scraperNamespace = "monitoring"
	// pluginDelay makes the plugin's acknowledgements visible in the story.
	pluginDelay = 3 * time.Second
)

// demo holds what the story drives.
type demo struct {
	root         string
	controlPlane *framework.ControlPlane
	env          *story.Env
	operator     *framework.Process
	plugin       *framework.Process
	operatorLog  string
	metricsAddr  string
	// history records the PodNetwork, so the invariant check at the end
	// knows every range that was ever Active.
	history *framework.Recorder
}

// newDemo installs the chart, starts the operator as the chart's
// ServiceAccount and the reference plugin as its own ServiceAccount.
func newDemo(ctx context.Context, root string, cp *framework.ControlPlane, nodes int) (*demo, error) {
	d := &demo{root: root, controlPlane: cp, env: &story.Env{
		API: framework.NewAPI(ctx, cp.Client), Nodes: nodes, RecycleDelaySeconds: 5, Plugin: pluginName,
	}}

	say("helm install %s charts/podnetwork-operator (CRDs, ServiceAccount, RBAC, consumers, plugin role, metrics-reader role for %s/%s)",
		story.ReleaseName, scraperNamespace, scraperName)
	if err := d.helm(d.env.HelmInstallArgs(filepath.Join(root, "charts", "podnetwork-operator"), pluginNamespace,
		"--set", "metrics.readers[0].name="+scraperName, "--set", "metrics.readers[0].namespace="+scraperNamespace)...); err != nil {
		return nil, err
	}

	d.operatorLog = filepath.Join(cp.Cluster.WorkDir, "operator.log")
	logFile, err := os.Create(d.operatorLog)
	if err != nil {
		return nil, fmt.Errorf("creating operator log: %w", err)
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile)))

	if err := d.startOperator(ctx); err != nil {
		return nil, err
	}
	say("starting %q, a reference plugin that acknowledges each phase %s after it begins, as system:serviceaccount:%s:%s",
		pluginName, pluginDelay, pluginNamespace, pluginName)
	plugin, err := d.env.NewPlugin(cp.Cluster.ImpersonateServiceAccount(pluginNamespace, pluginName), pluginDelay)
	if err != nil {
		return nil, err
	}
	d.plugin = framework.Go(ctx, plugin.Start)
	return d, nil
}

// helm runs bin/helm against the embedded control plane.
func (d *demo) helm(args ...string) error {
	cmd := exec.Command(filepath.Join(d.root, "bin", "helm"), append(args, "--kubeconfig", d.controlPlane.Cluster.KubeconfigPath)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("helm %s: %w\n%s", args[0], err, out)
	}
	return nil
}

// startOperator runs the operator's manager out of cluster, impersonating
// the ServiceAccount the chart created, with leader election in the release
// namespace as in the cluster.
func (d *demo) startOperator(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	d.metricsAddr = fmt.Sprintf("127.0.0.1:%d", port)
	cfg := d.controlPlane.Cluster.ImpersonateServiceAccount(story.ReleaseNamespace, story.ReleaseName)
	say("starting the operator as system:serviceaccount:%s:%s (log: %s)", story.ReleaseNamespace, story.ReleaseName, d.operatorLog)
	d.operator = framework.RunOperator(ctx, cfg, func(o *controllers.Options) {
		o.LeaderElect = true
		o.LeaderElectionNamespace = story.ReleaseNamespace
		// The chart's Role lets the operator keep NodeIPAM's issued-block
		// record in the release namespace only, as in a cluster.
		o.NodeIPAM.RecordNamespace = story.ReleaseNamespace
		o.MetricsBindAddress = d.metricsAddr
		o.DrainAssist.PollInterval = drainPoll
	})
	return nil
}

// stop stops the plugin and the operator.
func (d *demo) stop() {
	if d.history != nil {
		d.history.Stop()
	}
	for _, p := range []*framework.Process{d.plugin, d.operator} {
		if p == nil {
			continue
		}
		if err := p.Stop(); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "demo:", err)
		}
	}
}
