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
	"testing"
	"time"
)

func TestThrottle(t *testing.T) {
	s := time.Second
	tests := []struct {
		name     string
		last     time.Duration // after t0; a zero time when never
		never    bool
		now      time.Duration
		every    time.Duration
		wantWait time.Duration
		wantDue  time.Duration
	}{
		{name: "the first signal passes at once", never: true, now: 0, every: s, wantWait: 0, wantDue: 0},
		{name: "a period after the last one: at once", last: 0, now: s, every: s, wantWait: 0, wantDue: s},
		{name: "long after the last one: at once", last: 0, now: 10 * s, every: s, wantWait: 0, wantDue: 10 * s},
		{name: "within the period: at its end", last: 0, now: 300 * time.Millisecond, every: s, wantWait: 700 * time.Millisecond, wantDue: s},
		{name: "while one is due: joins it", last: s, now: 300 * time.Millisecond, every: s, wantWait: 700 * time.Millisecond, wantDue: s},
		{name: "when the one due passes: the next period", last: s, now: s, every: s, wantWait: s, wantDue: 2 * s},
		{name: "no period: at once", last: 0, now: 1, every: 0, wantWait: 0, wantDue: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			last := t0.Add(tt.last)
			if tt.never {
				last = time.Time{}
			}
			wait, due := Throttle(last, t0.Add(tt.now), tt.every)
			if wait != tt.wantWait || !due.Equal(t0.Add(tt.wantDue)) {
				t.Errorf("Throttle(%v, %v, %v) = %v, %v; want %v, %v", tt.last, tt.now, tt.every, wait, due.Sub(t0), tt.wantWait, tt.wantDue)
			}
		})
	}
}
