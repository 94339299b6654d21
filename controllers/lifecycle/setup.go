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

package lifecycle

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"podnetwork.io/operator/controllers/metrics"
)

// eventSource is the reporting controller of the lifecycle's events.
const eventSource = "podnetwork-lifecycle"

// Setup registers the lifecycle controller with the manager.
func Setup(mgr ctrl.Manager, opts Options, m *metrics.Metrics) error {
	if err := (&Reconciler{
		Client:     mgr.GetClient(),
		Cache:      mgr.GetCache(),
		Recorder:   mgr.GetEventRecorder(eventSource),
		StallAfter: opts.StallAfter,
		Metrics:    m,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the PodNetwork lifecycle controller: %w", err)
	}
	return nil
}
