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
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/slimnode"
)

func TestStateGate(t *testing.T) {
	g := NewWithT(t)
	clk := clocktesting.NewFakeClock(t0)
	s := NewState(clk, NewBackoff(0, 0, clk), v1alpha1.IPv4)

	g.Expect(s.IsOpen()).To(BeFalse())
	g.Expect(s.Park("a")).To(BeTrue(), "a closed gate parks the node")
	g.Expect(s.WaitingNodes()).To(ConsistOf("a"))
	_, _, ok := s.Report()
	g.Expect(ok).To(BeFalse(), "nothing to report before the rebuild")

	r, err := NewRebuild(smallNet())
	g.Expect(err).NotTo(HaveOccurred())
	s.Open(r)
	g.Expect(s.IsOpen()).To(BeTrue())
	g.Expect(s.Park("b")).To(BeFalse())
	g.Expect(s.WaitingNodes()).To(ConsistOf("a"), "the parked node waits until it is retried")
}

func TestStateAdoption(t *testing.T) {
	tests := []struct {
		name string
		// before runs on the state first.
		before func(f *stateFixture)
		node   *slimnode.Node
		want   Observation
		// wantHeld is the allocator's holdings afterwards.
		wantHeld map[string][]string
	}{
		{
			name:     "podCIDRs set before NodeIPAM ran are adopted where they fall",
			node:     node("a", "10.0.0.128/26"),
			want:     Observation{Changed: true, PodCIDRs: mps("10.0.0.128/26"), Adopted: true, RecordPending: true},
			wantHeld: map[string][]string{"a": {"10.0.0.128/26"}},
		},
		{
			name:     "podCIDRs outside every range are adopted too",
			node:     node("a", "192.168.0.0/24"),
			want:     Observation{Changed: true, PodCIDRs: mps("192.168.0.0/24"), Adopted: true},
			wantHeld: map[string][]string{"a": {"192.168.0.0/24"}},
		},
		{
			name:     "podCIDRs NodeIPAM wrote and already recorded change nothing",
			before:   func(f *stateFixture) { f.allocateAndWriteA() },
			node:     node("a", "10.0.0.0/26"),
			want:     Observation{},
			wantHeld: map[string][]string{"a": {"10.0.0.0/26"}},
		},
		{
			name:     "the podCIDRs of a write in flight confirm it: ours, not adopted",
			before:   func(f *stateFixture) { f.allocate("a") },
			node:     node("a", "10.0.0.0/26"),
			want:     Observation{Changed: true, PodCIDRs: mps("10.0.0.0/26")},
			wantHeld: map[string][]string{"a": {"10.0.0.0/26"}},
		},
		{
			name:     "another allocator won the race: its podCIDRs are adopted, the reserved block returned",
			before:   func(f *stateFixture) { f.allocate("a") },
			node:     node("a", "10.0.0.192/26"),
			want:     Observation{Changed: true, PodCIDRs: mps("10.0.0.192/26"), Adopted: true},
			wantHeld: map[string][]string{"a": {"10.0.0.192/26"}},
		},
		{
			name: "unreadable podCIDRs reserve nothing, and are reported",
			node: node("a", "10.0.0.64/26", "not-a-cidr"),
			want: Observation{Changed: true, PodCIDRs: mps("10.0.0.64/26"), Adopted: true, RecordPending: true,
				Problems: []string{`"not-a-cidr" is not a CIDR`}},
			wantHeld: map[string][]string{"a": {"10.0.0.64/26"}},
		},
		{
			// What kube-apiserver accepted before StrictIPCIDRValidation:
			// the block Kubernetes means is never handed to another node.
			name: "a podCIDR with leading zeros is reserved as Kubernetes reads it, and reported",
			node: node("a", "010.0.0.128/26"),
			want: Observation{Changed: true, PodCIDRs: mps("10.0.0.128/26"), Adopted: true, RecordPending: true,
				Problems: []string{`"010.0.0.128/26" has leading zeros, which Kubernetes reads as 10.0.0.128/26 but programs that read them as octal do not`}},
			wantHeld: map[string][]string{"a": {"10.0.0.128/26"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			f := openState(t, smallNet())
			if tt.before != nil {
				tt.before(f)
			}
			g.Expect(f.state.Observe(tt.node)).To(Equal(tt.want))
			g.Expect(f.holdings()).To(Equal(tt.wantHeld))
			g.Expect(f.state.Observe(tt.node).Changed).To(BeFalse(), "observing the same podCIDRs again changes nothing")
		})
	}
}

func TestStateConflicts(t *testing.T) {
	tests := []struct {
		name   string
		listed []*slimnode.Node // by the rebuild
		before func(f *stateFixture)
		node   *slimnode.Node // then observed
		// wantFound are the conflicts Observe returns, wantReported those
		// the status reports.
		wantFound    []string
		wantReported []string
	}{
		{
			name:         "overlapping podCIDRs found by the rebuild are reported",
			listed:       []*slimnode.Node{node("a", "10.0.0.0/26"), node("b", "10.0.0.0/25")},
			wantReported: []string{"nodes a (10.0.0.0/26) and b (10.0.0.0/25) have overlapping podCIDRs"},
		},
		{
			name:         "adopted podCIDRs overlapping a block NodeIPAM wrote",
			before:       func(f *stateFixture) { f.allocateAndWriteA() },
			node:         node("b", "10.0.0.0/26"),
			wantFound:    []string{"nodes a (10.0.0.0/26) and b (10.0.0.0/26) have overlapping podCIDRs"},
			wantReported: []string{"nodes a (10.0.0.0/26) and b (10.0.0.0/26) have overlapping podCIDRs"},
		},
		{
			name:         "adopted podCIDRs overlapping a block of a write in flight",
			before:       func(f *stateFixture) { f.allocate("a") },
			node:         node("b", "10.0.0.0/25"),
			wantFound:    []string{"nodes a (10.0.0.0/26) and b (10.0.0.0/25) have overlapping podCIDRs"},
			wantReported: []string{"nodes a (10.0.0.0/26) and b (10.0.0.0/25) have overlapping podCIDRs"},
		},
		{
			name:   "adopted podCIDRs next to others are no conflict",
			listed: []*slimnode.Node{node("a", "10.0.0.0/26")},
			node:   node("b", "10.0.0.64/26"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			f := openState(t, smallNet(), tt.listed...)
			if tt.before != nil {
				tt.before(f)
			}
			if tt.node != nil {
				g.Expect(prefixStrings(f.state.Observe(tt.node).Conflicts)).To(ConsistOf(stringsAsAny(tt.wantFound)...))
			}
			rep, _, ok := f.state.Report()
			g.Expect(ok).To(BeTrue())
			g.Expect(rep.Conflicts).To(ConsistOf(stringsAsAny(tt.wantReported)...))
		})
	}

	t.Run("a conflict is forgotten with either node", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet(), node("a", "10.0.0.0/26"), node("b", "10.0.0.0/25"))
		g.Expect(f.sum.Conflicts).To(HaveLen(1))
		f.state.Gone("b")
		rep, _, _ := f.state.Report()
		g.Expect(rep.Conflicts).To(BeEmpty())
	})
}

