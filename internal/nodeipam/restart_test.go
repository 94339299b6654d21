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
	"maps"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/nodeipam/blockstore"
	"podnetwork.io/operator/internal/slimnode"
)

// TestRestartAfterStaleStatus is the deterministic case of issue #31: a
// block listed in status.quarantine is handed out again once its delay has
// passed, its node is deleted, and the leader is killed before the next
// status write (the status interval is 20 s). The new leader reads a status
// that still lists the block as freed before it was reused; the record has
// it, no node holds it. It must wait a full delay from the second deletion,
// not from the stale freedAt.
func TestRestartAfterStaleStatus(t *testing.T) {
	g := NewWithT(t)
	// Four /30 blocks in one chunk, a delay of 8 s, Wait.
	pn := podNetwork().rng("q", "10.253.0.0/28", v1alpha1.RangePhaseActive, mask(30)).
		policy(8, v1alpha1.WhenExhaustedWait).obj()
	pn.ResourceVersion, pn.Generation = "1", 1
	f := openState(t, pn)
	for _, name := range []string{"n1", "n2", "n3", "n4"} {
		f.write(name)
	}
	f.clock.Step(21 * time.Second)

	// n1 goes at t1; the status written then lists its block X.
	t1 := f.clock.Now()
	x := f.state.Gone("n1")
	g.Expect(x).To(HaveLen(1))
	rep, _, _ := f.state.Report()
	g.Expect(rep.Quarantine).To(HaveLen(1))
	g.Expect(rep.Quarantine[0].CIDR).To(Equal(x[0].String()))
	g.Expect(rep.Quarantine[0].FreedAt.Time).To(Equal(t1))
	pn.Status.Quarantine = rep.Quarantine

	// B gets X once its delay has passed, and is deleted at T1; the leader
	// is killed a second later, before its next status write.
	f.clock.Step(8700 * time.Millisecond)
	g.Expect(f.write("b")).To(Equal(prefixStrings(x)))
	f.clock.Step(300 * time.Millisecond)
	deletedAt := f.clock.Now()
	g.Expect(f.state.Gone("b")).To(Equal(x))
	var held []*slimnode.Node
	for _, name := range []string{"n2", "n3", "n4"} {
		held = append(held, node(name, f.holdings()[name]...))
	}

	// A new leader rebuilds at T1+1.3 s from that status and the record.
	next := openStateAt(t, deletedAt.Add(1300*time.Millisecond), pn, EncodeRecord(f.state.RecordWant()), held...)
	a, err := next.state.Allocate(node("c"))
	var ue *UnavailableError
	g.Expect(errors.As(err, &ue)).To(BeTrue(), "C must not get X before T1+8s; got %v, %v", a.Blocks, err)
	g.Expect(ue.RetryIn).To(Equal(8*time.Second), "a full delay from the rebuild")
	g.Expect(next.sum.QuarantinedFromRecord).To(Equal(1), "X, moved from its stale freedAt to the rebuild")
	next.clock.SetTime(deletedAt.Add(8*time.Second - time.Millisecond))
	_, err = next.state.Allocate(node("c"))
	g.Expect(errors.As(err, &ue)).To(BeTrue(), "still within the delay since B's deletion; got %v", err)
	next.clock.SetTime(deletedAt.Add(9300 * time.Millisecond))
	g.Expect(next.allocate("c")).To(Equal(prefixStrings(x)))
}

// TestNoEarlyReuseAcrossRestarts is the promise of NodeIPAM's quarantine
// (docs/nodeipam.md, "The guarantee") as a property: no block is handed
// out before recycleDelaySeconds after the node holding it was deleted,
// whatever the restarts and the downtime. Each seed simulates, on a fake
// clock, what the controllers do with State and what the API keeps of it:
// nodes created (Allocate, the record written first when it must be, the
// node write) and deleted (Gone, at once or later, or while no operator
// runs), status.quarantine written at most once per status interval (the
// Report of that moment), the record written ahead of need and trimmed,
// and the operator killed at any of those points (its memory lost, the
// background record write and the unnoticed deletions with it), down for a
// while, then started again from what the API holds: nodes,
// status.quarantine and the record, through Rebuild exactly as
// controllers/nodeipam/rebuilder.go calls it. The simulation knows when each
// block was really freed (the deletion of its node) and fails at the first
// block handed out before that time plus the delay, with the seed and the
// last events. Another client also rewrites the record now and then with
// an older copy of it (an export re-applied, a restore) or an empty one;
// the running leader finds it before it hands out anything more and
// rebuilds in place without trusting it, as
// controllers/nodeipam/rebuilder.go's recover does (issue #31, point 4).
// Rerun one seed with -run 'TestNoEarlyReuseAcrossRestarts/seed=N$'.
func TestNoEarlyReuseAcrossRestarts(t *testing.T) {
	seeds, steps := 200, 1000
	if testing.Short() {
		seeds = 50
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Parallel()
			newRestartSim(t, seed).run(steps)
		})
	}
}

