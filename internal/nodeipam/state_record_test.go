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
	"fmt"
	"net/netip"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"go4.org/netipx"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/nodeipam/blockstore"
	"podnetwork.io/operator/internal/slimnode"
)

// wideNet has one Active range of 256 /24 blocks, recorded in chunks of 64
// (/18), and a recycle delay of a minute.
func wideNet() *v1alpha1.PodNetwork {
	pn := podNetwork().rng("pods", "10.0.0.0/16", v1alpha1.RangePhaseActive, mask(24)).
		policy(60, v1alpha1.WhenExhaustedWait).obj()
	pn.ResourceVersion, pn.Generation = "1", 1
	return pn
}

// write allocates for a node and records the node write as stored.
func (f *stateFixture) write(name string) []string {
	f.t.Helper()
	blocks := f.allocate(name)
	f.state.Written(name, types.UID("uid-"+name), cidr.ParseObserved(blocks))
	return blocks
}

func TestRecordChunkReservation(t *testing.T) {
	g := NewWithT(t)
	f := openState(t, wideNet())
	writes := 0
	for i := range 130 {
		a, err := f.state.Allocate(node(fmt.Sprint(i)))
		g.Expect(err).NotTo(HaveOccurred())
		// Only the first block needs a write of the record before the
		// node's, which also records the next chunk; the first block of
		// each chunk asks for the chunk after it ahead of need, and the
		// other 63 ask for nothing.
		g.Expect(a.RecordPending).To(Equal(i == 0), "node %d, block %v", i, a.Blocks)
		g.Expect(a.RecordAhead).To(Equal(i%64 == 0), "node %d, block %v", i, a.Blocks)
		if content, ok := f.state.BeginRecordWrite(); ok {
			writes++
			f.state.EndRecordWrite(content.Issued, RecordStored)
		}
		g.Expect(f.state.RecordCovers(a.Blocks)).To(BeTrue())
		f.state.Written(fmt.Sprint(i), types.UID("uid-"+fmt.Sprint(i)), a.Blocks)
	}
	g.Expect(writes).To(Equal(3))
	g.Expect(setStrings(f.state.RecordWant())).To(Equal([]string{"10.0.0.0/16"}))
}

func TestRecordWrites(t *testing.T) {
	t.Run("a block that a write in progress drops waits for the next write", func(t *testing.T) {
		g := NewWithT(t)
		// Two chunks of 64 blocks, all handed out.
		pn := podNetwork().rng("pods", "10.0.0.0/17", v1alpha1.RangePhaseActive, mask(24)).policy(60, v1alpha1.WhenExhaustedWait).obj()
		pn.ResourceVersion = "1"
		f := openState(t, pn)
		for i := range 128 {
			f.write(fmt.Sprint(i))
		}
		for i := range 64 {
			f.state.Gone(fmt.Sprint(i))
		}
		f.clock.Step(time.Minute)
		due, _ := f.state.TrimRecord()
		g.Expect(due).To(BeTrue())
		g.Expect(setStrings(f.state.RecordWant())).To(Equal([]string{"10.0.64.0/18"}))
		content, ok := f.state.BeginRecordWrite()
		g.Expect(ok).To(BeTrue())

		// Meanwhile a node gets a block of the dropped chunk: the record
		// still holds it, but the write in progress takes it away.
		a, err := f.state.Allocate(node("b"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(prefixStrings(a.Blocks)).To(Equal([]string{"10.0.0.0/24"}))
		g.Expect(a.RecordPending).To(BeTrue())
		f.state.EndRecordWrite(content.Issued, RecordStored)
		g.Expect(f.state.RecordCovers(a.Blocks)).To(BeFalse())
		f.storeRecord()
		g.Expect(f.state.RecordCovers(a.Blocks)).To(BeTrue())
		g.Expect(setStrings(f.state.RecordWant())).To(Equal([]string{"10.0.0.0/17"}))
	})

	t.Run("after a write of unknown outcome only what both contents hold counts as stored", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, wideNet())
		f.write("0") // chunks 10.0.0.0/18 and, ahead, 10.0.64.0/18 stored
		for i := 1; i <= 64; i++ {
			// The 65th block starts 10.0.64.0/18 and asks for 10.0.128.0/18.
			_, err := f.state.Allocate(node(fmt.Sprint(i)))
			g.Expect(err).NotTo(HaveOccurred())
		}
		content, ok := f.state.BeginRecordWrite()
		g.Expect(ok).To(BeTrue())
		f.state.EndRecordWrite(content.Issued, RecordUnknown)
		g.Expect(f.state.RecordCovers(mps("10.0.64.0/24"))).To(BeTrue())
		g.Expect(f.state.RecordCovers(mps("10.0.128.0/24"))).To(BeFalse())
		// A re-read shows it was stored.
		f.state.RecordReread(content.Issued)
		g.Expect(f.state.RecordCovers(mps("10.0.128.0/24"))).To(BeTrue())
		_, ok = f.state.BeginRecordWrite()
		g.Expect(ok).To(BeFalse())
	})

	t.Run("a suspended leader allocates nothing and writes no record", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, wideNet())
		f.allocate("a")
		g.Expect(f.state.Suspend()).To(BeTrue())
		g.Expect(f.state.Suspend()).To(BeFalse(), "one rewrite, one recovery")
		g.Expect(f.state.IsOpen()).To(BeFalse())
		_, err := f.state.Allocate(node("b"))
		g.Expect(errors.Is(err, ErrRecordRewritten)).To(BeTrue(), "got %v", err)
		g.Expect(f.state.WaitingNodes()).To(ContainElement("b"), "retried when the state reopens")
		g.Expect(f.state.Park("c")).To(BeTrue())
		g.Expect(f.state.Gone("a")).To(HaveLen(1))
		f.clock.Step(time.Hour)
		due, _ := f.state.TrimRecord()
		g.Expect(due).To(BeFalse())
		_, ok := f.state.BeginRecordWrite()
		g.Expect(ok).To(BeFalse())
	})
}

