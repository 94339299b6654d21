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
	"net/netip"
	"slices"
	"testing"
	"time"

	"go4.org/netipx"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/slimnode"
)

// stateFixture is a State on a fake clock, opened from a PodNetwork and the
// nodes the rebuild listed.
type stateFixture struct {
	t     *testing.T
	clock *clocktesting.FakeClock
	state *State
	sum   RebuildSummary
}

// smallNet has one Active range of four /26 blocks (.0, .64, .128, .192)
// and a recycle delay of a minute.
func smallNet() *v1alpha1.PodNetwork {
	pn := podNetwork().rng("pods", "10.0.0.0/24", v1alpha1.RangePhaseActive, mask(26)).
		policy(60, v1alpha1.WhenExhaustedWait).obj()
	pn.ResourceVersion, pn.Generation = "1", 1
	return pn
}

func openState(t *testing.T, pn *v1alpha1.PodNetwork, listed ...*slimnode.Node) *stateFixture {
	t.Helper()
	return openStateWithRecord(t, pn, nil, listed...)
}

// openStateWithRecord is openState with the issued-block record the rebuild
// read (its data, nil when there is none).
func openStateWithRecord(t *testing.T, pn *v1alpha1.PodNetwork, record map[string]string, listed ...*slimnode.Node) *stateFixture {
	t.Helper()
	return openStateAt(t, t0, pn, record, listed...)
}

// openStateAt is openStateWithRecord with a rebuild at now, in the order
// controllers/nodeipam/rebuilder.go follows without a block store: nodes,
// then the issued-block record of an older release (record, its text) with
// status.quarantine, or the status alone when record is nil.
func openStateAt(t *testing.T, now time.Time, pn *v1alpha1.PodNetwork, record map[string]string, listed ...*slimnode.Node) *stateFixture {
	t.Helper()
	f := &stateFixture{t: t, clock: clocktesting.NewFakeClock(now)}
	f.state = NewState(f.clock, NewBackoff(time.Minute, 10*time.Minute, f.clock), v1alpha1.IPv4)
	r, err := NewRebuild(pn)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range listed {
		if err := r.AddNode(n.Name, n.UID, n.Spec.PodCIDRs); err != nil {
			t.Fatal(err)
		}
	}
	if record == nil {
		r.RestoreQuarantine(pn, now)
	} else if err := r.ApplyLegacyRecord(record, pn, now); err != nil {
		t.Fatal(err)
	}
	r.RecordClaimed()
	f.sum = f.state.Open(r)
	return f
}

// storeRecord writes the wanted issued-block record, as the controller does
// before it writes blocks the record lacks.
func (f *stateFixture) storeRecord() {
	if w, ok := f.state.BeginRecordWrite(); ok {
		f.state.EndRecordWrite(w.Issued, RecordStored)
	}
}

// claimed returns the issued set a rebuild claims.
func claimed(t *testing.T, r *Rebuild) *netipx.IPSet {
	t.Helper()
	w, err := r.ClaimRecord(t0)
	if err != nil {
		t.Fatal(err)
	}
	return w.Issued
}

// node is a Node named name (uid "uid-<name>") with the given podCIDRs.
func node(name string, podCIDRs ...string) *slimnode.Node {
	return &slimnode.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Spec:       slimnode.Spec{PodCIDRs: podCIDRs},
	}
}

// allocate allocates for a node without podCIDRs and fails on an error.
func (f *stateFixture) allocate(name string) []string {
	f.t.Helper()
	a, err := f.state.Allocate(node(name))
	if err != nil {
		f.t.Fatalf("Allocate(%s): %v", name, err)
	}
	if a.RecordPending || a.RecordAhead {
		f.storeRecord()
		if !f.state.RecordCovers(a.Blocks) {
			f.t.Fatalf("Allocate(%s): the stored record does not cover %v", name, a.Blocks)
		}
	}
	return prefixStrings(a.Blocks)
}

// allocateAndWriteA allocates for node "a" and records the write as stored.
func (f *stateFixture) allocateAndWriteA() {
	f.t.Helper()
	blocks := f.allocate("a")
	f.state.Written("a", types.UID("uid-a"), cidr.ParseObserved(blocks))
}

// holdings returns the blocks the allocator holds, by node.
func (f *stateFixture) holdings() map[string][]string {
	out := map[string][]string{}
	for _, h := range f.state.Holdings() {
		out[h.Owner] = append(out[h.Owner], h.Prefix.String())
	}
	return out
}

// quarantined returns the quarantined blocks.
func (f *stateFixture) quarantined() []string {
	var out []string
	for _, q := range f.state.Quarantine() {
		out = append(out, q.Prefix.String())
	}
	slices.Sort(out)
	return out
}

func prefixStrings[P interface{ String() string }](ps []P) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func mps(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = mp(s)
	}
	return out
}

func stringsAsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
