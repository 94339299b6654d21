package controllers

import (
	"context"
	"flag"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/adapters"
	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/nodeipam"
	"podnetwork.io/operator/controllers/watches"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// LeaderElectionID is the name of the Lease the operator's replicas compete
// for; only the holder reconciles and writes.
const LeaderElectionID = "podnetwork-operator"

// Options are the manager's settings; each one is a command-line flag.
type Options struct {
	MetricsBindAddress      string
	HealthProbeBindAddress  string
	PprofBindAddress        string
	LeaderElect             bool
	LeaderElectionNamespace string
	LeaseDuration           time.Duration
	RenewDeadline           time.Duration
	RetryPeriod             time.Duration
	KubeAPIQPS              float64
	KubeAPIBurst            int

	// StallAfter is how long a transition may wait for a required consumer
	// before the PodNetwork reports Degraded=True (TransitionStalled).
	StallAfter time.Duration

	// NodeIPAM configures the built-in multi-range NodeIPAM (controllers/nodeipam).
	NodeIPAM nodeipam.Options

	// Adapters configures the kube-proxy and flannel adapters (controllers/adapters).
	Adapters adapters.Options

	// SkipControllerNameValidation lets one process run the manager more
	// than once (tests that restart the operator in-process). Not a flag.
	SkipControllerNameValidation bool
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{
		MetricsBindAddress:     ":8080",
		HealthProbeBindAddress: ":8081",
		LeaderElect:            true,
		LeaseDuration:          15 * time.Second,
		RenewDeadline:          10 * time.Second,
		RetryPeriod:            2 * time.Second,
		KubeAPIQPS:             100,
		KubeAPIBurst:           200,
		StallAfter:             10 * time.Minute,
		NodeIPAM:               nodeipam.DefaultOptions(),
		Adapters:               adapters.DefaultOptions(),
	}
}

// BindFlags registers every option as a flag with its default and meaning.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress,
		"Address the Prometheus metrics endpoint binds to; \"0\" disables it.")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress,
		"Address the /healthz and /readyz probes bind to.")
	fs.StringVar(&o.PprofBindAddress, "pprof-bind-address", o.PprofBindAddress,
		"Address Go's pprof endpoints (/debug/pprof/) bind to, for diagnosing CPU and memory; empty or \"0\" disables them.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect,
		"Elect a leader through the Lease \""+LeaderElectionID+"\" so only one replica writes. Turn off only when a single replica runs.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace,
		"Namespace of the leader-election Lease; defaults to the pod's namespace in a cluster and is required outside one.")
	fs.DurationVar(&o.LeaseDuration, "leader-election-lease-duration", o.LeaseDuration,
		"How long non-leaders wait before taking over an unrenewed lease.")
	fs.DurationVar(&o.RenewDeadline, "leader-election-renew-deadline", o.RenewDeadline,
		"How long the leader retries renewing before it gives up leadership and exits.")
	fs.DurationVar(&o.RetryPeriod, "leader-election-retry-period", o.RetryPeriod,
		"How often leader-election clients retry.")
	fs.Float64Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS,
		"Sustained queries per second to the kube-apiserver.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst,
		"Burst of queries to the kube-apiserver above kube-api-qps.")
	fs.DurationVar(&o.StallAfter, "stall-after", o.StallAfter,
		"How long a range transition may wait for a required consumer before PodNetwork reports Degraded (TransitionStalled).")
	o.NodeIPAM.BindFlags(fs)
	o.Adapters.BindFlags(fs)
}

// Scheme returns a scheme with the built-in types and the podnetwork.io API.
func Scheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(podnetworkv1alpha1.AddToScheme(scheme))
	return scheme
}

// Run builds the manager, registers every controller and blocks until ctx is
// done or the manager fails. Losing leadership ends Run with an error, so the
// process exits and no former leader keeps writing.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = float32(opts.KubeAPIQPS)
	cfg.Burst = opts.KubeAPIBurst
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  Scheme(),
		Cache:                   adapters.CacheOptions(watches.CacheOptions(), opts.Adapters),
		Metrics:                 metricsserver.Options{BindAddress: opts.MetricsBindAddress},
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
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("adding health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("adding ready check: %w", err)
	}
	m, err := metrics.ForProcess(mgr.GetClient())
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
