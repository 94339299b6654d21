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

package chaos

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"podnetwork.io/operator/internal/chaosbug"
	"podnetwork.io/operator/test/framework/invariants/history"
)

// SeededBug is a bug an operator built with -tags chaosbug carries, and the
// invariant that must catch it. A seeded-bug run counts as caught only when
// that invariant fired: a violation of another one may be a side effect (a
// woken leader's stale write) or a flaw of its own, and proves nothing about
// the checker's power to see this bug.
type SeededBug struct {
	// Name is the value of chaosbug.Env that makes the bug active.
	Name string
	// Invariant is the history invariant that must report it.
	Invariant string
	// What describes the bug, for the report.
	What string
	// NotInAll leaves the bug out of -bugs=all, saying why: the short run
	// does not trigger it with seed 1, so it would fail CI without
	// showing a blind spot of the checker. It can still be run by name.
	NotInAll string
}

// SeededBugs are the seeded bugs, in the order the runner runs them: the
// one place that ties each bug to its invariant.
var SeededBugs = []SeededBug{
	{Name: chaosbug.SkipQuarantine, Invariant: history.InvRecycleDelay, What: "a released block skips quarantine inside one leader"},
	{Name: chaosbug.RebuildIgnoresRecord, Invariant: history.InvRecycleDelay,
		What: "a rebuild holds back nothing, so the block store's issued blocks no node holds are handed out at once"},
	{Name: chaosbug.StaleRebuildFreedAt, Invariant: history.InvRecycleDelay,
		What: "a rebuild keeps a restored per-block freed time however old, instead of holding the block back",
		NotInAll: "it needs a restored freed time overlapping a run the rebuild holds back, which the block store's disjoint issued and freed sets never give " +
			"(only the upgrade from the issued-block record and status.quarantine could); before the store, seed 1 of the short run reused 114 blocks across a fail-over against it, none early"},
	{Name: chaosbug.UnfencedWrite, Invariant: history.InvWriteWithoutLease, What: "the write fence lets writes through without the lease"},
	{Name: chaosbug.PrematureActivation, Invariant: history.InvActivationAcked, What: "a Pending range becomes Active once any required consumer accepted it"},
}

// DefaultSeededBugs are the bugs -bugs=all runs: every one the short run
// triggers.
func DefaultSeededBugs() []SeededBug {
	var out []SeededBug
	for _, b := range SeededBugs {
		if b.NotInAll == "" {
			out = append(out, b)
		}
	}
	return out
}

// SeededBugNamed returns the seeded bug name.
func SeededBugNamed(name string) (SeededBug, error) {
	for _, b := range SeededBugs {
		if b.Name == name {
			return b, nil
		}
	}
	names := make([]string, 0, len(SeededBugs))
	for _, b := range SeededBugs {
		names = append(names, b.Name)
	}
	return SeededBug{}, fmt.Errorf("unknown seeded bug %q (one of %s)", name, strings.Join(names, ", "))
}

// Verdict is what a seeded-bug run found.
type Verdict struct {
	Bug SeededBug
	// CaughtBy counts the violations of the run by invariant.
	CaughtBy map[string]int
	// Caught says the bug's own invariant fired.
	Caught bool
}

// Judge judges a seeded-bug run from the violations it found, by invariant.
func Judge(bug SeededBug, violations map[string]int) Verdict {
	by := map[string]int{}
	for inv, n := range violations {
		if n > 0 {
			by[inv] = n
		}
	}
	return Verdict{Bug: bug, CaughtBy: by, Caught: by[bug.Invariant] > 0}
}

// String says which invariants caught the bug and whether its own did:
// "caught by recycle-delay (62), no-overlap (1); required recycle-delay: yes".
func (v Verdict) String() string {
	by := "nothing"
	if len(v.CaughtBy) > 0 {
		var parts []string
		for _, inv := range slices.Sorted(maps.Keys(v.CaughtBy)) {
			parts = append(parts, fmt.Sprintf("%s (%d)", inv, v.CaughtBy[inv]))
		}
		by = strings.Join(parts, ", ")
	}
	found := "no"
	if v.Caught {
		found = "yes"
	}
	return fmt.Sprintf("caught by %s; required %s: %s", by, v.Bug.Invariant, found)
}

// Err is nil when the bug was caught by its own invariant.
func (v Verdict) Err() error {
	if v.Caught {
		return nil
	}
	return fmt.Errorf("seeded bug %s (%s) not caught: %s", v.Bug.Name, v.Bug.What, v)
}

// The short run must reuse freed blocks, some of them after a fail-over:
// otherwise recycle-delay and the rebuild's quarantine are never put to the
// test, and a run without a violation proves nothing about them.
const (
	MinReuses               = 20
	MinReusesAcrossFailover = 2
)

// ReuseProblems says whether a run reused too few freed blocks (reuses,
// of them across a fail-over, from history.CountReuses and
// history.CountReusesAcrossFailover).
func ReuseProblems(reuses, acrossFailover int) error {
	var errs []error
	if reuses < MinReuses {
		errs = append(errs, fmt.Errorf("only %d freed blocks reused (at least %d required): the configuration no longer exhausts the never-used blocks", reuses, MinReuses))
	}
	if acrossFailover < MinReusesAcrossFailover {
		errs = append(errs, fmt.Errorf("only %d freed blocks reused across a fail-over (at least %d required): the rebuild's quarantine was not exercised", acrossFailover, MinReusesAcrossFailover))
	}
	return errors.Join(errs...)
}
