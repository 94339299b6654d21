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

package drain

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"podnetwork.io/operator/controllers/metrics"
)

// Setup registers drain assist's controller with the manager. It is always
// registered: spec.drainAssist.mode says whether it acts.
func Setup(mgr ctrl.Manager, opts Options, m *metrics.Metrics) error {
	if err := (&Reconciler{
		Client:       mgr.GetClient(),
		APIReader:    mgr.GetAPIReader(),
		Cache:        mgr.GetCache(),
		Recorder:     mgr.GetEventRecorder(eventSource),
		Metrics:      m,
		PollInterval: opts.PollInterval,
		Clock:        opts.Clock,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up drain assist: %w", err)
	}
	return nil
}
