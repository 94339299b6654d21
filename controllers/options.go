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
	"flag"
	"time"

	"podnetwork.io/operator/controllers/adapters"
	"podnetwork.io/operator/controllers/audit"
	"podnetwork.io/operator/controllers/autoscale"
	"podnetwork.io/operator/controllers/drain"
	"podnetwork.io/operator/controllers/lifecycle"
	"podnetwork.io/operator/controllers/nodeipam"
)

// LeaderElectionID is the name of the Lease the operator's replicas compete
// for; only the holder reconciles and writes.
const LeaderElectionID = "podnetwork-operator"

// Options are the manager's settings and, composed, those of every
// subsystem; each one is a command-line flag, bound next to what it
// configures.
type Options struct {
	MetricsBindAddress string
	// MetricsSecure serves /metrics over HTTPS to authenticated and
	// authorized clients only (TokenReview, then a SubjectAccessReview for
	// get on the non-resource URL /metrics). false serves plain HTTP to
	// anyone who can reach the port.
	MetricsSecure bool
	// MetricsCertDir holds the metrics server's tls.crt and tls.key, reloaded
	// when they change; empty (or missing files): a self-signed certificate
	// generated in memory at start.
	MetricsCertDir          string
	HealthProbeBindAddress  string
	PprofBindAddress        string
	LeaderElect             bool
	LeaderElectionNamespace string
	LeaseDuration           time.Duration
	RenewDeadline           time.Duration
	RetryPeriod             time.Duration
	KubeAPIQPS              float64
	KubeAPIBurst            int

	// Lifecycle configures the range lifecycle controller
	// (controllers/lifecycle).
	Lifecycle lifecycle.Options

	// NodeIPAM configures the built-in multi-range NodeIPAM (controllers/nodeipam).
	NodeIPAM nodeipam.Options

	// Adapters configures the kube-proxy and flannel adapters (controllers/adapters).
	Adapters adapters.Options

	// Autoscaler configures the autoscaler (controllers/autoscale).
	Autoscaler autoscale.Options

	// DrainAssist configures drain assist (controllers/drain).
	DrainAssist drain.Options

	// Audit configures the continuous audit (controllers/audit).
	Audit audit.Options

	// SkipControllerNameValidation lets one process run the manager more
	// than once (tests that restart the operator in-process). Not a flag.
	SkipControllerNameValidation bool
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{
		MetricsBindAddress:     ":8080",
		MetricsSecure:          true,
		HealthProbeBindAddress: ":8081",
		LeaderElect:            true,
		LeaseDuration:          15 * time.Second,
		RenewDeadline:          10 * time.Second,
		RetryPeriod:            2 * time.Second,
		KubeAPIQPS:             100,
		KubeAPIBurst:           200,
		Lifecycle:              lifecycle.DefaultOptions(),
		NodeIPAM:               nodeipam.DefaultOptions(),
		Adapters:               adapters.DefaultOptions(),
		Autoscaler:             autoscale.DefaultOptions(),
		DrainAssist:            drain.DefaultOptions(),
		Audit:                  audit.DefaultOptions(),
	}
}

// BindFlags registers every option as a flag with its default and meaning.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress,
		"Address the Prometheus metrics endpoint binds to; \"0\" disables it.")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure,
		"Serve /metrics over HTTPS, only to clients whose bearer token the apiserver authenticates (TokenReview) and authorizes to get the non-resource URL /metrics (SubjectAccessReview). false serves plain HTTP to anyone who can reach the port.")
	fs.StringVar(&o.MetricsCertDir, "metrics-cert-dir", o.MetricsCertDir,
		"Directory holding tls.crt and tls.key for the secure metrics endpoint, reloaded when they change (e.g. a mounted cert-manager Secret); empty: a self-signed certificate generated at start.")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress,
		"Address the /healthz and /readyz probes bind to.")
	fs.StringVar(&o.PprofBindAddress, "pprof-bind-address", o.PprofBindAddress,
		"Address Go's pprof endpoints (/debug/pprof/) bind to, for diagnosing CPU and memory; empty or \"0\" disables them.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect,
		"Elect a leader through the Lease \""+LeaderElectionID+"\" so only one replica writes. Turn off only when a single replica runs: without it nothing fences the writes, and the operator logs a warning at start.")
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
	o.Lifecycle.BindFlags(fs)
	o.NodeIPAM.BindFlags(fs)
	o.Adapters.BindFlags(fs)
	o.Autoscaler.BindFlags(fs)
	o.DrainAssist.BindFlags(fs)
	o.Audit.BindFlags(fs)
}
