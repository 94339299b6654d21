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
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"podnetwork.io/operator/controllers/adapters"
	"podnetwork.io/operator/controllers/audit"
	"podnetwork.io/operator/controllers/autoscale"
	"podnetwork.io/operator/controllers/drain"
	"podnetwork.io/operator/controllers/lifecycle"
	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/nodeipam"
)

// setupControllers registers every reconciler with the manager.
func setupControllers(mgr ctrl.Manager, opts Options, m *metrics.Metrics) error {
	if err := lifecycle.Setup(mgr, opts.Lifecycle, m); err != nil {
		return err
	}
	if opts.NodeIPAM.Enabled {
		if err := nodeipam.Setup(mgr, opts.NodeIPAM, m); err != nil {
			return fmt.Errorf("setting up NodeIPAM: %w", err)
		}
	}
	adapterOpts := opts.Adapters
	adapterOpts.NodeIPAM = opts.NodeIPAM.Enabled
	if err := adapters.Setup(mgr, adapterOpts); err != nil {
		return fmt.Errorf("setting up adapters: %w", err)
	}
	if opts.Autoscaler.Enabled {
		if err := autoscale.Setup(mgr, opts.Autoscaler, m); err != nil {
			return err
		}
	}
	// Always registered: spec.drainAssist.mode says whether it acts.
	if err := drain.Setup(mgr, opts.DrainAssist, m); err != nil {
		return err
	}
	if opts.Audit.Enabled {
		if err := audit.Setup(mgr, opts.Audit, opts.Adapters.Components, m); err != nil {
			return fmt.Errorf("setting up the audit: %w", err)
		}
	}
	return nil
}
