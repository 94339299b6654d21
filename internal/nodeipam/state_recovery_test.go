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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"go4.org/netipx"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// TestDistrustRecord is the rebuild after someone else rewrote the record
// (issue #31, point 4): its content is never read, and every block no node
// holds is quarantined from the recovery, whatever status.quarantine lists
// (ApplyRecord would keep a listed time still inside its delay).
func TestDistrustRecord(t *testing.T) {
	// Four /26 blocks; node a holds .0.
	tests := []struct {
		name   string
		listed []v1alpha1.QuarantinedBlock
		// own is what the leader's record held.
		own       []string
		wantClaim []string
		// wantMoved counts the blocks quarantined anew or moved to now.
		wantMoved int
	}{
		{
			name:      "never-used blocks are quarantined from now",
			wantClaim: []string{"10.0.0.0/24"},
			wantMoved: 3,
		},
		{
			name:      "a block listed inside its delay is quarantined from now, not from its freedAt",
			listed:    []v1alpha1.QuarantinedBlock{{CIDR: "10.0.0.64/26", FreedAt: ptr.To(metav1.NewTime(t0.Add(-30 * time.Second)))}},
			own:       []string{"10.0.0.0/25"},
			wantClaim: []string{"10.0.0.0/24"},
			wantMoved: 3,
		},
		{
			name:      "a listed freedAt in the future is quarantined from now too",
			listed:    []v1alpha1.QuarantinedBlock{{CIDR: "10.0.0.64/26", FreedAt: ptr.To(metav1.NewTime(t0.Add(time.Hour)))}},
			wantClaim: []string{"10.0.0.0/24"},
			wantMoved: 2, // restored at now already

		},
		{
			// A range removed and added again within a delay still finds them.
			name:      "addresses outside every range this leader kept stay in the claim",
			own:       []string{"10.0.0.0/26", "10.9.0.0/24"},
			wantClaim: []string{"10.0.0.0/24", "10.9.0.0/24"},
			wantMoved: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			pn := smallNet()
			pn.Status.Quarantine = tt.listed
			r, err := NewRebuild(pn)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(r.AddNode("a", "uid-a", []string{"10.0.0.0/26"})).To(Succeed())
			r.RestoreQuarantine(pn, t0)
			var own netipx.IPSetBuilder
			for _, p := range tt.own {
				own.AddPrefix(mp(p))
			}
			ownSet, _ := own.IPSet()
			r.DistrustRecord(ownSet, t0)
			g.Expect(setStrings(claimed(t, r))).To(Equal(tt.wantClaim))
			r.RecordClaimed()
			clk := clocktesting.NewFakeClock(t0)
			s := NewState(clk, NewBackoff(time.Minute, time.Minute, clk), v1alpha1.IPv4)
			sum := s.Open(r)
			g.Expect(sum.RecordDistrusted).To(BeTrue())
			g.Expect(sum.QuarantinedFromRecord).To(Equal(tt.wantMoved))
			got := map[string]time.Time{}
			for _, e := range s.Quarantine() {
				got[e.Prefix.String()] = e.FreedAt
			}
			g.Expect(got).To(Equal(map[string]time.Time{"10.0.0.64/26": t0, "10.0.0.128/26": t0, "10.0.0.192/26": t0}))
			_, err = s.Allocate(node("b"))
			var ue *UnavailableError
			g.Expect(errors.As(err, &ue)).To(BeTrue(), "got %v", err)
			g.Expect(ue.RetryIn).To(Equal(time.Minute), "a full delay from the recovery")
		})
	}
}

// recoverState suspends the state of f, as recordStore does when it finds
// the record rewritten, and rebuilds it in place at the fixture's time
// from the nodes listed (name, podCIDR, ...) and status.quarantine in pn, as
// controllers/nodeipam/rebuilder.go recovers.
func recoverState(t *testing.T, f *stateFixture, pn *v1alpha1.PodNetwork, listed ...string) RebuildSummary {
	t.Helper()
	g := NewWithT(t)
	r, err := NewRebuild(pn)
	g.Expect(err).NotTo(HaveOccurred())
	for i := 0; i < len(listed); i += 2 {
		g.Expect(r.AddNode(listed[i], types.UID("uid-"+listed[i]), []string{listed[i+1]})).To(Succeed())
	}
	r.RestoreQuarantine(pn, f.clock.Now())
	r.DistrustRecord(f.state.RecordKnown(), f.clock.Now())
	r.RecordClaimed()
	return f.state.Open(r)
}

