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
	"errors"
	"fmt"
	"time"
)

var (
	// ErrExhausted means every block of the range is allocated. Returned
	// wrapped; test with errors.Is.
	ErrExhausted = errors.New("no free block in range")
	// ErrQuarantined means no block is allocatable now but some are freed and
	// waiting for their recycle delay. The concrete error is a
	// *QuarantinedError that says when to retry.
	ErrQuarantined = errors.New("all free blocks are quarantined")
	// ErrUnknownRange means the range name is not configured.
	ErrUnknownRange = errors.New("unknown range")
	// ErrRangeInactive means the range exists (it still tracks the blocks of
	// its Nodes) but is not Active, so it hands out no new blocks.
	ErrRangeInactive = errors.New("range is not active")
	// ErrInvalidRanges is wrapped by SetRanges errors.
	ErrInvalidRanges = errors.New("invalid range configuration")
	// ErrInvalidOwner is returned for an empty owner name.
	ErrInvalidOwner = errors.New("owner must not be empty")
	// ErrInvalidPrefix is returned by Reserve for an invalid prefix.
	ErrInvalidPrefix = errors.New("invalid prefix")
)

// QuarantinedError is returned by Assign under the Wait policy when every
// unallocated block of the range is still in quarantine. The controller can
// requeue after RetryIn and say so in its event ("retry in 1m30s").
type QuarantinedError struct {
	Range       string
	Quarantined int       // blocks waiting
	ReusableAt  time.Time // when the earliest of them becomes reusable
	RetryIn     time.Duration
}

func (e *QuarantinedError) Error() string {
	return fmt.Sprintf("range %q: %s: %d freed block(s) in their recycle delay, the first becomes reusable at %s (retry in %s)",
		e.Range, ErrQuarantined, e.Quarantined, e.ReusableAt.UTC().Format(time.RFC3339), e.RetryIn)
}

// Is makes errors.Is(err, ErrQuarantined) true.
func (e *QuarantinedError) Is(target error) bool { return target == ErrQuarantined }