func TestStateReturnToPool(t *testing.T) {
	tests := []struct {
		name string
		// run drives the state for node "a" and returns the blocks "b"
		// gets afterwards.
		run       func(f *stateFixture)
		wantB     []string
		wantHeldA []string
	}{
		{
			name:  "a write certainly not stored returns its block without quarantine",
			run:   func(f *stateFixture) { f.allocate("a"); f.state.Rejected("a") },
			wantB: []string{"10.0.0.0/26"},
		},
		{
			name: "a write of unknown outcome keeps its block, even when a retry is rejected",
			run: func(f *stateFixture) {
				f.allocate("a")
				f.state.Uncertain("a")
				f.state.Rejected("a")
			},
			wantB:     []string{"10.0.0.64/26"},
			wantHeldA: []string{"10.0.0.0/26"},
		},
		{
			name: "a node without podCIDRs whose write is in flight gets the same blocks again",
			run: func(f *stateFixture) {
				first := f.allocate("a")
				if again := f.allocate("a"); !slices.Equal(first, again) {
					f.t.Fatalf("second Allocate = %v, want %v", again, first)
				}
			},
			wantB:     []string{"10.0.0.64/26"},
			wantHeldA: []string{"10.0.0.0/26"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			f := openState(t, smallNet())
			tt.run(f)
			g.Expect(f.allocate("b")).To(Equal(tt.wantB))
			g.Expect(f.holdings()["a"]).To(Equal(tt.wantHeldA))
			g.Expect(f.quarantined()).To(BeEmpty())
		})
	}

	t.Run("a write NodeIPAM already saw stored makes a stale read retry", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet())
		f.allocateAndWriteA()
		a, err := f.state.Allocate(node("a"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(a.Stale).To(BeTrue())
		g.Expect(f.state.OutcomeUnknown("a")).To(BeFalse())
	})
}

