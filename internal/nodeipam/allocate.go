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
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/text"
)

// UnavailableError says why a node got no blocks. Reasons are the distinct
// allocator errors met, sorted; RetryIn, when positive, is when the earliest
// quarantined block of a tried range becomes reusable.
type UnavailableError struct {
	Reasons []string
	RetryIn time.Duration
	// FamilyWait is true when the node waits under familyPolicy AllOrWait
	// for a Pending range of a family it would otherwise go without
	// (Config.FamilyWait); Reasons name the ranges.
	FamilyWait bool
}

func (e *UnavailableError) Error() string {
	return "no free block in the candidate ranges: " + strings.Join(e.Reasons, "; ")
}

// Message says it in words for the CIDRNotAvailable event, including when a
// quarantined block becomes reusable under the Wait policy.
func (e *UnavailableError) Message() string {
	msg := "No podCIDR is available for this node: " + strings.Join(e.Reasons, "; ") + "."
	if e.RetryIn > 0 {
		msg += fmt.Sprintf(" NodeIPAM retries in %s, when the first quarantined block becomes reusable (spec.allocation.whenExhausted is Wait).", e.RetryIn.Round(time.Second))
	}
	return text.Message(msg)
}

// Allocate gives owner one block per family in a single all-or-nothing step:
// it tries the combinations of the families' candidates in order (the first
// family's best range with each of the second family's ranges, best first,
// then the first family's next range, and so on) with
// allocator.AssignMany, which leaves nothing behind when a range fails. The
// first combination that succeeds wins, which is the best usable range of
// every family, because families never share blocks.
//
// It returns an *UnavailableError when no combination succeeds because
// ranges are exhausted, quarantined or no longer Active; any other allocator
// error is returned as is.
func Allocate(a *allocator.Allocator, owner string, families [][]string, now time.Time) ([]netip.Prefix, error) {
	if len(families) == 0 {
		return nil, &UnavailableError{Reasons: []string{"no Active range matches the node"}}
	}
	idx := make([]int, len(families))
	names := make([]string, len(families))
	unavailable := &UnavailableError{}
	for {
		for f, i := range idx {
			names[f] = families[f][i]
		}
		blocks, err := a.AssignMany(owner, names, now)
		if err == nil {
			return blocks, nil
		}
		if !unavailable.add(err) {
			return nil, err
		}
		if !next(idx, families) {
			break
		}
	}
	slices.Sort(unavailable.Reasons)
	unavailable.Reasons = slices.Compact(unavailable.Reasons)
	return nil, unavailable
}

// add records an expected allocation failure and reports whether err was one.
func (e *UnavailableError) add(err error) bool {
	var q *allocator.QuarantinedError
	switch {
	case errors.As(err, &q):
		if e.RetryIn <= 0 || q.RetryIn < e.RetryIn {
			e.RetryIn = q.RetryIn
		}
	case errors.Is(err, allocator.ErrExhausted), errors.Is(err, allocator.ErrRangeInactive), errors.Is(err, allocator.ErrUnknownRange):
	default:
		return false
	}
	e.Reasons = append(e.Reasons, rangeReason(err))
	return true
}

// rangeReason strips the owner from an AssignMany error: the reason is about
// the range, and the same for every node.
func rangeReason(err error) string {
	if inner := errors.Unwrap(err); inner != nil {
		return inner.Error()
	}
	return fmt.Sprint(err)
}

// next advances idx like an odometer, the last family fastest, and reports
// whether a combination is left.
func next(idx []int, families [][]string) bool {
	for f := len(idx) - 1; f >= 0; f-- {
		idx[f]++
		if idx[f] < len(families[f]) {
			return true
		}
		idx[f] = 0
	}
	return false
}
