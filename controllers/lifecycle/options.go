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
	"flag"
	"time"
)

// Options configures the lifecycle controller.
type Options struct {
	// StallAfter is how long a transition may wait for a required consumer
	// before the PodNetwork reports Degraded=True (TransitionStalled).
	StallAfter time.Duration
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{StallAfter: 10 * time.Minute}
}

// BindFlags registers the lifecycle flags.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.DurationVar(&o.StallAfter, "stall-after", o.StallAfter,
		"How long a range transition may wait for a required consumer before PodNetwork reports Degraded (TransitionStalled).")
}