// restartSim is one simulated run: the API, the truth, and the operator
// (nil while none runs).
type restartSim struct {
	t     *testing.T
	seed  uint64
	rnd   *rand.Rand
	clock *clocktesting.FakeClock
	// spec is PodNetwork "default" without its status; delay and interval
	// are its recycle delay and the operator's status interval.
	spec     *v1alpha1.PodNetwork
	delay    time.Duration
	interval time.Duration

	// What the API holds: each node's podCIDR, status.quarantine and the
	// issued-block record.
	nodes  map[string]netip.Prefix
	status []v1alpha1.QuarantinedBlock
	record []byte
	// exports are copies of the record taken along the way, which another
	// client re-applies.
	exports [][]byte

	// freedAt is the truth: when the node last holding each block was
	// deleted.
	freedAt map[netip.Prefix]time.Time

	op     *simOperator
	serial int
	// events are the last things that happened, for the failure message.
	events []string
}

// simOperator is the memory of a running operator.
type simOperator struct {
	state *State
	// lastStatus and lastTrim are the last status write and record trim;
	// zero before the first, which is due at once.
	lastStatus time.Time
	lastTrim   time.Time
	// unnoticed are deleted nodes whose deletion it has not handled yet.
	unnoticed []string
	// ahead is set when an allocation asked for a background record write.
	ahead bool
}

// simRanges are the shapes a run uses: one chunk of 8 blocks, where freed
// blocks come back often, and 2 chunks of 64, where trimming and never-used
// blocks after a restart matter.
var simRanges = []struct {
	cidr string
	mask int32
}{
	{"10.253.0.0/27", 30},
	{"10.253.0.0/23", 30},
}

func newRestartSim(t *testing.T, seed uint64) *restartSim {
	rnd := rand.New(rand.NewPCG(seed, 0x5eed))
	delays := []int32{1, 3, 8, 30}
	intervals := []time.Duration{0, time.Second, 5 * time.Second, 20 * time.Second}
	shape := simRanges[rnd.IntN(len(simRanges))]
	delay := delays[rnd.IntN(len(delays))]
	spec := podNetwork().rng("pods", shape.cidr, v1alpha1.RangePhaseActive, mask(shape.mask)).
		policy(delay, v1alpha1.WhenExhaustedWait).obj()
	spec.ResourceVersion, spec.Generation = "1", 1
	// Start on a whole second plus a random fraction, so freedAt's rounding
	// up to the second falls anywhere.
	start := t0.Add(time.Duration(rnd.IntN(1000)) * time.Millisecond)
	return &restartSim{
		t: t, seed: seed, rnd: rnd, clock: clocktesting.NewFakeClock(start),
		spec: spec, delay: time.Duration(delay) * time.Second, interval: intervals[rnd.IntN(len(intervals))],
		nodes: map[string]netip.Prefix{}, freedAt: map[netip.Prefix]time.Time{},
	}
}

func (s *restartSim) run(steps int) {
	s.start()
	for range steps {
		s.clock.Step(s.pause())
		s.step()
	}
}

// pause is the time between two events: often a few milliseconds (so a
// reuse, a deletion, a kill and a restart fit within the second by which
// status.quarantine rounds freedAt up), mostly under a second, sometimes
// several delays, so that delays and status intervals end between events
// and during downtime.
func (s *restartSim) pause() time.Duration {
	switch r := s.rnd.IntN(10); {
	case r < 3:
		return time.Duration(s.rnd.IntN(50)) * time.Millisecond
	case r < 9:
		return time.Duration(s.rnd.IntN(900)) * time.Millisecond
	default:
		return time.Duration(s.rnd.IntN(int(4*s.delay/time.Millisecond))) * time.Millisecond
	}
}

func (s *restartSim) step() {
	if s.op == nil {
		// While no operator runs, nodes are deleted, and one starts sooner
		// or later.
		switch r := s.rnd.IntN(10); {
		case r < 3:
			s.deleteNode()
		case r < 6:
			s.start()
		}
		return
	}
	switch r := s.rnd.IntN(100); {
	case r < 35:
		s.createNode()
	case r < 60:
		s.deleteNode()
	case r < 70:
		s.notice()
	case r < 85:
		s.writeStatus()
	case r < 90:
		s.writeAhead()
	case r < 94:
		s.trim()
	case r < 96:
		s.rewrite()
	default:
		s.kill("killed")
	}
}