// TestRecoveryAfterRewrite: a leader that finds the record rewritten hands
// out nothing until its state is rebuilt in place, then quarantines every
// unheld block from the recovery; the node write in flight at the rewrite
// keeps its blocks until its outcome is known.
func TestRecoveryAfterRewrite(t *testing.T) {
	// a holds .0; b's .64 was freed at t0; c's write of .128 is in flight
	// when the rewrite is found, 30 s later.
	setup := func(t *testing.T) (*stateFixture, *v1alpha1.PodNetwork) {
		t.Helper()
		g := NewWithT(t)
		pn := smallNet()
		f := openState(t, pn)
		f.write("a")
		f.write("b")
		g.Expect(f.state.Gone("b")).To(Equal(mps("10.0.0.64/26")))
		rep, _, _ := f.state.Report()
		pn.Status.Quarantine = rep.Quarantine // .64 listed, freed at t0
		f.clock.Step(30 * time.Second)
		g.Expect(f.allocate("c")).To(Equal([]string{"10.0.0.128/26"}))
		g.Expect(f.state.Suspend()).To(BeTrue())
		g.Expect(f.state.NodeWritesInFlight()).To(Equal(1))
		_, err := f.state.Allocate(node("d"))
		g.Expect(errors.Is(err, ErrRecordRewritten)).To(BeTrue(), "nothing is handed out in between; got %v", err)
		return f, pn
	}
	recovered := t0.Add(30 * time.Second)

	t.Run("every unheld block waits a full delay from the recovery; the write in flight keeps its block", func(t *testing.T) {
		g := NewWithT(t)
		f, pn := setup(t)
		sum := recoverState(t, f, pn, "a", "10.0.0.0/26") // c's write has not landed
		g.Expect(sum.RecordDistrusted).To(BeTrue())
		g.Expect(f.state.IsOpen()).To(BeTrue())
		g.Expect(f.holdings()).To(Equal(map[string][]string{"a": {"10.0.0.0/26"}, "c": {"10.0.0.128/26"}}))
		g.Expect(f.state.OutcomeUnknown("c")).To(BeTrue(), "c is read again from the API server before its block is written again")
		got := map[string]time.Time{}
		for _, e := range f.state.Quarantine() {
			got[e.Prefix.String()] = e.FreedAt
		}
		g.Expect(got).To(Equal(map[string]time.Time{"10.0.0.64/26": recovered, "10.0.0.192/26": recovered}),
			"b's block from the recovery, not from its listed freedAt")
		g.Expect(setStrings(f.state.RecordWant())).To(Equal([]string{"10.0.0.0/24"}))
		g.Expect(f.state.WaitingNodes()).To(ContainElement("d"))

		_, err := f.state.Allocate(node("d"))
		var ue *UnavailableError
		g.Expect(errors.As(err, &ue)).To(BeTrue(), "got %v", err)
		g.Expect(ue.RetryIn).To(Equal(time.Minute))
		f.clock.Step(30 * time.Second) // b's own delay has passed: not enough
		_, err = f.state.Allocate(node("d"))
		g.Expect(errors.As(err, &ue)).To(BeTrue(), "got %v", err)

		// c's write lands; a retry of c writes the same block.
		a, err := f.state.Allocate(node("c"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(prefixStrings(a.Blocks)).To(Equal([]string{"10.0.0.128/26"}))
		f.state.Written("c", "uid-c", a.Blocks)
		g.Expect(f.state.NodeWritesInFlight()).To(Equal(0))

		f.clock.Step(30 * time.Second)
		g.Expect(f.allocate("d")).To(Equal([]string{"10.0.0.64/26"}))
	})

	t.Run("a write the rebuild saw stored is settled", func(t *testing.T) {
		g := NewWithT(t)
		f, pn := setup(t)
		recoverState(t, f, pn, "a", "10.0.0.0/26", "c", "10.0.0.128/26")
		g.Expect(f.state.OutcomeUnknown("c")).To(BeFalse())
		g.Expect(f.state.NodeWritesInFlight()).To(Equal(0))
		g.Expect(f.holdings()).To(HaveKeyWithValue("c", []string{"10.0.0.128/26"}))
		g.Expect(f.state.Observe(node("c", "10.0.0.128/26")).Changed).To(BeFalse())
	})

	t.Run("a write the rebuild did not see, whose node shows other podCIDRs, quarantines its block", func(t *testing.T) {
		g := NewWithT(t)
		f, pn := setup(t)
		recoverState(t, f, pn, "a", "10.0.0.0/26")
		f.clock.Step(time.Second)
		o := f.state.Observe(node("c", "10.0.0.192/26")) // another allocator was faster
		g.Expect(o.Adopted).To(BeTrue())
		g.Expect(f.holdings()).To(HaveKeyWithValue("c", []string{"10.0.0.192/26"}))
		var freedAt time.Time
		for _, e := range f.state.Quarantine() {
			if e.Prefix == mp("10.0.0.128/26") {
				freedAt = e.FreedAt
			}
		}
		g.Expect(freedAt).To(Equal(recovered.Add(time.Second)), "it may have reached a node: quarantined, not returned")
	})

	t.Run("a write rejected after the recovery keeps its block until the node is read again", func(t *testing.T) {
		g := NewWithT(t)
		f, pn := setup(t)
		recoverState(t, f, pn, "a", "10.0.0.0/26")
		f.state.Rejected("c")
		g.Expect(f.holdings()).To(HaveKeyWithValue("c", []string{"10.0.0.128/26"}))
		g.Expect(f.state.Gone("c")).To(Equal(mps("10.0.0.128/26")))
	})
}
