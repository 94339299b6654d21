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

package nodeipam

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Default event backoff: the first CIDRNotAvailable event of a node at once,
// the next after a minute, doubling up to ten minutes, so a node that waits
// for a day gets about 150 events rather than one per retry
// (kube-controller-manager has been seen emitting x4051 over 9 days).
const (
	DefaultEventBackoff    = time.Minute
	DefaultMaxEventBackoff = 10 * time.Minute
)

// Backoff decides when a warning about a key (a node name) may be emitted
// again, and how long to wait before the next retry. It is safe for
// concurrent use; Forget a key once it succeeded or is gone, which also
// bounds the memory to the keys currently failing.
type Backoff struct {
	initial, max time.Duration
	clock        clock.PassiveClock

	mu      sync.Mutex
	entries map[string]backoffEntry
}

type backoffEntry struct {
	period    time.Duration // current period, doubled after every emitted event
	nextEvent time.Time     // no event before this
}

// NewBackoff returns a Backoff whose period starts at initial and doubles up
// to maxPeriod. A non-positive initial means DefaultEventBackoff; a maxPeriod
// below initial means DefaultMaxEventBackoff (or initial if larger).
func NewBackoff(initial, maxPeriod time.Duration, c clock.PassiveClock) *Backoff {
	if initial <= 0 {
		initial = DefaultEventBackoff
	}
	if maxPeriod < initial {
		maxPeriod = max(DefaultMaxEventBackoff, initial)
	}
	return &Backoff{initial: initial, max: maxPeriod, clock: c, entries: map[string]backoffEntry{}}
}

// Failure records one failure for key and returns whether an event may be
// emitted now (at most once per period) and the current period, which is
// also the longest the caller should wait before retrying.
func (b *Backoff) Failure(key string) (emit bool, period time.Duration) {
	now := b.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	switch {
	case !ok:
		e = backoffEntry{period: b.initial, nextEvent: now.Add(b.initial)}
		emit = true
	case !now.Before(e.nextEvent):
		e.period = min(2*e.period, b.max)
		e.nextEvent = now.Add(e.period)
		emit = true
	}
	b.entries[key] = e
	return emit, e.period
}

// Forget drops key: its next failure emits at once again.
func (b *Backoff) Forget(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.entries, key)
}

// Len returns the number of keys currently backing off.
func (b *Backoff) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.entries)
}
