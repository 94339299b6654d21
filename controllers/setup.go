package controllers

import (
	"fmt"

	"podnetwork.io/operator/controllers/adapters"
	"podnetwork.io/operator/controllers/lifecycle"
	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/nodeipam"
	ctrl "sigs.k8s.io/controller-runtime"
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
	if err := adapters.Setup(mgr, opts.Adapters); err != nil {
		return fmt.Errorf("setting up adapters: %w", err)
	}
	return nil
}
