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

func TestStaleWrites(t *testing.T) {
	h := base() // op-0 holds the lease (15s) from its first record
	acquired := h.obs[0].Time
	h.node("n1", nil)
	h.assign("n1", "10.0.0.0/24") // op-0, holding the lease
	h.node("late", nil)
	h.tick(20 * time.Second) // op-0 stopped renewing: its lease expired 15s after it was acquired
	h.write("op-0", h.now, "events", 201)
	h.tick(time.Second)
	h.acquire("op-1_1", "op-1")
	h.write("op-0", h.now.Add(time.Second), "nodes", 409)
	// Sent by op-0 while it held the lease, landed after op-1 acquired it:
	// the same block as n1, so the overlap is op-0's stale write's doing.
	lateRV := h.assign("late", "10.0.0.0/24")
	h.sentBy("op-0", acquired.Add(time.Second))
	h.node("n2", nil)
	h.assign("n2", "10.0.1.0/24")         // op-1, holding the lease
	h.write("op-1", h.now, "events", 201) // op-1 holds the lease: not stale
	h.tick(5 * time.Second)
	h.renew()

	r := h.check(t, Options{})
	wantReasons := []string{
		"after its lease expired at 12:00:15.",
		"while op-1 (op-1_1) held the lease",
		"but landed at RV",
	}
	if len(r.Stale) != len(wantReasons) || len(r.StaleWrites) != len(wantReasons) {
		t.Fatalf("stale writes: %+v, want %d", r.Stale, len(wantReasons))
	}
	// In Start order: the late landing was sent first.
	order := []int{2, 0, 1}
	for i, s := range r.Stale {
		if s.Process != "op-0" || !strings.Contains(s.Reason, wantReasons[order[i]]) {
			t.Errorf("stale write %d = %s %q, want op-0 %q", i, s.Process, s.Reason, wantReasons[order[i]])
		}
	}
	if r.Counts[CountStaleWrites] != 3 || r.Counts[CountStaleLanded] != 2 {
		t.Errorf("counts %v, want 3 stale writes, 2 landed", r.Counts)
	}
	// Each is a violation on its own, the stale Event too; the late write
	// also overlaps.
	want := []struct {
		inv string
		rv  int64
	}{{InvWriteWithoutLease, 0}, {InvWriteWithoutLease, 0}, {InvOverlap, lateRV}, {InvWriteWithoutLease, lateRV}}
	if len(r.Violations) != len(want) {
		t.Fatalf("violations:\n%s want no-write-without-lease twice, then no-overlap and no-write-without-lease at RV %d", dump(r.Violations), lateRV)
	}
	for i, v := range r.Violations {
		if v.Invariant != want[i].inv || v.RV != want[i].rv || v.Process != "op-0" || !v.StaleWrite {
			t.Errorf("violation %d = %+v, want %s at RV %d by op-0, from a stale write", i, v, want[i].inv, want[i].rv)
		}
	}
}

