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

package framework

import (
	"context"

	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"podnetwork.io/operator/controllers"
)

// RecordNamespace holds NodeIPAM's issued-block record when a test runs
// the operator in-process: the API server creates it by itself.
const RecordNamespace = "kube-system"

// OperatorOptions are the operator's defaults as a test runs it in-process:
// no leader election, no metrics or probe listeners, NodeIPAM's record in
// RecordNamespace, and several managers allowed in one process; then
// mutate, in order.
func OperatorOptions(mutate ...func(*controllers.Options)) controllers.Options {
	opts := controllers.DefaultOptions()
	opts.LeaderElect = false
	opts.MetricsBindAddress = "0"
	opts.HealthProbeBindAddress = "0"
	opts.SkipControllerNameValidation = true
	opts.NodeIPAM.RecordNamespace = RecordNamespace
	for _, m := range mutate {
		m(&opts)
	}
	return opts
}

// WithoutNodeIPAM turns NodeIPAM off, for specs whose consumers are
// reference consumers or whose nodes get podCIDRs from fixtures.
func WithoutNodeIPAM(o *controllers.Options) { o.NodeIPAM.Enabled = false }

// RunOperator runs the operator's manager in-process with
// OperatorOptions(mutate...) until the process is stopped.
func RunOperator(ctx context.Context, cfg *rest.Config, mutate ...func(*controllers.Options)) *Process {
	opts := OperatorOptions(mutate...)
	return Go(ctx, func(ctx context.Context) error { return controllers.Run(ctx, cfg, opts) })
}

// StartOperator is RunOperator in a spec: an operator that fails while it
// should run fails the spec.
func StartOperator(ctx context.Context, cfg *rest.Config, mutate ...func(*controllers.Options)) *Process {
	opts := OperatorOptions(mutate...)
	return GoInSpec(ctx, "the operator", func(ctx context.Context) error { return controllers.Run(ctx, cfg, opts) })
}

// NewManager returns a manager for what runs beside the operator as its own
// process would (reference consumers, a plugin, the kubelet stand-in): the
// operator's scheme, no listeners, and controller names that may repeat
// across the managers of one test binary.
func NewManager(cfg *rest.Config) (ctrl.Manager, error) {
	return ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 controllers.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
}

// StartManager starts mgr in a spec until the process is stopped; a manager
// that fails meanwhile fails the spec.
func StartManager(ctx context.Context, name string, mgr ctrl.Manager) *Process {
	return GoInSpec(ctx, name, mgr.Start)
}
