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

package controllers

import (
	"cmp"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"podnetwork.io/operator/controllers/adapters"
	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/scheme"
)

// The secure metrics endpoint authenticates each scrape's bearer token with a
// TokenReview and authorizes it with a SubjectAccessReview (get on the
// non-resource URL /metrics), as kubebuilder scaffolds do.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// metricsOptions configures the metrics server: HTTPS behind Kubernetes
// authentication and authorization unless opts.MetricsSecure is off.
func metricsOptions(opts Options) metricsserver.Options {
	if !opts.MetricsSecure {
		return metricsserver.Options{BindAddress: opts.MetricsBindAddress}
	}
	return metricsserver.Options{
		BindAddress:   opts.MetricsBindAddress,
		SecureServing: true,
		FilterProvider: func(c *rest.Config, hc *http.Client) (metricsserver.Filter, error) {
			return filters.WithAuthenticationAndAuthorization(c, metrics.CountAuthRequests(hc))
		},
		// Empty: controller-runtime's default directory, normally without
		// files, so it serves a self-signed certificate.
		CertDir: opts.MetricsCertDir,
		// HTTP/1.1 only: HTTP/2's stream cancellation and rapid reset
		// (CVE-2023-44487, CVE-2023-39325) need not be exposed for a scrape.
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	}
}

// inClusterNamespaceFile holds the namespace of the pod the process runs in.
const inClusterNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// podNamespace is the namespace of the pod the operator runs in, from its
// ServiceAccount token mount; an error outside a pod.
func podNamespace() (string, error) {
	ns, err := os.ReadFile(inClusterNamespaceFile)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(ns)), nil
}

// Scheme returns a scheme with the built-in types and the podnetwork.io API
// (internal/scheme, which the kubectl plugin shares).
func Scheme() *runtime.Scheme { return scheme.Scheme() }

// warnUnfenced logs a warning when leader election is off. The write fence
// (fence.go) rests on the lease, so nothing then keeps a second process
// from writing: a second replica, or the old pod of a rolling update, would
// be a second allocator handing out the same blocks. The chart refuses
// more than one replica without leader election, but a flag cannot know
// how many processes run, so the operator says it at start.
func warnUnfenced(log logr.Logger, opts Options) {
	if opts.LeaderElect {
		return
	}
	log.Info("WARNING: leader election is off (--leader-elect=false): nothing fences this process's writes, " +
		"so it must be the only one running; a second replica would assign the same node podCIDRs")
}

// Run builds the manager, registers every controller and blocks until ctx is
// done or the manager fails. Losing leadership ends Run with an error, so the
// process exits and no former leader keeps writing.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	cfg = rest.CopyConfig(cfg)
	if opts.NodeIPAM.RecordNamespace == "" {
		ns, _ := podNamespace() // empty outside a pod, where the options' validation asks for a flag
		opts.NodeIPAM.RecordNamespace = cmp.Or(opts.LeaderElectionNamespace, ns)
	}
	cfg.QPS = float32(opts.KubeAPIQPS)
	cfg.Burst = opts.KubeAPIBurst
	mgrOpts := ctrl.Options{
		Scheme:                  Scheme(),
		Cache:                   adapters.CacheOptions(watches.CacheOptions(), opts.Adapters),
		Metrics:                 metricsOptions(opts),
		HealthProbeBindAddress:  opts.HealthProbeBindAddress,
		PprofBindAddress:        opts.PprofBindAddress,
		LeaderElection:          opts.LeaderElect,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: opts.LeaderElectionNamespace,
		LeaseDuration:           &opts.LeaseDuration,
		RenewDeadline:           &opts.RenewDeadline,
		RetryPeriod:             &opts.RetryPeriod,
		Controller:              config.Controller{SkipNameValidation: ptr.To(opts.SkipControllerNameValidation)},
		// Release the lease on a clean shutdown so a rolling update hands over
		// at once instead of after a lease duration.
		LeaderElectionReleaseOnCancel: true,
	}
	if opts.LeaderElect {
		fenced, stop, err := fenceWrites(cfg, opts, &mgrOpts)
		if err != nil {
			return err
		}
		defer stop()
		opts.NodeIPAM.FenceWrites = fenced
	}
	warnUnfenced(ctrl.Log.WithName("setup"), opts)
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("adding health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("adding ready check: %w", err)
	}
	m, err := metrics.ForProcess(mgr.GetCache())
	if err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	if err := setupControllers(mgr, opts, m); err != nil {
		return err
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running manager: %w", err)
	}
	return nil
}
