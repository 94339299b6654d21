package lifecycle

import (
	"fmt"

	"podnetwork.io/operator/controllers/metrics"
	ctrl "sigs.k8s.io/controller-runtime"
)

// eventSource is the reporting controller of the lifecycle's events.
const eventSource = "podnetwork-lifecycle"

// Setup registers the lifecycle controller with the manager.
func Setup(mgr ctrl.Manager, opts Options, m *metrics.Metrics) error {
	if err := (&Reconciler{
		Client:     mgr.GetClient(),
		Recorder:   mgr.GetEventRecorder(eventSource),
		StallAfter: opts.StallAfter,
		Metrics:    m,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the PodNetwork lifecycle controller: %w", err)
	}
	return nil
}
