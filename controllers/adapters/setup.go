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

package adapters

import (
	"fmt"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Setup registers the enabled adapters: each registers its
// PodNetworkConsumer once it is leader and reconciles its component.
func Setup(mgr ctrl.Manager, opts Options) error {
	if err := opts.validate(); err != nil {
		return err
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	for _, c := range opts.Components {
		if !c.Enabled {
			continue
		}
		r := &Reconciler{
			Client: mgr.GetClient(), Cache: mgr.GetCache(), Clock: clk, Limits: opts.Limits, NodeIPAM: opts.NodeIPAM,
			Adapter: c.Adapter, ConfigMap: c.ConfigMap, DaemonSet: c.DaemonSet,
			Recorder: mgr.GetEventRecorder("podnetwork-" + c.Adapter.Name + "-adapter"),
		}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the %s adapter: %w", c.Adapter.Name, err)
		}
		if err := mgr.Add(r.consumerClient().Registration(r.spec())); err != nil {
			return fmt.Errorf("adding the %s adapter's registration: %w", c.Adapter.Name, err)
		}
	}
	return nil
}
