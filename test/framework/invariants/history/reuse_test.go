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
	"testing"
	"time"
)

// TestReuseCounts counts reuses of freed blocks, and those where the lease
// changed hands between the free and the reuse, on a synthetic history:
// the chaos suite requires both in its short run.
func TestReuseCounts(t *testing.T) {
	h := newHist()
	h.acquire("op-0_1", "op-0")
	h.activate("a", cidrA)
	h.node("n1", nil)
	h.assign("n1", "10.0.0.0/24")
	h.node("n2", nil)
	h.assign("n2", "10.0.1.0/24")
	h.node("n3", nil)
	h.assign("n3", "10.0.2.0/24") // never freed: not a reuse

	// Freed and reused by the same leader, after the delay.
	h.deleteNode("n1")
	h.tick(61 * time.Second)
	h.renew()
	h.node("n4", nil)
	h.assign("n4", "10.0.0.0/24")

	// Freed under op-0, reused under op-1.
	h.deleteNode("n2")
	h.tick(30 * time.Second)
	h.acquire("op-1_1", "op-1")
	h.tick(31 * time.Second)
	h.renew()
	h.node("n5", nil)
	h.assign("n5", "10.0.1.0/24")

	// Freed under op-1 and reused under op-1, although op-0 held the lease
	// before: only a change between the free and the reuse counts.
	h.deleteNode("n4")
	h.tick(61 * time.Second)
	h.renew()
	h.node("n6", nil)
	h.assign("n6", "10.0.0.0/24")

	r := h.check(t, Options{})
	if len(r.Violations) > 0 {
		t.Fatalf("violations:\n%s", dump(r.Violations))
	}
	if got := r.Counts[CountReuses]; got != 3 {
		t.Errorf("reuses = %d, want 3", got)
	}
	if got := r.Counts[CountReusesAcrossFailover]; got != 1 {
		t.Errorf("reuses across a fail-over = %d, want 1", got)
	}
}
