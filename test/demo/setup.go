package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/cluster"
	"podnetwork.io/operator/test/invariants"
	"podnetwork.io/operator/test/refconsumer"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

const (
	releaseNamespace = "podnetwork-system"
	releaseName      = "podnetwork-operator"
	pluginName       = "demo-plugin"
	pluginNamespace  = "demo-plugin-system"
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
	root        string
	cluster     *cluster.Cluster
	admin       client.Client
	nodes       int
	cancel      context.CancelFunc
	done        chan error
	operatorLog string
	metricsAddr string
	// checker verifies at the end that no block was handed out twice.
	checker *invariants.Checker
}

// newDemo installs the chart, starts the operator as the chart's
// ServiceAccount and the reference plugin as its own ServiceAccount.
func newDemo(root string, c *cluster.Cluster, nodes int) (*demo, error) {
	admin, err := client.New(c.Config, client.Options{Scheme: controllers.Scheme()})
	if err != nil {
		return nil, fmt.Errorf("creating client: %w", err)
	}
	d := &demo{root: root, cluster: c, admin: admin, nodes: nodes, done: make(chan error, 2), checker: &invariants.Checker{}}

	say("helm install %s charts/podnetwork-operator (CRDs, ServiceAccount, RBAC, consumers, plugin role, metrics-reader role for %s/%s)",
		releaseName, scraperNamespace, scraperName)
	if err := d.helm("install", releaseName, filepath.Join(root, "charts", "podnetwork-operator"),
		"--namespace", releaseNamespace, "--create-namespace",
		"--set", "plugins[0].name="+pluginName,
		"--set", "plugins[0].serviceAccount.name="+pluginName,
		"--set", "plugins[0].serviceAccount.namespace="+pluginNamespace,
		"--set", "metrics.readers[0].name="+scraperName,
		"--set", "metrics.readers[0].namespace="+scraperNamespace,
	); err != nil {
		return nil, err
	}

	d.operatorLog = filepath.Join(c.WorkDir, "operator.log")
	logFile, err := os.Create(d.operatorLog)
	if err != nil {
		return nil, fmt.Errorf("creating operator log: %w", err)
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile)))

	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	if err := d.startOperator(ctx); err != nil {
		return nil, err
	}
	if err := d.startPlugin(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

// helm runs bin/helm against the embedded control plane.
func (d *demo) helm(args ...string) error {
	cmd := exec.Command(filepath.Join(d.root, "bin", "helm"), append(args, "--kubeconfig", d.cluster.KubeconfigPath)...)
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
	opts := controllers.DefaultOptions()
	opts.LeaderElectionNamespace = releaseNamespace
	opts.MetricsBindAddress = d.metricsAddr
	opts.HealthProbeBindAddress = "0"
	cfg := d.cluster.ImpersonateServiceAccount(releaseNamespace, releaseName)
	say("starting the operator as system:serviceaccount:%s:%s (log: %s)", releaseNamespace, releaseName, d.operatorLog)
	go func() { d.done <- controllers.Run(ctx, cfg, opts) }()
	return nil
}

// startPlugin runs the reference consumer as the plugin's ServiceAccount,
// which the chart allowed to write only its own PodNetworkConsumer status.
func (d *demo) startPlugin(ctx context.Context) error {
	cfg := d.cluster.ImpersonateServiceAccount(pluginNamespace, pluginName)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 controllers.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fmt.Errorf("creating the plugin's manager: %w", err)
	}
	plugin := &refconsumer.Consumer{Client: mgr.GetClient(), Name: pluginName, Required: true, Delay: pluginDelay}
	if err := plugin.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the plugin: %w", err)
	}
	say("starting %q, a reference plugin that acknowledges each phase %s after it begins, as system:serviceaccount:%s:%s",
		pluginName, pluginDelay, pluginNamespace, pluginName)
	go func() { d.done <- mgr.Start(ctx) }()
	return nil
}

// stop stops the operator and the plugin.
func (d *demo) stop() {
	if d.cancel == nil {
		return
	}
	d.cancel()
	for range 2 {
		select {
		case err := <-d.done:
			if err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintln(os.Stderr, "demo:", err)
			}
		case <-time.After(30 * time.Second):
			return
		}
	}
}
