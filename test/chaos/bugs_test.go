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
	"slices"
	"strings"
	"testing"

	"podnetwork.io/operator/internal/chaosbug"
	"podnetwork.io/operator/test/framework/invariants/history"
)

// TestEverySeededBugHasAnInvariant: every bug the chaosbug build carries is
// run, once, and tied to an invariant the checker judges.
func TestEverySeededBugHasAnInvariant(t *testing.T) {
	var names []string
	for _, b := range SeededBugs {
		if !slices.Contains(history.Invariants, b.Invariant) {
			t.Errorf("seeded bug %s requires %q, which history does not judge", b.Name, b.Invariant)
		}
		names = append(names, b.Name)
	}
	if !slices.Equal(names, chaosbug.Names) {
		t.Errorf("SeededBugs runs %v, the chaosbug build carries %v", names, chaosbug.Names)
	}
	var all []string
	for _, b := range DefaultSeededBugs() {
		all = append(all, b.Name)
	}
	if want := []string{chaosbug.SkipQuarantine, chaosbug.RebuildIgnoresRecord, chaosbug.UnfencedWrite, chaosbug.PrematureActivation}; !slices.Equal(all, want) {
		t.Errorf("-bugs=all runs %v, want %v", all, want)
	}
	if _, err := SeededBugNamed("no-such-bug"); err == nil {
		t.Error("an unknown bug name was accepted")
	}
}

// TestJudgeRequiresTheBugsOwnInvariant: a seeded-bug run is caught only by
// its own invariant, whatever else fired.
func TestJudgeRequiresTheBugsOwnInvariant(t *testing.T) {
	fence, err := SeededBugNamed(chaosbug.UnfencedWrite)
	if err != nil {
		t.Fatal(err)
	}
	activation, err := SeededBugNamed(chaosbug.PrematureActivation)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		bug        SeededBug
		violations map[string]int
		caught     bool
		says       string
	}{
		{"nothing fired", fence, nil, false, "caught by nothing; required no-write-without-lease: no"},
		{"its own invariant", fence, map[string]int{history.InvWriteWithoutLease: 3}, true, "caught by no-write-without-lease (3); required no-write-without-lease: yes"},
		{"only another invariant", activation, map[string]int{history.InvWriteWithoutLease: 2, history.InvRecycleDelay: 0}, false,
			"caught by no-write-without-lease (2); required activation-acked: no"},
		{"its own and another", activation, map[string]int{history.InvActivationAcked: 4, history.InvOverlap: 1}, true,
			"caught by activation-acked (4), no-overlap (1); required activation-acked: yes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Judge(c.bug, c.violations)
			if v.Caught != c.caught {
				t.Errorf("Caught = %v, want %v", v.Caught, c.caught)
			}
			if v.String() != c.says {
				t.Errorf("String() = %q, want %q", v.String(), c.says)
			}
			if err := v.Err(); (err == nil) != c.caught || (err != nil && !strings.Contains(err.Error(), c.bug.Name)) {
				t.Errorf("Err() = %v", err)
			}
		})
	}

	r := &Result{Bug: &activation, Report: history.Report{Violations: []history.Violation{{Invariant: history.InvActivationAcked}}}}
	if v, ok := r.Verdict(); !ok || !v.Caught {
		t.Errorf("a run whose violation is the bug's own invariant: Verdict() = %v, %v", v, ok)
	}
	if _, ok := (&Result{}).Verdict(); ok {
		t.Error("a run without a seeded bug has a verdict")
	}
}

func TestReuseProblems(t *testing.T) {
	if err := ReuseProblems(MinReuses, MinReusesAcrossFailover); err != nil {
		t.Errorf("enough reuses failed: %v", err)
	}
	if err := ReuseProblems(MinReuses-1, MinReusesAcrossFailover); err == nil || !strings.Contains(err.Error(), "freed blocks reused") {
		t.Errorf("too few reuses: %v", err)
	}
	if err := ReuseProblems(100, MinReusesAcrossFailover-1); err == nil || !strings.Contains(err.Error(), "across a fail-over") {
		t.Errorf("too few reuses across a fail-over: %v", err)
	}
}
