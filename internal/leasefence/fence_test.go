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

package leasefence

import (
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		renewed time.Time
		now     time.Time
		fresh   bool
	}{
		{name: "never renewed", now: t0},
		{name: "just renewed", renewed: t0, now: t0, fresh: true},
		{name: "renewed within the deadline", renewed: t0, now: t0.Add(2999 * time.Millisecond), fresh: true},
		{name: "at the deadline", renewed: t0, now: t0.Add(3 * time.Second)},
		{name: "woke up after a pause", renewed: t0, now: t0.Add(7 * time.Second)},
	} {
		err := decide(tc.renewed, tc.now, 3*time.Second)
		if fresh := err == nil; fresh != tc.fresh {
			t.Errorf("%s: decide = %v, want fresh %v", tc.name, err, tc.fresh)
		}
		if err != nil && !errors.Is(err, ErrNotFresh) {
			t.Errorf("%s: %v does not wrap ErrNotFresh", tc.name, err)
		}
	}
}

func TestFence(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := New(clk, 3*time.Second)
	if f.Check() == nil {
		t.Fatal("a fence is open before the first renewal")
	}
	sent := f.Now()
	clk.SetTime(sent.Add(500 * time.Millisecond)) // the renewal's round trip
	f.Renewed(sent)
	if err := f.Check(); err != nil {
		t.Fatalf("after a renewal: %v", err)
	}
	// A renewal sent earlier that completes late does not move the time back.
	f.Renewed(sent.Add(-time.Second))
	clk.SetTime(sent.Add(2900 * time.Millisecond))
	if err := f.Check(); err != nil {
		t.Fatalf("2.9s after the renewal was sent: %v", err)
	}
	// Paused past the deadline: the renewal is measured from when it was
	// sent, not from when its answer came back.
	clk.SetTime(sent.Add(3 * time.Second))
	if f.Check() == nil {
		t.Fatal("the fence is open a renew deadline after the renewal was sent")
	}
	f.Renewed(clk.Now())
	if err := f.Check(); err != nil {
		t.Fatalf("after renewing again: %v", err)
	}
	f.Released()
	if f.Check() == nil {
		t.Fatal("the fence is open after the lease was released")
	}
}

func TestQuiesceWaitsForWritesInFlight(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := New(clk, 3*time.Second)
	if _, err := f.Begin(); err == nil {
		t.Fatal("Begin let a write out before the first renewal")
	}
	f.Renewed(clk.Now())
	done, err := f.Begin()
	if err != nil {
		t.Fatalf("Begin after a renewal: %v", err)
	}
	f.Released()
	if _, err := f.Begin(); err == nil {
		t.Fatal("Begin let a write out after the release")
	}
	if err := f.Quiesce(0, time.Minute); err == nil {
		t.Fatal("Quiesce said a release is safe with a write in flight")
	}
	answered := make(chan error)
	go func() { answered <- f.Quiesce(time.Minute, time.Minute) }()
	done(nil)
	done(nil) // a second call changes nothing
	if err := <-answered; err != nil {
		t.Fatalf("Quiesce once the write was answered: %v", err)
	}
}

func TestQuiesceRefusesAfterAnUncertainWrite(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := New(clk, 3*time.Second)
	f.Renewed(clk.Now())
	done, err := f.Begin()
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	done(errors.New("connection reset"))
	f.Released()
	if err := f.Quiesce(time.Second, 15*time.Second); err == nil {
		t.Fatal("Quiesce said a release is safe right after a write failed on the wire")
	}
	clk.SetTime(clk.Now().Add(15 * time.Second))
	if err := f.Quiesce(time.Second, 15*time.Second); err != nil {
		t.Fatalf("Quiesce once the uncertain write is older than the window: %v", err)
	}
}