func TestRebuildQuarantinesFromRecord(t *testing.T) {
	// Four /26 blocks, one chunk; the record has them all.
	recorded := map[string]string{RecordKeyIPv4: "10.0.0.0/24\n"}
	tests := []struct {
		name   string
		record map[string]string
		// listed is status.quarantine.
		listed []v1alpha1.QuarantinedBlock
		// want is the quarantine after the rebuild, node a holding .0.
		want          map[string]time.Time
		wantFromRec   int
		wantClaim     []string
		wantRecordErr bool
	}{
		{
			name:        "unheld recorded blocks are quarantined from the rebuild; listed ones in their delay keep their time",
			record:      recorded,
			listed:      []v1alpha1.QuarantinedBlock{{CIDR: "10.0.0.64/26", FreedAt: ptr.To(metav1.NewTime(t0.Add(-30 * time.Second)))}},
			want:        map[string]time.Time{"10.0.0.64/26": t0.Add(-30 * time.Second), "10.0.0.128/26": t0, "10.0.0.192/26": t0},
			wantFromRec: 2,
			wantClaim:   []string{"10.0.0.0/24"},
		},
		{
			// Issue #31: the listing may be stale; a node may have got the
			// block since its delay ended and been deleted before the next
			// status write.
			name:        "a recorded block listed with a delay that ended is quarantined from the rebuild",
			record:      recorded,
			listed:      []v1alpha1.QuarantinedBlock{{CIDR: "10.0.0.64/26", FreedAt: ptr.To(metav1.NewTime(t0.Add(-61 * time.Second)))}},
			want:        map[string]time.Time{"10.0.0.64/26": t0, "10.0.0.128/26": t0, "10.0.0.192/26": t0},
			wantFromRec: 3,
			wantClaim:   []string{"10.0.0.0/24"},
		},
		{
			// The writer remembered it freed after t0-60s (freedAt is rounded
			// up to the second), so no leader could hand it out before t0.
			name:        "a listing whose delay, less the second of rounding, ends at the rebuild keeps its time",
			record:      recorded,
			listed:      []v1alpha1.QuarantinedBlock{{CIDR: "10.0.0.64/26", FreedAt: ptr.To(metav1.NewTime(t0.Add(-59 * time.Second)))}},
			want:        map[string]time.Time{"10.0.0.64/26": t0.Add(-59 * time.Second), "10.0.0.128/26": t0, "10.0.0.192/26": t0},
			wantFromRec: 2,
			wantClaim:   []string{"10.0.0.0/24"},
		},
		{
			// Remembered freed as early as t0-61s: a leader may have handed
			// it out at t0-1s.
			name:        "a listing one second older is quarantined from the rebuild",
			record:      recorded,
			listed:      []v1alpha1.QuarantinedBlock{{CIDR: "10.0.0.64/26", FreedAt: ptr.To(metav1.NewTime(t0.Add(-60 * time.Second)))}},
			want:        map[string]time.Time{"10.0.0.64/26": t0, "10.0.0.128/26": t0, "10.0.0.192/26": t0},
			wantFromRec: 3,
			wantClaim:   []string{"10.0.0.0/24"},
		},
		{
			// The record is written before a block outside it goes to a node:
			// nobody got this one since the record dropped it, free past its
			// delay; its time only ordered reuse.
			name:        "a listed block the record does not have is free past its delay",
			record:      map[string]string{RecordKeyIPv4: "10.0.0.0/25\n"},
			listed:      []v1alpha1.QuarantinedBlock{{CIDR: "10.0.0.128/26", FreedAt: ptr.To(metav1.NewTime(t0.Add(-2 * time.Hour)))}},
			want:        map[string]time.Time{"10.0.0.64/26": t0},
			wantFromRec: 1,
			wantClaim:   []string{"10.0.0.0/25"},
		},
		{
			name:      "first start without a record: nothing is known, the claim covers what nodes hold",
			record:    nil,
			want:      map[string]time.Time{},
			wantClaim: []string{"10.0.0.0/24"},
		},
		{
			name:          "a record that does not parse covers every range",
			record:        map[string]string{RecordKeyIPv4: "garbage\n"},
			want:          map[string]time.Time{"10.0.0.64/26": t0, "10.0.0.128/26": t0, "10.0.0.192/26": t0},
			wantFromRec:   3,
			wantClaim:     []string{"10.0.0.0/24"},
			wantRecordErr: true,
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
			err = r.ApplyLegacyRecord(tt.record, pn, t0)
			g.Expect(errors.Is(err, ErrRecordCorrupt)).To(Equal(tt.wantRecordErr), "got %v", err)
			g.Expect(setStrings(claimed(t, r))).To(Equal(tt.wantClaim))
			r.RecordClaimed()
			clk := clocktesting.NewFakeClock(t0)
			s := NewState(clk, NewBackoff(time.Minute, time.Minute, clk), v1alpha1.IPv4)
			sum := s.Open(r)
			g.Expect(sum.QuarantinedFromRecord).To(Equal(tt.wantFromRec))
			got := map[string]time.Time{}
			for _, e := range s.Quarantine() {
				got[e.Prefix.String()] = e.FreedAt
			}
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

// TestRecordAcrossRestart is the restart the record is for: a node is
// deleted and the leader dies before status.quarantine lists its block.
func TestRecordAcrossRestart(t *testing.T) {
	g := NewWithT(t)
	pn := smallNet()
	f := openState(t, pn)
	f.write("a")
	freed := f.write("b")
	g.Expect(f.state.Gone("b")).To(HaveLen(1))

	next := openStateWithRecord(t, pn, EncodeRecord(f.state.RecordWant()), node("a", "10.0.0.0/26"))
	_, err := next.state.Allocate(node("c"))
	var ue *UnavailableError
	g.Expect(errors.As(err, &ue)).To(BeTrue(), "got %v", err)
	g.Expect(ue.RetryIn).To(Equal(time.Minute), "a full delay from the rebuild")
	next.clock.Step(time.Minute)
	g.Expect(next.allocate("c")).To(Equal(freed), "reused lowest first once the delay passed")
}

func TestRecordTrimmedOnceFree(t *testing.T) {
	g := NewWithT(t)
	f := openState(t, wideNet())
	for i := range 65 {
		f.write(fmt.Sprint(i))
	}
	g.Expect(setStrings(f.state.RecordWant())).To(Equal([]string{"10.0.0.0/17", "10.0.128.0/18"}))
	// The node of the second chunk goes: its chunk stays while the block is
	// quarantined, and also after (it has the next never-used block), and so
	// does the chunk after it, recorded ahead of need.
	g.Expect(f.state.Gone("64")).To(Equal(mps("10.0.64.0/24")))
	due, _ := f.state.TrimRecord()
	g.Expect(due).To(BeFalse())
	f.clock.Step(time.Minute)
	due, _ = f.state.TrimRecord()
	g.Expect(due).To(BeFalse())
	g.Expect(setStrings(f.state.RecordWant())).To(Equal([]string{"10.0.0.0/17", "10.0.128.0/18"}))

	// Every node of the first chunk goes: the next trim drops them from the
	// issued set at once, and the same write stores them freed with their
	// time, so after a fail-over they wait only what is left of their
	// delay.
	for i := range 64 {
		f.state.Gone(fmt.Sprint(i))
	}
	due, _ = f.state.TrimRecord()
	g.Expect(due).To(BeTrue())
	g.Expect(setStrings(f.state.RecordWant())).To(Equal([]string{"10.0.64.0/18", "10.0.128.0/18"}),
		"the chunk with the next never-used block stays, and the one after it")
	w, ok := f.state.BeginRecordWrite()
	g.Expect(ok).To(BeTrue())
	c, _, err := blockstore.Decode(w.Data)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Freed).To(HaveLen(1), "one run of 64 blocks freed at the same time")
	p, whole := c.Freed[0].Range.Prefix()
	g.Expect(whole).To(BeTrue())
	g.Expect(p).To(Equal(mp("10.0.0.0/18")))
}

func TestRecordRangeAddedAgain(t *testing.T) {
	g := NewWithT(t)
	pn := smallNet()
	f := openState(t, pn)
	f.write("a")
	g.Expect(f.state.Gone("a")).To(HaveLen(1))
	f.clock.Step(10 * time.Second)

	// The range is released and forgotten, then added again with another
	// nodeMaskSize before its blocks' delay ended.
	gone := podNetwork().policy(60, v1alpha1.WhenExhaustedWait).obj()
	gone.ResourceVersion = "2"
	_, err := f.state.Sync(gone)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(f.quarantined()).To(BeEmpty())
	f.clock.Step(10 * time.Second)
	back := podNetwork().rng("pods", "10.0.0.0/24", v1alpha1.RangePhaseActive, mask(25)).policy(60, v1alpha1.WhenExhaustedWait).obj()
	back.ResourceVersion = "3"
	_, err = f.state.Sync(back)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(f.quarantined()).To(Equal([]string{"10.0.0.0/25", "10.0.0.128/25"}))
	_, err = f.state.Allocate(node("b"))
	var ue *UnavailableError
	g.Expect(errors.As(err, &ue)).To(BeTrue(), "got %v", err)
	g.Expect(ue.RetryIn).To(Equal(time.Minute))
}

// TestNoEarlyReuseAfterManyFrees deletes more nodes than status.quarantine
// lists (4096) within one delay; no block comes back early, neither in the
// running leader nor after a restart that reads status.quarantine and the
// record.
func TestNoEarlyReuseAfterManyFrees(t *testing.T) {
	g := NewWithT(t)
	const n = MaxStatusQuarantine + 100
	pn := podNetwork().rng("pods", "10.0.0.0/11", v1alpha1.RangePhaseActive, mask(24)). // 8192 blocks
												policy(60, v1alpha1.WhenExhaustedWait).obj()
	pn.ResourceVersion = "1"
	// Blocks n and above are held by nodes listed at the rebuild.
	var listed []*slimnode.Node
	first := netip.AddrFrom4([4]byte{10, byte(n >> 8), byte(n & 0xff), 0})
	for i, p := range netipx.IPRangeFrom(first, mp("10.31.255.255/32").Addr()).Prefixes() {
		listed = append(listed, node(fmt.Sprint("filler", i), p.String()))
	}
	f := openState(t, pn, listed...)
	freed := map[string]bool{}
	for i := range n {
		blocks := f.write(fmt.Sprint(i))
		freed[blocks[0]] = true
	}
	g.Expect(freed).To(HaveLen(n))
	for i := range n {
		f.clock.Step(time.Millisecond)
		g.Expect(f.state.Gone(fmt.Sprint(i))).To(HaveLen(1))
	}
	rep, _, _ := f.state.Report()
	g.Expect(rep.Quarantine).To(HaveLen(MaxStatusQuarantine))
	expectNothingFree := func(f *stateFixture) {
		_, err := f.state.Allocate(node("new"))
		var ue *UnavailableError
		g.ExpectWithOffset(1, errors.As(err, &ue)).To(BeTrue(), "got %v", err)
	}
	expectNothingFree(f)

	// A restart reads status.quarantine (the newest 4096) and the record.
	pn.Status.Quarantine = rep.Quarantine
	f2 := openStateWithRecord(t, pn, EncodeRecord(f.state.RecordWant()), listed...)
	g.Expect(f2.state.Quarantine()).To(HaveLen(n))
	expectNothingFree(f2)
	f2.clock.Step(59 * time.Second)
	expectNothingFree(f2)
}