// logf records an event for the failure message.
func (s *restartSim) logf(format string, args ...any) {
	at := s.clock.Now().Sub(t0).Seconds()
	s.events = append(s.events, fmt.Sprintf("%9.3fs  %s", at, fmt.Sprintf(format, args...)))
	if len(s.events) > 40 {
		s.events = s.events[1:]
	}
}

// fatalf fails the run with the seed, the run's parameters and the last
// events.
func (s *restartSim) fatalf(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("seed %d (range %s, recycle delay %s, status interval %s): %s\nlast events (seconds after t0):\n%s",
		s.seed, s.spec.Spec.Ranges[0].CIDR, s.delay, s.interval, fmt.Sprintf(format, args...), strings.Join(s.events, "\n"))
}

// start is a leader's rebuild from what the API holds, as
// controllers/nodeipam/rebuilder.go does it: nodes, then the block store
// (status.quarantine only without one), which it claims before
// allocating.
func (s *restartSim) start() {
	now := s.clock.Now()
	pn := s.spec.DeepCopy()
	pn.Status.Quarantine = slices.Clone(s.status)
	b, err := NewRebuild(pn)
	if err != nil {
		s.fatalf("NewRebuild: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(s.nodes)) {
		if err := b.AddNode(name, types.UID("uid-"+name), []string{s.nodes[name].String()}); err != nil {
			s.fatalf("AddNode(%s): %v", name, err)
		}
	}
	if s.record == nil {
		b.RestoreQuarantine(pn, now) // no store yet: the status is all there is
	} else if err := b.ApplyStore(s.record, now); err != nil {
		s.fatalf("ApplyStore: %v", err)
	}
	s.record = s.claim(b, now)
	state := NewState(s.clock, NewBackoff(time.Minute, time.Minute, s.clock), v1alpha1.IPv4)
	state.Open(b)
	s.op = &simOperator{state: state}
	s.logf("operator started: status lists %s; record %s", statusString(s.status), recordString(s.record))
}

// rewrite is another client writing the record: an export taken earlier,
// or an empty one. The running leader finds it (recordStore's check or its
// next write) before it hands out anything more, suspends its state and
// rebuilds it in place from what the API holds, with every unheld block
// quarantined from now, then claims the record again.
func (s *restartSim) rewrite() {
	var old []byte
	if len(s.exports) > 0 && s.rnd.IntN(4) > 0 {
		old = s.exports[s.rnd.IntN(len(s.exports))]
	}
	s.record = old
	s.logf("record rewritten by another client: %s", recordString(old))
	if !s.op.state.Suspend() {
		s.fatalf("Suspend: the state was not open")
	}
	now := s.clock.Now()
	pn := s.spec.DeepCopy()
	pn.Status.Quarantine = slices.Clone(s.status)
	b, err := NewRebuild(pn)
	if err != nil {
		s.fatalf("NewRebuild: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(s.nodes)) {
		if err := b.AddNode(name, types.UID("uid-"+name), []string{s.nodes[name].String()}); err != nil {
			s.fatalf("AddNode(%s): %v", name, err)
		}
	}
	b.DistrustRecord(s.op.state.RecordKnown(), now)
	s.record = s.claim(b, now)
	s.op.state.Open(b)
	s.logf("operator recovered: record %s", recordString(s.record))
}

// claim encodes what a rebuild claims, which the API then holds.
func (s *restartSim) claim(b *Rebuild, now time.Time) []byte {
	w, err := b.ClaimRecord(now)
	if err != nil {
		s.fatalf("ClaimRecord: %v", err)
	}
	b.RecordClaimed()
	return w.Data
}

// kill throws the operator's memory away.
func (s *restartSim) kill(why string) {
	s.op = nil
	s.logf("operator %s", why)
}

// createNode creates a node and lets the operator allocate for it. The
// record is written before the node when the allocation says it must be;
// the node write lands, and the operator may die before it hears so.
func (s *restartSim) createNode() {
	s.serial++
	name := fmt.Sprint("n", s.serial)
	step, err := s.op.state.Decide(name, node(name))
	if err != nil {
		s.fatalf("Decide(%s): %v", name, err)
	}
	if step.Patch == nil {
		s.op.state.StopWaiting(name) // no block: the node is dropped, it holds nothing
		return
	}
	a := step.Patch
	if step.StoreFirst {
		s.writeRecord()
	}
	if !s.op.state.RecordCovers(a.Blocks) {
		s.fatalf("%s would be written to %s before the record covers it", a.Blocks, name)
	}
	s.op.ahead = s.op.ahead || step.StoreSoon
	now := s.clock.Now()
	for _, b := range a.Blocks {
		if at, ok := s.freedAt[b]; ok && now.Before(at.Add(s.delay)) {
			s.logf("%s gets %s", name, b)
			s.fatalf("early reuse: %s handed to %s at %.3fs, %s after its node was deleted at %.3fs; the recycle delay is %s",
				b, name, now.Sub(t0).Seconds(), now.Sub(at), at.Sub(t0).Seconds(), s.delay)
		}
		for other, p := range s.nodes {
			if p.Overlaps(b) {
				s.fatalf("%s handed to %s while %s holds %s", b, name, other, p)
			}
		}
		s.nodes[name] = b
	}
	s.logf("%s gets %s", name, a.Blocks[0])
	if s.rnd.IntN(20) == 0 {
		s.kill("killed after the node write landed, before its answer")
		return
	}
	s.op.state.Done(name, a, WriteStored)
}

// deleteNode deletes a node that has a podCIDR; a running operator handles
// the deletion at once or later.
func (s *restartSim) deleteNode() {
	if len(s.nodes) == 0 {
		return
	}
	names := slices.Sorted(maps.Keys(s.nodes))
	name := names[s.rnd.IntN(len(names))]
	b := s.nodes[name]
	delete(s.nodes, name)
	s.freedAt[b] = s.clock.Now()
	switch {
	case s.op == nil:
		s.logf("%s deleted (%s) while no operator runs", name, b)
	case s.rnd.IntN(3) == 0:
		s.op.unnoticed = append(s.op.unnoticed, name)
		s.logf("%s deleted (%s), not noticed yet", name, b)
	default:
		s.op.state.Gone(name)
		s.logf("%s deleted (%s)", name, b)
	}
}

// notice handles the deletions the operator has not handled yet.
func (s *restartSim) notice() {
	for _, name := range s.op.unnoticed {
		s.op.state.Gone(name)
		s.logf("%s's deletion noticed", name)
	}
	s.op.unnoticed = nil
}

// writeStatus writes status.quarantine when it changed, at most once per
// status interval, as NetworkReconciler.writeReport does.
func (s *restartSim) writeStatus() {
	now := s.clock.Now()
	if !s.op.lastStatus.IsZero() && now.Sub(s.op.lastStatus) < s.interval {
		return
	}
	rep, _, _ := s.op.state.Report()
	if equality.Semantic.DeepEqual(rep.Quarantine, s.status) {
		return
	}
	s.status = rep.Quarantine
	s.op.lastStatus = now
	s.logf("status written: %s", statusString(s.status))
}

// writeAhead is the background write of the record an allocation asked for.
func (s *restartSim) writeAhead() {
	if s.op.ahead {
		s.op.ahead = false
		s.writeRecord()
	}
}

// trim trims the record at most once per status interval and writes it.
func (s *restartSim) trim() {
	now := s.clock.Now()
	if !s.op.lastTrim.IsZero() && now.Sub(s.op.lastTrim) < s.interval {
		return
	}
	s.op.lastTrim = now
	if due, _ := s.op.state.TrimRecord(); due {
		s.writeRecord()
	}
}

// writeRecord stores the record State wants.
func (s *restartSim) writeRecord() {
	w, ok := s.op.state.BeginRecordWrite()
	if !ok {
		return
	}
	s.record = w.Data
	s.op.state.EndRecordWrite(w.Issued, RecordStored)
	s.logf("record written: %s", recordString(s.record))
	if len(s.exports) < 20 {
		s.exports = append(s.exports, s.record)
	} else {
		s.exports[s.rnd.IntN(len(s.exports))] = s.record
	}
}

func statusString(qs []v1alpha1.QuarantinedBlock) string {
	if len(qs) == 0 {
		return "nothing"
	}
	var parts []string
	for _, q := range qs {
		parts = append(parts, fmt.Sprintf("%s freed at %.0fs", q.CIDR, q.FreedAt.Sub(t0).Seconds()))
	}
	return strings.Join(parts, ", ")
}

func recordString(data []byte) string {
	if data == nil {
		return "none"
	}
	c, _, err := blockstore.Decode(data)
	if err != nil {
		return err.Error()
	}
	parts := []string{"issued"}
	for _, p := range c.Issued.Prefixes() {
		parts = append(parts, p.String())
	}
	for _, f := range c.Freed {
		parts = append(parts, fmt.Sprintf("freed %s-%s at %.0fs", f.Range.From(), f.Range.To(), f.At.Sub(t0).Seconds()))
	}
	return strings.Join(parts, " ")
}