// TestWriteWithoutLease: a run fails on any write sent without the lease,
// landed or not, an Event included.
func TestWriteWithoutLease(t *testing.T) {
	t.Run("a node patch after the lease expired fails", func(t *testing.T) {
		h := base()
		h.node("n1", nil)
		h.tick(20 * time.Second) // op-0 stopped renewing: its lease expired
		rv := h.assign("n1", "10.0.0.0/24")
		r := h.check(t, Options{})
		if len(r.Violations) != 1 {
			t.Fatalf("violations:\n%s want one no-write-without-lease", dump(r.Violations))
		}
		v := r.Violations[0]
		if v.Invariant != InvWriteWithoutLease || v.RV != rv || v.Process != "op-0" || !v.StaleWrite {
			t.Errorf("violation %+v, want no-write-without-lease at RV %d by op-0", v, rv)
		}
		for _, part := range []string{"op-0 sent patch nodes n1 without the lease", "landed at RV " + itoa(rv), "after its lease expired at 12:00:15."} {
			if !strings.Contains(v.Message, part) {
				t.Errorf("message %q lacks %q", v.Message, part)
			}
		}
	})
	t.Run("a status write refused by the apiserver fails too", func(t *testing.T) {
		h := base()
		h.tick(time.Second)
		h.acquire("op-1_1", "op-1")
		h.write("op-0", h.now, "podnetworks", 409)
		r := h.check(t, Options{})
		if len(r.Violations) != 1 || r.Violations[0].Invariant != InvWriteWithoutLease || r.Violations[0].RV != 0 ||
			!strings.Contains(r.Violations[0].Message, "sent create podnetworks x without the lease (answered 409)") ||
			!strings.Contains(r.Violations[0].Message, "while op-1 (op-1_1) held the lease") {
			t.Fatalf("violations:\n%s want one no-write-without-lease for op-0's refused write", dump(r.Violations))
		}
	})
	t.Run("Events without the lease fail too", func(t *testing.T) {
		h := base()
		h.node("n1", nil)
		h.assign("n1", "10.0.0.0/24") // op-0, holding the lease
		h.tick(20 * time.Second)
		h.write("op-0", h.now, "events", 201) // its lease expired
		h.tick(time.Second)
		h.acquire("op-1_1", "op-1")
		h.write("op-0", h.now.Add(time.Second), "events", 201) // op-1 holds it
		r := h.check(t, Options{})
		if len(r.Violations) != 2 {
			t.Fatalf("violations:\n%s want a no-write-without-lease for each stale Event", dump(r.Violations))
		}
		for _, v := range r.Violations {
			if v.Invariant != InvWriteWithoutLease || !strings.Contains(v.Message, "op-0 sent create events x without the lease") {
				t.Errorf("violation %+v, want no-write-without-lease for op-0's Event", v)
			}
		}
		if len(r.Stale) != 2 || r.Counts[CountStaleWrites] != 2 {
			t.Fatalf("stale %+v: want both Events listed as stale writes", r.Stale)
		}
	})
}

func TestStaleWritesIdentities(t *testing.T) {
	build := func() *hist {
		h := base()
		h.tick(20 * time.Second)
		h.write("op-0", h.now, "events", 201)
		// No Lease writes: the proxy sat in front of the nodes only.
		var ws []Write
		for _, w := range h.writes {
			if w.Resource != "leases" {
				ws = append(ws, w)
			}
		}
		h.writes = ws
		return h
	}
	t.Run("given", func(t *testing.T) {
		r := build().check(t, Options{Identities: map[string]string{"op-0_1": "op-0"}})
		if len(r.Stale) != 1 || r.Counts[CountUnjudged] != 0 {
			t.Fatalf("stale %+v, counts %v: want the one write after the lease expired", r.Stale, r.Counts)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		r := build().check(t, Options{})
		if len(r.Stale) != 0 || r.Counts[CountUnjudged] == 0 {
			t.Fatalf("stale %+v, counts %v: want every write unjudged", r.Stale, r.Counts)
		}
	})
	t.Run("no lease observed", func(t *testing.T) {
		h := build()
		var obs []Observation
		for _, o := range h.obs {
			if kind(o.Object) != "Lease" {
				obs = append(obs, o)
			}
		}
		r := Check(obs, h.writes, Options{LeaseNamespace: leaseNS, Identities: map[string]string{"op-0_1": "op-0"}})
		if len(r.Stale) != 0 || r.Counts[CountUnjudged] != len(h.writes) {
			t.Fatalf("stale %+v, counts %v: want all %d writes unjudged", r.Stale, r.Counts, len(h.writes))
		}
	})
	t.Run("released lease", func(t *testing.T) {
		h := build()
		h.lease.Spec.HolderIdentity = new(string)
		h.record(h.lease, false, "", "")
		h.write("op-0", h.now, "events", 201)
		r := h.check(t, Options{Identities: map[string]string{"op-0_1": "op-0"}})
		if len(r.Stale) != 2 || !strings.Contains(r.Stale[1].Reason, "nobody held the lease") {
			t.Fatalf("stale %+v: want the write after the release stale", r.Stale)
		}
	})
}
