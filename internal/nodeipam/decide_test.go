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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// TestNodeSteps drives the node reconciler's three calls (BeforeRead,
// Decide, Done) through the interleavings it meets, as the controller
// performs them, with a fake clock.
func TestNodeSteps(t *testing.T) {
	t.Run("a closed state parks the node before it is read", func(t *testing.T) {
		g := NewWithT(t)
		clk := clocktesting.NewFakeClock(t0)
		s := NewState(clk, NewBackoff(time.Minute, time.Minute, clk), v1alpha1.IPv4)
		g.Expect(s.BeforeRead("a")).To(Equal(ReadNothing))
	})

	t.Run("a new node: store first, then the patch; stored confirms", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet())
		g.Expect(f.state.BeforeRead("a")).To(Equal(ReadCache))
		n := node("a")
		n.ResourceVersion = "7"
		step, err := f.state.Decide("a", n)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(step.StoreFirst).To(BeTrue(), "the first block lies outside the store")
		g.Expect(step.Patch.ResourceVersion).To(Equal("7"))
		g.Expect(prefixStrings(step.Patch.Blocks)).To(Equal([]string{"10.0.0.0/26"}))
		f.storeRecord()
		g.Expect(f.state.RecordCovers(step.Patch.Blocks)).To(BeTrue())
		f.clock.Step(time.Second)
		g.Expect(f.state.Done("a", step.Patch, WriteStored)).To(Equal(time.Second))
		written := node("a", "10.0.0.0/26")
		g.Expect(f.state.Settled(written)).To(BeTrue())
		step, err = f.state.Decide("a", written)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(step.Patch).To(BeNil())
		g.Expect(step.Observed.Changed).To(BeFalse(), "its own write coming back")
	})

	t.Run("a patch not sent returns the block to the pool exactly", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet())
		step, err := f.state.Decide("a", node("a"))
		g.Expect(err).NotTo(HaveOccurred())
		f.state.Done("a", step.Patch, WriteNotSent)
		g.Expect(f.holdings()).To(BeEmpty())
		g.Expect(f.quarantined()).To(BeEmpty(), "never stored: no quarantine")
		step, err = f.state.Decide("b", node("b"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(prefixStrings(step.Patch.Blocks)).To(Equal([]string{"10.0.0.0/26"}), "the same block, next")
	})

	t.Run("an unknown outcome keeps the blocks and reads the node from the API next", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet())
		step, err := f.state.Decide("a", node("a"))
		g.Expect(err).NotTo(HaveOccurred())
		f.state.Done("a", step.Patch, WriteUnknown)
		g.Expect(f.state.BeforeRead("a")).To(Equal(ReadAPI))
		// Read from the API: the write was not stored. The node asks again
		// and gets the same block, never a second one.
		again, err := f.state.Decide("a", node("a"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(again.Patch).NotTo(BeNil())
		g.Expect(again.Patch.Blocks).To(Equal(step.Patch.Blocks))
		// A rejection of the retry keeps them too: the first attempt may
		// have been stored.
		f.state.Done("a", again.Patch, WriteRejected)
		g.Expect(f.holdings()).To(HaveKeyWithValue("a", []string{"10.0.0.0/26"}))
	})

	t.Run("a node deleted after its write releases into quarantine", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet())
		f.write("a")
		step, err := f.state.Decide("a", nil)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(prefixStrings(step.Released)).To(Equal([]string{"10.0.0.0/26"}))
		g.Expect(step.Replaced).To(BeFalse())
		g.Expect(f.quarantined()).To(Equal([]string{"10.0.0.0/26"}))
	})

	t.Run("a node object replaced under the same name", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet())
		f.write("a")
		n := node("a")
		n.UID = "uid-a-2"
		step, err := f.state.Decide("a", n)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(step.Replaced).To(BeTrue())
		g.Expect(prefixStrings(step.Patch.Blocks)).NotTo(ContainElement("10.0.0.0/26"), "the old object's block waits its delay")
	})

	t.Run("a node being deleted without podCIDRs gets none", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet())
		n := node("a")
		n.DeletionTimestamp = &metav1.Time{Time: t0}
		step, err := f.state.Decide("a", n)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(step).To(Equal(NodeStep{}))
	})

	t.Run("no free block: one event per backoff period, retried when the first quarantined block frees", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet())
		for _, n := range []string{"a", "b", "c", "d"} {
			f.write(n)
		}
		f.state.Gone("a")
		step, err := f.state.Decide("e", node("e"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(step.Patch).To(BeNil())
		g.Expect(step.Unavailable.Emit).To(BeTrue())
		g.Expect(step.RetryAfter).To(Equal(time.Minute), "the recycle delay")
		f.clock.Step(30 * time.Second)
		step, err = f.state.Decide("e", node("e"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(step.Unavailable.Emit).To(BeFalse(), "within the backoff period")
		g.Expect(step.RetryAfter).To(Equal(30 * time.Second))
	})

	t.Run("a suspended state parks the node at the decision", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, smallNet())
		g.Expect(f.state.Suspend()).To(BeTrue())
		step, err := f.state.Decide("a", node("a"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(step.Parked).To(BeTrue())
		g.Expect(f.state.BeforeRead("a")).To(Equal(ReadNothing))
	})
}
