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

package autoscale

import (
	"flag"
	"time"

	"k8s.io/utils/clock"
)

// Options configures the autoscaler's controller.
type Options struct {
	// Enabled runs the controller. Whether it acts is spec.autoscaling.mode;
	// turned off, the ranges it added stay declared (the lifecycle and
	// NodeIPAM still read AutoscaledRangeSet "default").
	Enabled bool

	// StatusInterval is the shortest time between two writes of
	// status.autoscaling that only refresh numbers (free blocks, rate,
	// forecast); a change of state, condition, recommendation or of the
	// ranges is written at once.
	StatusInterval time.Duration

	// Clock defaults to the real clock; tests inject a fake one. Not a flag.
	Clock clock.PassiveClock
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{Enabled: true, StatusInterval: 5 * time.Second}
}

// BindFlags registers the autoscaler's flags.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Enabled, "enable-autoscaler", o.Enabled,
		"Run the autoscaler, which grows the pod network from the pools of PodNetwork spec.autoscaling (when its mode is Auto or Recommend). Off, the ranges it added stay.")
	fs.DurationVar(&o.StatusInterval, "autoscaler-status-interval", o.StatusInterval,
		"Shortest time between two writes of PodNetwork status.autoscaling that only refresh its numbers.")
}
