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

	clocktesting "k8s.io/utils/clock/testing"
)

func TestBackoff(t *testing.T) {
	type step struct {
		advance    time.Duration
		key        string
		forget     bool
		wantEmit   bool
		wantPeriod time.Duration
	}
	tests := []struct {
		name        string
		initial, mx time.Duration
		steps       []step
	}{
		{
			name:    "one event per period, doubling up to the cap",
			initial: time.Minute, mx: 4 * time.Minute,
			steps: []step{
				{key: "n", wantEmit: true, wantPeriod: time.Minute},
				{advance: 10 * time.Second, key: "n", wantEmit: false, wantPeriod: time.Minute},
				{advance: 49 * time.Second, key: "n", wantEmit: false, wantPeriod: time.Minute},
				{advance: time.Second, key: "n", wantEmit: true, wantPeriod: 2 * time.Minute},
				{advance: time.Minute, key: "n", wantEmit: false, wantPeriod: 2 * time.Minute},
				{advance: time.Minute, key: "n", wantEmit: true, wantPeriod: 4 * time.Minute},
				{advance: 4 * time.Minute, key: "n", wantEmit: true, wantPeriod: 4 * time.Minute},
				{advance: 3 * time.Minute, key: "n", wantEmit: false, wantPeriod: 4 * time.Minute},
			},
		},
		{
			name:    "keys are independent; Forget starts over",
			initial: time.Minute, mx: 10 * time.Minute,
			steps: []step{
				{key: "a", wantEmit: true, wantPeriod: time.Minute},
				{key: "b", wantEmit: true, wantPeriod: time.Minute},
				{key: "a", wantEmit: false, wantPeriod: time.Minute},
				{key: "a", forget: true},
				{key: "a", wantEmit: true, wantPeriod: time.Minute},
				{key: "b", wantEmit: false, wantPeriod: time.Minute},
			},
		},
		{
			name:    "defaults",
			initial: 0, mx: 0,
			steps: []step{
				{key: "n", wantEmit: true, wantPeriod: DefaultEventBackoff},
				{advance: DefaultEventBackoff, key: "n", wantEmit: true, wantPeriod: 2 * DefaultEventBackoff},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(t0)
			b := NewBackoff(tt.initial, tt.mx, clk)
			for i, s := range tt.steps {
				clk.SetTime(clk.Now().Add(s.advance))
				if s.forget {
					b.Forget(s.key)
					continue
				}
				emit, period := b.Failure(s.key)
				if emit != s.wantEmit || period != s.wantPeriod {
					t.Fatalf("step %d: Failure(%q) = %v, %v; want %v, %v", i, s.key, emit, period, s.wantEmit, s.wantPeriod)
				}
			}
		})
	}
}
