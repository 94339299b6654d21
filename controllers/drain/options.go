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
	"flag"
	"time"

	"k8s.io/utils/clock"
)

// Options configures drain assist's controller. Whether it acts is
// spec.drainAssist.mode.
type Options struct {
	// PollInterval is how often it looks again while nodes hold blocks in
	// Draining ranges: it watches no pods, so it polls the pods of the
	// nodes it works on (and retries evictions a PodDisruptionBudget
	// refused) this often.
	PollInterval time.Duration

	// Clock defaults to the real clock; tests inject a fake one. Not a flag.
	Clock clock.PassiveClock
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{PollInterval: 10 * time.Second}
}

// BindFlags registers drain assist's flags.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.DurationVar(&o.PollInterval, "drain-assist-poll-interval", o.PollInterval,
		"How often drain assist (PodNetwork spec.drainAssist) looks again at the nodes it drains: their pods, and evictions a PodDisruptionBudget refused.")
}
