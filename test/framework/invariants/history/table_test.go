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

package history

import (
	"strings"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	r := Report{
		Violations: []Violation{
			{Invariant: InvOverlap, RV: 7, Process: "op-0", StaleWrite: true},
			{Invariant: InvOverlap, RV: 9, Process: "op-1"},
			{Invariant: InvLivenessReady, RV: 12},
		},
		Counts: map[string]int{
			CountNodes: 3, CountObservations: 40,
			CountTransition + "Pending->Active": 2, CountTransition + "Active->Draining": 1,
			CountWrites + "op-0": 10, CountWrites + "op-1": 5,
			CountStaleWrites: 2, CountStaleLanded: 1,
		},
		Stale: []StaleWrite{
			{Write: Write{Process: "op-0", Code: 200, RV: 7, Start: t0}},
			{Write: Write{Process: "op-0", Code: 0, Start: t0.Add(time.Second)}},
		},
	}
	got := Table(r)
	for _, want := range []string{
		"| invariant | violations | of them from stale writes |",
		"| shape | 0 | 0 |",
		"| no-overlap | 2 | 1 |",
		"| liveness-ready | 1 | 0 |",
		"| purge-acked | 0 | 0 |",
		"| Active->Draining | 1 |\n| Pending->Active | 2 |",
		"| nodes | 3 |",
		"| op-0 | 10 | 2 | 1 |\n| op-1 | 5 | 0 | 0 |\n| all | 15 | 2 | 1 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Table lacks %q:\n%s", want, got)
		}
	}
	for _, inv := range Invariants {
		if !strings.Contains(got, "| "+inv+" |") {
			t.Errorf("Table has no row for %s", inv)
		}
	}
	if empty := Table(Report{}); !strings.Contains(empty, "| none | 0 |") || !strings.Contains(empty, "| all | 0 | 0 | 0 |") {
		t.Errorf("Table of an empty report:\n%s", empty)
	}
}