func TestStateQuarantine(t *testing.T) {
	// oneBlock has a single /26 block, so a freed block is the only one.
	oneBlock := func() *v1alpha1.PodNetwork {
		pn := podNetwork().rng("pods", "10.0.0.0/26", v1alpha1.RangePhaseActive, mask(26)).
			policy(60, v1alpha1.WhenExhaustedWait).obj()
		pn.ResourceVersion = "1"
		return pn
	}
	tests := []struct {
		name string
		pn   func() *v1alpha1.PodNetwork
		// unwritten leaves node a's write in flight instead of stored.
		unwritten bool
		// free frees node a's block.
		free         func(f *stateFixture) []string
		wantReleased []string
	}{
		{
			name:         "a deleted node's block is quarantined",
			pn:           oneBlock,
			free:         func(f *stateFixture) []string { return prefixStrings(f.state.Gone("a")) },
			wantReleased: []string{"10.0.0.0/26"},
		},
		{
			name:         "a node replaced under the same name gives its block up to quarantine",
			pn:           oneBlock,
			free:         func(f *stateFixture) []string { return prefixStrings(f.state.Replaced("a", types.UID("uid-new"))) },
			wantReleased: []string{"10.0.0.0/26"},
		},
		{
			name:      "a write of unknown outcome for a node that is gone is quarantined",
			pn:        oneBlock,
			unwritten: true,
			free: func(f *stateFixture) []string {
				f.state.Uncertain("a")
				return prefixStrings(f.state.Gone("a"))
			},
			wantReleased: []string{"10.0.0.0/26"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			f := openState(t, tt.pn())
			if tt.unwritten {
				f.allocate("a")
			} else {
				f.allocateAndWriteA()
			}
			g.Expect(tt.free(f)).To(Equal(tt.wantReleased))
			g.Expect(f.quarantined()).To(Equal(tt.wantReleased))

			_, err := f.state.Allocate(node("b"))
			var ue *UnavailableError
			g.Expect(errors.As(err, &ue)).To(BeTrue(), "the only block is quarantined: %v", err)
			g.Expect(ue.RetryIn).To(Equal(time.Minute))
			g.Expect(f.state.WaitingNodes()).To(ConsistOf("b"))
			rep, next, _ := f.state.Report()
			g.Expect(rep.Quarantine).To(HaveLen(1))
			g.Expect(next).To(Equal(time.Minute))

			f.clock.Step(time.Minute)
			g.Expect(f.allocate("b")).To(Equal(tt.wantReleased), "reusable once the recycle delay passed")
			g.Expect(f.state.WaitingNodes()).To(BeEmpty())
		})
	}

	t.Run("the rebuild restores the persisted quarantine", func(t *testing.T) {
		g := NewWithT(t)
		pn := oneBlock()
		pn.Status.Quarantine = []v1alpha1.QuarantinedBlock{{CIDR: "10.0.0.0/26", FreedAt: ptr.To(metav1.NewTime(t0.Add(-30 * time.Second)))}}
		f := openState(t, pn)
		g.Expect(f.sum.Quarantined).To(Equal(1))
		_, err := f.state.Allocate(node("b"))
		var ue *UnavailableError
		g.Expect(errors.As(err, &ue)).To(BeTrue())
		g.Expect(ue.RetryIn).To(Equal(30 * time.Second))
	})
}

func TestStateAllocationDuration(t *testing.T) {
	g := NewWithT(t)
	f := openState(t, smallNet())
	f.allocate("a")
	f.state.Rejected("a")
	f.clock.Step(3 * time.Second)
	blocks := f.allocate("a")
	f.clock.Step(2 * time.Second)
	g.Expect(f.state.Written("a", "uid-a", cidr.ParseObserved(blocks))).To(Equal(5*time.Second),
		"measured from the first attempt")
}

