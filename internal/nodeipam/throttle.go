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

import "time"

// Throttle decides when a signal that arrived at now passes on, so that
// signals pass at most once per every: at once when the last one passed at
// least every ago, else when that period ends. last is when the previous
// signal passed, or is due to pass if that is still ahead; due is the same
// for this one, to be handed back as last next time. A signal that arrives
// while one is due joins it. every ≤ 0 passes every signal at once.
func Throttle(last, now time.Time, every time.Duration) (wait time.Duration, due time.Time) {
	if every <= 0 {
		return 0, now
	}
	if now.Before(last) {
		return last.Sub(now), last
	}
	if next := last.Add(every); now.Before(next) {
		return next.Sub(now), next
	}
	return 0, now
}
