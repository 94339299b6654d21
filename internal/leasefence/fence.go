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

// Package leasefence decides whether a leader may still write. A leader
// that was paused (a stopped process, a frozen VM, a long GC) wakes up
// believing it leads: its goroutines run again before its leader elector
// notices the lease is lost, and write from a state another replica has
// moved on from. The fence lets writes through only while the last
// successful renewal of the lease, timed by the leader's own clock from
// before the renewal was sent, is younger than the renew deadline.
//
// Why that suffices: another replica takes over only after it has seen the
// lease unrenewed for a whole lease duration, counted from when it saw the
// last renewal, which was after the leader sent it. A write let through is
// sent less than the renew deadline after that renewal, so it reaches the
// apiserver before the lease can change hands as long as it travels for
// less than lease duration minus renew deadline. A write held up longer
// (in the apiserver waiting for etcd, say) is not covered: the fence makes
// the window small, it does not close it; only preconditions the apiserver
// enforces do.
//
// A graceful release hands the lease over at once, without that margin, so
// it must wait for the writes already let through: Begin counts a write in
// flight until its answer is back, and Quiesce, called between closing the
// fence and releasing the lease, says whether the release is safe. When it
// is not (a write still in flight, or one that failed on the wire and may
// still land), the leader leaves the lease to expire instead, and the
// argument above covers those writes.
package leasefence

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// ErrNotFresh is returned (wrapped) for a write refused because the lease
// is not freshly renewed.
var ErrNotFresh = errors.New("the leader lease is not freshly renewed: not writing")

// Fence tracks the lease renewals of one process. It is safe for
// concurrent use.
type Fence struct {
	clock         clock.PassiveClock
	renewDeadline time.Duration

	mu      sync.Mutex
	renewed time.Time // zero: not holding the lease
	// inFlight counts the writes let through whose answer is not back;
	// idle is closed when it drops to zero (nil while it is zero).
	inFlight int
	idle     chan struct{}
	// uncertainAt is when the last write that failed on the wire was let
	// through: the apiserver may have received it and may still apply it.
	uncertainAt time.Time
}

// New returns a fence closed until the first renewal.
func New(clk clock.PassiveClock, renewDeadline time.Duration) *Fence {
	return &Fence{clock: clk, renewDeadline: renewDeadline}
}

// Now is the time to pass to Renewed for a renewal about to be sent.
func (f *Fence) Now() time.Time { return f.clock.Now() }

// Renewed records that the renewal sent at sentAt (from Now) succeeded: the
// process holds the lease. An older renewal that completes late changes
// nothing.
func (f *Fence) Renewed(sentAt time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if sentAt.After(f.renewed) {
		f.renewed = sentAt
	}
}

// Released records that the process gave the lease up.
func (f *Fence) Released() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.renewed = time.Time{}
}

// Check returns nil while a write may go out, and an error wrapping
// ErrNotFresh otherwise.
func (f *Fence) Check() error {
	f.mu.Lock()
	renewed := f.renewed
	f.mu.Unlock()
	return decide(renewed, f.clock.Now(), f.renewDeadline)
}

// Begin lets one write out if the fence is open, and counts it in flight
// until done is called with the write's outcome: pass the transport's
// error, which says whether the apiserver may still apply it.
func (f *Fence) Begin() (done func(err error), err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := decide(f.renewed, f.clock.Now(), f.renewDeadline); err != nil {
		return nil, err
	}
	began := f.clock.Now()
	f.inFlight++
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	var once sync.Once
	return func(err error) { once.Do(func() { f.end(began, err) }) }, nil
}

func (f *Fence) end(began time.Time, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil && began.After(f.uncertainAt) {
		f.uncertainAt = began
	}
	f.inFlight--
	if f.inFlight == 0 {
		close(f.idle)
		f.idle = nil
	}
}

// Quiesce waits, at most timeout, for the writes in flight to be answered,
// and reports whether releasing the lease is safe now: nothing in flight,
// and no write that failed on the wire let through within uncertainFor.
// Call it after Released, so that no new write starts meanwhile.
func (f *Fence) Quiesce(timeout, uncertainFor time.Duration) error {
	f.mu.Lock()
	idle := f.idle
	f.mu.Unlock()
	if idle != nil {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		select {
		case <-idle:
		case <-timer.C:
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inFlight > 0 {
		return fmt.Errorf("%d writes still in flight after %s", f.inFlight, timeout)
	}
	if !f.uncertainAt.IsZero() {
		if age := f.clock.Now().Sub(f.uncertainAt); age < uncertainFor {
			return fmt.Errorf("a write that failed on the wire %s ago may still be applied", age.Round(time.Millisecond))
		}
	}
	return nil
}

// decide is the rule: a write goes out only if the lease was renewed, less
// than renewDeadline ago.
func decide(renewed, now time.Time, renewDeadline time.Duration) error {
	if renewed.IsZero() {
		return fmt.Errorf("%w: it is not held", ErrNotFresh)
	}
	if age := now.Sub(renewed); age >= renewDeadline {
		return fmt.Errorf("%w: last renewed %s ago, renew deadline %s", ErrNotFresh, age.Round(time.Millisecond), renewDeadline)
	}
	return nil
}
