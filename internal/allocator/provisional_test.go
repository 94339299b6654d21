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

import (
	"net/netip"
	"slices"
	"testing"
	"time"
)

func TestUnassign(t *testing.T) {
	const delay = time.Minute
	tests := []struct {
		name string
		// run prepares the allocator and returns what Unassign("x") must
		// undo and the block the next Assign("y") must get.
		run        func(t *testing.T, a *Allocator) (undone []netip.Prefix, next netip.Prefix)
		wantFreed  map[netip.Prefix]time.Time
		wantAssign bool
	}{
		{
			name: "never-used block becomes never-used again and is handed out next",
			run: func(t *testing.T, a *Allocator) ([]netip.Prefix, netip.Prefix) {
				mustAssign(t, a, "x", "v4", t0)
				return []netip.Prefix{mp("10.0.0.0/26")}, mp("10.0.0.0/26")
			},
			wantFreed: map[netip.Prefix]time.Time{},
		},
		{
			name: "a reused freed block goes back to quarantine with its original time",
			run: func(t *testing.T, a *Allocator) ([]netip.Prefix, netip.Prefix) {
				for _, o := range []string{"n1", "n2", "n3", "n4"} {
					mustAssign(t, a, o, "v4", t0)
				}
				a.Release("n2", t0.Add(time.Second))
				// Past the delay, x reuses the freed block.
				if got := mustAssign(t, a, "x", "v4", t0.Add(2*delay)); got != mp("10.0.0.64/26") {
					t.Fatalf("x got %v", got)
				}
				return []netip.Prefix{mp("10.0.0.64/26")}, mp("10.0.0.64/26")
			},
			wantFreed: map[netip.Prefix]time.Time{mp("10.0.0.64/26"): t0.Add(time.Second)},
		},
		{
			name: "confirmed blocks are kept",
			run: func(t *testing.T, a *Allocator) ([]netip.Prefix, netip.Prefix) {
				b := mustAssign(t, a, "x", "v4", t0)
				if err := a.Reserve("x", b); err != nil {
					t.Fatal(err)
				}
				return nil, mp("10.0.0.64/26")
			},
			wantFreed: map[netip.Prefix]time.Time{},
		},
		{
			name: "only the unconfirmed family of a dual-stack assignment is undone",
			run: func(t *testing.T, a *Allocator) ([]netip.Prefix, netip.Prefix) {
				got, err := a.AssignMany("x", []string{"v4", "v6"}, t0)
				if err != nil {
					t.Fatal(err)
				}
				if err := a.Reserve("x", got[1]); err != nil {
					t.Fatal(err)
				}
				return []netip.Prefix{got[0]}, got[0]
			},
			wantFreed: map[netip.Prefix]time.Time{},
		},
		{
			name: "Release clears provisional blocks and quarantines them",
			run: func(t *testing.T, a *Allocator) ([]netip.Prefix, netip.Prefix) {
				mustAssign(t, a, "x", "v4", t0)
				a.Release("x", t0)
				return nil, mp("10.0.0.64/26")
			},
			wantFreed: map[netip.Prefix]time.Time{mp("10.0.0.0/26"): t0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestAllocator(t, Options{RecycleDelay: delay},
				spec("v4", "10.0.0.0/24", 26), spec("v6", "fd00::/120", 124))
			wantUndone, wantNext := tt.run(t, a)
			if got := a.Unassign("x"); !slices.Equal(got, wantUndone) {
				t.Fatalf("Unassign = %v, want %v", got, wantUndone)
			}
			mustInvariants(t, a)
			freed := map[netip.Prefix]time.Time{}
			for _, e := range a.Quarantine() {
				freed[e.Prefix] = e.FreedAt
			}
			if len(freed) != len(tt.wantFreed) {
				t.Fatalf("quarantine %v, want %v", freed, tt.wantFreed)
			}
			for b, at := range tt.wantFreed {
				if !freed[b].Equal(at) {
					t.Fatalf("quarantine %v, want %v", freed, tt.wantFreed)
				}
			}
			// Assign after the delay so a reused freed block is reusable.
			if got := mustAssign(t, a, "y", "v4", t0.Add(3*delay)); wantNext.IsValid() && got != wantNext {
				t.Fatalf("next Assign = %v, want %v", got, wantNext)
			}
			if got := a.Unassign("nobody"); got != nil {
				t.Fatalf("Unassign of an unknown owner = %v", got)
			}
		})
	}
}

func TestSetPolicy(t *testing.T) {
	a := newTestAllocator(t, Options{RecycleDelay: time.Hour, WhenExhausted: Wait}, spec("v4", "10.0.0.0/25", 26))
	mustAssign(t, a, "n1", "v4", t0)
	mustAssign(t, a, "n2", "v4", t0)
	a.Release("n1", t0)
	if _, err := a.Assign("x", "v4", t0.Add(time.Minute)); err == nil {
		t.Fatal("Assign during an hour of quarantine succeeded under Wait")
	}
	if u := mustUsage(t, a, "v4", t0.Add(time.Minute)); u.Quarantined != 1 {
		t.Fatalf("usage %+v, want one quarantined block", u)
	}

	a.SetPolicy(30*time.Second, Wait)
	if u := mustUsage(t, a, "v4", t0.Add(time.Minute)); u.Quarantined != 0 || u.Free != 1 {
		t.Fatalf("usage after shortening the delay %+v, want the block free", u)
	}
	a.SetPolicy(time.Hour, ReuseOldest)
	if got := mustAssign(t, a, "x", "v4", t0.Add(time.Minute)); got != mp("10.0.0.0/26") {
		t.Fatalf("ReuseOldest Assign = %v", got)
	}
	a.SetPolicy(-time.Second, Wait)
	mustInvariants(t, a)
}
