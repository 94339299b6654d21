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
	"strings"
	"testing"
	"time"

	"podnetwork.io/operator/test/framework/invariants/history"
)

// TestProblemsNameTheWriteWithoutLease: a run with a write sent without
// the lease fails, and its details come first even behind many violations
// with smaller RVs.
func TestProblemsNameTheWriteWithoutLease(t *testing.T) {
	var vs []history.Violation
	for i := range maxDetails + 5 {
		vs = append(vs, history.Violation{Invariant: history.InvRecycleDelay, RV: int64(10 + i), Message: "early reuse"})
	}
	vs = append(vs, history.Violation{Invariant: history.InvWriteWithoutLease, RV: 900, Time: time.Now(), Process: "operator-b.1", StaleWrite: true,
		Message: "operator-b.1 sent patch nodes node-7 without the lease (answered 200, landed at RV 900): sent at 12:00:01.000 while operator-a.2 held the lease"})
	r := &Result{Report: history.Report{Violations: vs}}
	err := r.Problems()
	if err == nil {
		t.Fatal("a run with a write without the lease passed")
	}
	if !strings.Contains(err.Error(), "(1 of them writes sent without the lease)") {
		t.Errorf("Problems does not count the write without the lease: %v", err)
	}
	if d := r.Details(); len(d) != maxDetails || !strings.Contains(d[0], "sent patch nodes node-7 without the lease") || !strings.Contains(d[0], "a stale write") {
		t.Errorf("Details does not start with the write without the lease: %q", d)
	}
}
