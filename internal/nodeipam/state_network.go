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
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// This file holds what State does for the PodNetwork side: applying the
// ranges, reporting usage and acknowledging phases.

// SyncResult is what Sync changed.
type SyncResult struct {
	// Retry is true when the ranges, the recycle policy, the candidates or
	// the spec changed: the waiting nodes may progress now.
	Retry bool
	// Config is the configuration now applied.
	Config *Config
	// Problems are the ranges that became unusable, or whose nodeSelector
	// became invalid, with this PodNetwork.
	Problems []ConfigProblem
}

// Sync applies the PodNetwork (nil when there is none) to the allocator:
// ranges and their phases, recycle policy and candidates. It is cheap when
// the PodNetwork did not change, and does nothing while the gate is closed.
func (s *State) Sync(pn *v1alpha1.PodNetwork) (SyncResult, error) {
	rv := ""
	if pn != nil {
		rv = pn.ResourceVersion
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == nil || rv == s.cfgRV {
		return SyncResult{}, nil
	}
	next := NewConfig(pn)
	rangesChanged := !next.SameRanges(&s.cfg)
	if rangesChanged {
		if err := s.alloc.SetRanges(next.Ranges); err != nil {
			return SyncResult{}, fmt.Errorf("configuring the node allocator: %w", err)
		}
	}
	policyChanged := next.RecycleDelay != s.cfg.RecycleDelay || next.WhenExhausted != s.cfg.WhenExhausted
	if policyChanged {
		s.alloc.SetPolicy(next.RecycleDelay, next.WhenExhausted)
	}
	// A new familyPolicy, or a Pending range appearing or going, changes
	// which nodes wait under AllOrWait.
	policyChanged = policyChanged || next.FamilyPolicy != s.cfg.FamilyPolicy ||
		!slices.EqualFunc(s.cfg.Awaited, next.Awaited, func(x, y AwaitedRange) bool { return x.Name == y.Name })
	res := SyncResult{Config: &next, Problems: ConfigProblems(&s.cfg, &next)}
	candidatesChanged := !slices.EqualFunc(s.cfg.Candidates, next.Candidates, func(x, y Candidate) bool { return x.Name == y.Name })
	specChanged := pn != nil && pn.Generation != s.specGeneration
	if pn != nil {
		s.specGeneration = pn.Generation
	}
	s.cfg, s.cfgRV = next, rv
	if rangesChanged {
		s.rangesChangedLocked(s.clock.Now())
	}
	res.Retry = rangesChanged || policyChanged || candidatesChanged || specChanged
	return res, nil
}

// ConfigProblem is a range NodeIPAM cannot use, or whose nodeSelector has
// invalid terms (which match no node). Neither is an error of a reconcile:
// the range is rejected (Pending) or its terms match no node.
type ConfigProblem struct {
	Range  string
	Reason string
	// Selector is true for invalid nodeSelector terms.
	Selector bool
}

// ConfigProblems returns the problems of next that prev did not have, so
// each is reported once, when it appears or changes.
func ConfigProblems(prev, next *Config) []ConfigProblem {
	var out []ConfigProblem
	for name, reason := range next.Unusable {
		if prev.Unusable[name] != reason {
			out = append(out, ConfigProblem{Range: name, Reason: reason})
		}
	}
	for name, err := range next.SelectorErrors {
		if old, ok := prev.SelectorErrors[name]; !ok || old.Error() != err.Error() {
			out = append(out, ConfigProblem{Range: name, Reason: err.Error(), Selector: true})
		}
	}
	slices.SortFunc(out, func(a, b ConfigProblem) int {
		return cmp.Or(strings.Compare(a.Range, b.Range), strings.Compare(a.Reason, b.Reason))
	})
	return out
}

// Report computes the PodNetwork status fields NodeIPAM owns now, and when
// they change next by themselves (a quarantined block becoming free). ok is
// false while the gate is closed.
func (s *State) Report() (rep Report, next time.Duration, ok bool) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == nil {
		return rep, 0, false
	}
	rep.Usage = make(map[string]v1alpha1.RangeUsage, len(s.cfg.Ranges))
	for _, r := range s.cfg.Ranges {
		if u, err := s.alloc.Usage(r.Name, now); err == nil {
			rep.Usage[r.Name] = RangeUsage(u)
		}
	}
	q := s.alloc.Quarantine()
	next, _ = NextExpiry(q, s.cfg.RecycleDelay, now)
	if at, held := s.alloc.HeldBack(now); len(held) > 0 {
		if left := at.Add(s.cfg.RecycleDelay).Sub(now); next == 0 || left < next {
			next = left
		}
		q = append(q, s.heldBackBlocksLocked(now, MaxStatusQuarantine)...)
	}
	rep.Quarantine = QuarantineStatus(q, s.cfg.RecycleDelay, now, MaxStatusQuarantine)
	for _, cs := range s.conflicts {
		for _, c := range cs {
			rep.Conflicts = append(rep.Conflicts, c.String())
		}
	}
	slices.Sort(rep.Conflicts)
	return rep, next, true
}

// Acks computes NodeIPAM's acknowledgements of the PodNetwork's ranges from
// what the allocator has applied (see Ack), stamped with Now; Sync must have
// seen the same PodNetwork.
func (s *State) Acks(pn *v1alpha1.PodNetwork, previous []v1alpha1.ConsumerRangeStatus) []v1alpha1.ConsumerRangeStatus {
	return v1alpha1.Acks(pn, previous, s.Now(), s.Ack)
}

// Ack answers the current phase of rs from what the allocator has applied
// (Config.Ack); it is the v1alpha1.AckFunc NodeIPAM's status write uses.
func (s *State) Ack(rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Ack(rs, s.busyLocked)
}

// RecycleDelay is the recycle delay in force.
func (s *State) RecycleDelay() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.RecycleDelay
}

// Now is the time on NodeIPAM's clock, which stamps its acknowledgements.
func (s *State) Now() metav1.Time {
	return metav1.NewTime(s.clock.Now())
}

// busyLocked reports whether a node write with a block inside p is in
// flight: a Draining range is acknowledged only once none is.
func (s *State) busyLocked(p netip.Prefix) bool {
	for _, w := range s.inflight {
		if slices.ContainsFunc(w.blocks, p.Overlaps) {
			return true
		}
	}
	return false
}
