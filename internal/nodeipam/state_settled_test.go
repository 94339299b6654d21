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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/slimnode"
)

func TestStateSettled(t *testing.T) {
	// withUID is n with another object's uid, as after the node was replaced.
	withUID := func(n *slimnode.Node, uid string) *slimnode.Node {
		n.UID = types.UID(uid)
		return n
	}
	tests := []struct {
		name   string
		listed []*slimnode.Node
		before func(f *stateFixture) []string // returns a's podCIDRs where it assigns them
		node   func(aCIDRs []string) *slimnode.Node
		want   bool
	}{
		{
			name:   "NodeIPAM's write coming back after its response was recorded",
			before: func(f *stateFixture) []string { f.allocateAndWriteA(); return f.holdings()["a"] },
			node:   func(a []string) *slimnode.Node { return node("a", a...) },
			want:   true,
		},
		{
			name:   "NodeIPAM's write coming back before its response: still in flight",
			before: func(f *stateFixture) []string { return f.allocate("a") },
			node:   func(a []string) *slimnode.Node { return node("a", a...) },
		},
		{
			name:   "podCIDRs the rebuild listed",
			listed: []*slimnode.Node{node("a", "10.0.0.64/26")},
			node:   func([]string) *slimnode.Node { return node("a", "10.0.0.64/26") },
			want:   true,
		},
		{
			name:   "podCIDRs observed once before",
			before: func(f *stateFixture) []string { f.state.Observe(node("a", "10.0.0.128/26")); return nil },
			node:   func([]string) *slimnode.Node { return node("a", "10.0.0.128/26") },
			want:   true,
		},
		{
			name:   "another node object of the same name",
			listed: []*slimnode.Node{node("a", "10.0.0.64/26")},
			node:   func([]string) *slimnode.Node { return withUID(node("a", "10.0.0.64/26"), "uid-a2") },
		},
		{
			name:   "other podCIDRs than the state holds",
			listed: []*slimnode.Node{node("a", "10.0.0.64/26")},
			node:   func([]string) *slimnode.Node { return node("a", "10.0.0.128/26") },
		},
		{
			name: "a node the state does not know",
			node: func([]string) *slimnode.Node { return node("a", "10.0.0.64/26") },
		},
		{
			name:   "a node without podCIDRs",
			listed: []*slimnode.Node{node("a")},
			node:   func([]string) *slimnode.Node { return node("a") },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			f := openState(t, smallNet(), tt.listed...)
			var a []string
			if tt.before != nil {
				a = tt.before(f)
			}
			n := tt.node(a)
			g.Expect(f.state.Settled(n)).To(Equal(tt.want))
			if tt.want {
				g.Expect(f.state.Observe(n).Changed).To(BeFalse(), "a settled node is one whose observation changes nothing")
			}
		})
	}
}

// TestStopWaitingIfSettled covers the nodes parked while the gate was
// closed: once it opens, those the rebuild settled stop waiting without a
// reconcile, the others stay to be retried.
func TestStopWaitingIfSettled(t *testing.T) {
	g := NewWithT(t)
	clk := clocktesting.NewFakeClock(t0)
	state := NewState(clk, NewBackoff(time.Minute, 10*time.Minute, clk), v1alpha1.IPv4)
	for _, name := range []string{"settled", "empty", "changed", "replaced"} {
		g.Expect(state.Park(name)).To(BeTrue(), "the gate is closed before the rebuild")
	}
	g.Expect(state.StopWaitingIfSettled(node("settled", "10.0.0.64/26"))).To(BeFalse(), "nothing is settled before the gate opens")

	r, err := NewRebuild(smallNet())
	g.Expect(err).NotTo(HaveOccurred())
	for _, n := range []*slimnode.Node{node("settled", "10.0.0.64/26"), node("empty"), node("changed", "10.0.0.128/26"), node("replaced", "10.0.0.192/26")} {
		g.Expect(r.AddNode(n.Name, n.UID, n.Spec.PodCIDRs)).To(Succeed())
	}
	r.RecordClaimed()
	state.Open(r)

	g.Expect(state.StopWaitingIfSettled(node("settled", "10.0.0.64/26"))).To(BeTrue())
	g.Expect(state.StopWaitingIfSettled(node("empty"))).To(BeFalse(), "a node without podCIDRs waits for a block")
	g.Expect(state.StopWaitingIfSettled(node("changed", "10.0.0.0/26"))).To(BeFalse(), "podCIDRs other than the rebuild read")
	replaced := node("replaced", "10.0.0.192/26")
	replaced.UID = "uid-replaced-2"
	g.Expect(state.StopWaitingIfSettled(replaced)).To(BeFalse(), "another object of the same name")
	g.Expect(state.WaitingNodes()).To(ConsistOf("empty", "changed", "replaced"))
}
