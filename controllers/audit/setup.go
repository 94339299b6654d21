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

package audit

import (
	"fmt"

	"k8s.io/client-go/util/flowcontrol"
	ctrl "sigs.k8s.io/controller-runtime"

	adaptersctrl "podnetwork.io/operator/controllers/adapters"
	"podnetwork.io/operator/controllers/metrics"
)

// eventSource is the reporting controller of the audit's events.
const eventSource = "podnetwork-audit"

// Setup adds the audit to the manager; components say where every
// adapter of the registry finds its configuration (the adapters' options,
// enabled or not).
func Setup(mgr ctrl.Manager, opts Options, components []adaptersctrl.Component, m *metrics.Metrics) error {
	if err := opts.validate(); err != nil {
		return err
	}
	a := &auditor{
		opts:     opts,
		cache:    mgr.GetCache(),
		reader:   mgr.GetAPIReader(),
		adapters: components,
		recorder: mgr.GetEventRecorder(eventSource),
		metrics:  m,
		pages:    flowcontrol.NewTokenBucketRateLimiter(float32(opts.PagesPerSecond), 1),
	}
	if err := mgr.Add(a); err != nil {
		return fmt.Errorf("adding the audit: %w", err)
	}
	return nil
}
