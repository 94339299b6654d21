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

package allocator

import "time"

// DefaultMaxQuarantine bounds the freed blocks remembered over all ranges
// once their recycle delay has passed (see the package documentation).
const DefaultMaxQuarantine = 4096

// ExhaustedPolicy says what Assign does when every unallocated block of a
// range is still in quarantine.
type ExhaustedPolicy int

const (
	// Wait fails with a *QuarantinedError so the caller retries later. This is
	// the safe default: a block freed moments ago may still be routed to, or
	// used by pods of, the deleted Node.
	Wait ExhaustedPolicy = iota
	// ReuseOldest hands out the block freed longest ago even though its
	// recycle delay has not passed, trading safety for availability.
	ReuseOldest
)

// String returns the policy name.
func (p ExhaustedPolicy) String() string {
	switch p {
	case Wait:
		return "Wait"
	case ReuseOldest:
		return "ReuseOldest"
	default:
		return "Unknown"
	}
}

// Options configure an Allocator.
type Options struct {
	// RecycleDelay is how long a freed block stays in quarantine before it is
	// reused without ReuseOldest. Zero means reusable at once (still after
	// every never-used block). Negative values are treated as zero.
	RecycleDelay time.Duration
	// WhenExhausted picks Wait (default) or ReuseOldest.
	WhenExhausted ExhaustedPolicy
	// MaxQuarantine bounds the remembered freed blocks over all ranges:
	// beyond it the ones freed longest ago are forgotten once their delay
	// has passed, never before. Zero or negative means DefaultMaxQuarantine.
	MaxQuarantine int
}

func (o Options) withDefaults() Options {
	if o.RecycleDelay < 0 {
		o.RecycleDelay = 0
	}
	if o.MaxQuarantine <= 0 {
		o.MaxQuarantine = DefaultMaxQuarantine
	}
	return o
}

// SetPolicy replaces RecycleDelay and WhenExhausted, for example when the
// PodNetwork's spec.allocation changes. Remembered freed blocks keep their
// freed times, and held-back blocks their heldBackAt, so a shorter delay ends
// their quarantine at once (held-back blocks at the next call that takes the
// current time) and a longer one extends it.
func (a *Allocator) SetPolicy(recycleDelay time.Duration, whenExhausted ExhaustedPolicy) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opts.RecycleDelay = recycleDelay
	a.opts.WhenExhausted = whenExhausted
	a.opts = a.opts.withDefaults()
}