func TestStateSync(t *testing.T) {
	g := NewWithT(t)
	f := openState(t, smallNet())

	res, err := f.state.Sync(smallNet())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Retry).To(BeFalse(), "the PodNetwork the rebuild read")

	grown := podNetwork().rng("pods", "10.0.0.0/24", v1alpha1.RangePhaseActive, mask(26)).
		rng("more", "10.1.0.0/24", v1alpha1.RangePhaseActive, mask(26)).
		rng("bad", "10.0.0.0/16", v1alpha1.RangePhasePending, mask(24)).
		policy(60, v1alpha1.WhenExhaustedWait).obj()
	grown.ResourceVersion, grown.Generation = "2", 2
	res, err = f.state.Sync(grown)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Retry).To(BeTrue(), "a new range may serve the waiting nodes")
	g.Expect(res.Problems).To(ConsistOf(HaveField("Range", "bad")))

	grown.ResourceVersion = "3"
	res, err = f.state.Sync(grown)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Retry).To(BeFalse())
	g.Expect(res.Problems).To(BeEmpty(), "a problem is reported once")
}

func TestStateUnavailable(t *testing.T) {
	tests := []struct {
		name      string
		retryIn   time.Duration // of the UnavailableError
		calls     int           // earlier failures of the same node
		wantEmit  bool
		wantRetry time.Duration
	}{
		{name: "first failure: event, retry after the backoff", wantEmit: true, wantRetry: time.Minute},
		{name: "a quarantined block frees sooner", retryIn: 20 * time.Second, wantEmit: true, wantRetry: 20 * time.Second},
		{name: "a quarantined block frees later", retryIn: time.Hour, wantEmit: true, wantRetry: time.Minute},
		{name: "again at once: no event", calls: 1, wantRetry: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			f := openState(t, smallNet())
			ue := &UnavailableError{RetryIn: tt.retryIn}
			for range tt.calls {
				f.state.Unavailable("a", ue)
			}
			emit, retry := f.state.Unavailable("a", ue)
			g.Expect(emit).To(Equal(tt.wantEmit))
			g.Expect(retry).To(Equal(tt.wantRetry))
		})
	}
}

// TestLegacyPodCIDRIsNeverFreeSpace: a podCIDR written in the legacy format
// kube-apiserver accepted before StrictIPCIDRValidation holds its block
// like any other; no other node is given it.
func TestLegacyPodCIDRIsNeverFreeSpace(t *testing.T) {
	g := NewWithT(t)
	f := openState(t, smallNet(), node("old", "010.0.0.128/26"))
	var got []string
	for _, n := range []string{"b", "c", "d"} {
		got = append(got, f.allocate(n)...)
	}
	g.Expect(got).To(ConsistOf("10.0.0.0/26", "10.0.0.64/26", "10.0.0.192/26"))
	_, err := f.state.Allocate(node("e"))
	g.Expect(err).To(HaveOccurred(), "the four blocks are taken")
}

// TestRebuildListsUnreadablePodCIDRs: the rebuild reads legacy podCIDRs as
// Kubernetes does and lists every node whose podCIDRs it could not all read
// plainly, for the controller to report.
func TestRebuildListsUnreadablePodCIDRs(t *testing.T) {
	g := NewWithT(t)
	f := openState(t, smallNet(), node("ok", "10.0.0.0/26"), node("legacy", "010.0.0.64/26"), node("broken", "not-a-cidr"))
	g.Expect(f.sum.PodCIDRProblems).To(HaveExactElements(
		And(HaveField("Node", "legacy"), HaveField("PodCIDRs", mps("10.0.0.64/26")), HaveField("Problems", ConsistOf(ContainSubstring("leading zeros")))),
		And(HaveField("Node", "broken"), HaveField("PodCIDRs", BeEmpty()), HaveField("Problems", ConsistOf(`"not-a-cidr" is not a CIDR`))),
	))
	g.Expect(f.holdings()).To(Equal(map[string][]string{"ok": {"10.0.0.0/26"}, "legacy": {"10.0.0.64/26"}}))
}
