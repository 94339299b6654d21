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

package lifecycle

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/statusedit"
)

// The property test drives Compute with random sequences of spec edits,
// consumer acknowledgements (correct, stale and garbage), consumer
// registrations and deletions, node churn (NodeIPAM only allocates from Active
// ranges), PodNetwork deletion and hand edits of the status (phases and
// cidrs rewritten, entries added and removed, reported as statusedit.Find
// would, except a removal, which leaves no trace), and checks after every
// call that:
//
//   - every phase change is announced by its event, in an order that replays
//     the previous status into the new one;
//   - a range becomes Active only when every required consumer acked Pending
//     (name, cidr and phase) and it overlaps no ServiceCIDR or node address;
//   - a Draining range is Released only when every required consumer acked
//     Draining and every node block overlapping it lies in another range that
//     is Active;
//   - a range is purged only when every required consumer acked Released;
//   - a range whose phase, cidr or nodeMaskSize another client set, or that
//     another client added, gets a StatusEdited event and is then Pending
//     (in the spec) or Draining (not in the spec), and a range whose cidr is
//     not canonical or was changed out of the spec is never released;
//   - Active ranges are in the spec and never conflict with each other;
//   - the finalizer is removable only once nothing is tracked.

var (
	propNames = []string{"a", "b", "c", "d", "e"}
	propCIDRs = []string{
		"10.0.0.0/16", "10.1.0.0/16", "10.0.0.0/8", "10.0.128.0/17", "10.96.0.0/16",
		"10.2.0.0/16", "fd00::/48", "fd00:0:0:8000::/49", "10.0.0.0/15",
	}
)

type propConsumer struct {
	name     string
	present  bool
	required bool
	deleting bool
	acks     map[string]v1alpha1.ConsumerRangeStatus
}

type propWorld struct {
	rng       *rand.Rand
	now       time.Time
	spec      []v1alpha1.PodCIDRRange
	status    v1alpha1.PodNetworkStatus
	consumers []*propConsumer
	nodes     map[string]netip.Prefix
	addrNodes map[string]netip.Addr
	svcs      []ServiceCIDR
	deleting  bool
	nextNode  int
	// edits are the hand edits of status the next input reports.
	edits []statusedit.Edit
}

func TestInvariantsUnderRandomSequences(t *testing.T) {
	seeds, steps := 400, 150
	if testing.Short() {
		seeds = 50
	}
	stats := map[string]int{}
	for seed := range seeds {
		w := &propWorld{
			rng:       rand.New(rand.NewPCG(uint64(seed), 0x5eed)),
			now:       t0,
			nodes:     map[string]netip.Prefix{},
			addrNodes: map[string]netip.Addr{},
		}
		order := rand.New(rand.NewPCG(uint64(seed), 0x0de5))
		for _, n := range []string{"x", "y", "z"} {
			w.consumers = append(w.consumers, &propConsumer{name: n, present: true, required: n != "z", acks: map[string]v1alpha1.ConsumerRangeStatus{}})
		}
		for step := range steps {
			w.mutate()
			in := w.input()
			out := Compute(in)
			w.edits = nil // the lifecycle took the fields back
			if err := checkInvariants(in, out); err != nil {
				t.Fatalf("seed %d step %d: %v\ninput: %+v\noutput ranges: %+v\nevents: %+v", seed, step, err, in, out.Ranges, out.Events)
			}
			// The informer's store lists nodes in no order: the output
			// must not depend on it.
			shuffled := in
			shuffled.Nodes = slices.Clone(in.Nodes)
			order.Shuffle(len(shuffled.Nodes), func(i, j int) { shuffled.Nodes[i], shuffled.Nodes[j] = shuffled.Nodes[j], shuffled.Nodes[i] })
			if got := Compute(shuffled); !reflect.DeepEqual(got, out) {
				t.Fatalf("seed %d step %d: the output depends on the order of the nodes\nsorted:   %+v\nshuffled: %+v", seed, step, out, got)
			}
			for _, e := range out.Events {
				stats[e.Reason]++
			}
			out.ApplyTo(&w.status)
			// Run again on the status just written, as the next reconcile
			// does: nothing moves, nothing is announced again.
			next := in
			next.Status, next.Edits = w.status, nil
			if again := Compute(next); len(again.Transitions) > 0 || len(again.Events) > 0 {
				t.Fatalf("seed %d step %d: Compute on its own output made transitions %+v and events %+v", seed, step, again.Transitions, again.Events)
			}
		}
	}
	t.Logf("events seen: %v", stats)
	// The random walk must actually exercise every transition.
	for _, r := range []string{EventRangePending, EventRangeActivated, EventRangeDraining, EventRangeReactivated,
		EventRangeReleased, EventRangePurged, EventRangeInvalid, EventConsumerRejected, EventConsumerRemoved, EventStatusEdited} {
		if stats[r] == 0 {
			t.Errorf("no %s event in the random walk", r)
		}
	}
}

func (w *propWorld) chance(p float64) bool { return w.rng.Float64() < p }

func (w *propWorld) mutate() {
	w.now = w.now.Add(time.Duration(w.rng.IntN(120)) * time.Second)
	switch n := w.rng.IntN(100); {
	case n < 15:
		w.editSpec()
	case n < 65:
		w.ackSome()
	case n < 72:
		w.churnConsumers()
	case n < 90:
		w.churnNodes()
	case n < 95:
		w.churnServiceCIDRs()
	case n < 96:
		if w.chance(0.3) {
			w.deleting = true
		}
	case n < 98:
		w.handEdit()
	default:
		w.garbageAck()
	}
}

// handEdit changes the status as another client might (kubectl edit
// --subresource=status), and records what it set as the edit
// statusedit.Find would report in the next input.
func (w *propWorld) handEdit() {
	// The CRD refuses an unknown phase; Compute must cope with one anyway.
	phases := []v1alpha1.RangePhase{pending, active, draining, released, "Bogus"}
	edit := statusedit.Edit{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, Ranges: map[string][]string{}}
	n := len(w.status.Ranges)
	switch k := w.rng.IntN(5); {
	case k == 0 && n > 0: // rewrite a phase
		r := &w.status.Ranges[w.rng.IntN(n)]
		r.Phase = phases[w.rng.IntN(len(phases))]
		edit.Ranges[r.Name] = []string{"phase"}
	case k == 1 && n > 0: // rewrite a cidr, into another prefix or garbage
		r := &w.status.Ranges[w.rng.IntN(n)]
		r.CIDR = append(slicesClone(propCIDRs), "garbage", "10.0.0.1/16", "FD00::/48")[w.rng.IntN(len(propCIDRs)+3)]
		edit.Ranges[r.Name] = []string{"cidr"}
	case k == 2 && n > 0: // remove an entry: no trace
		i := w.rng.IntN(n)
		w.status.Ranges = append(w.status.Ranges[:i], w.status.Ranges[i+1:]...)
	case k == 3: // add an entry
		name := propNames[w.rng.IntN(len(propNames))]
		if w.status.FindRange(name) != nil {
			return
		}
		c := propCIDRs[w.rng.IntN(len(propCIDRs))]
		w.status.Ranges = append(w.status.Ranges, v1alpha1.RangeStatus{Name: name, CIDR: c, NodeMaskSize: v1alpha1.DefaultNodeMaskSize(netip.MustParsePrefix(c)),
			Phase: phases[w.rng.IntN(len(phases))], PhaseSince: ptr.To(metav1.NewTime(w.now))})
		edit.Ranges[name] = []string{".", "cidr", "name", "nodeMaskSize", "phase", "phaseSince"}
	case k == 4 && n > 0: // a phaseSince in the future
		r := &w.status.Ranges[w.rng.IntN(n)]
		r.PhaseSince = ptr.To(metav1.NewTime(w.now.Add(24 * time.Hour)))
		edit.Ranges[r.Name] = []string{"phaseSince"}
	}
	if len(edit.Ranges) > 0 {
		w.edits = append(w.edits, edit)
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func (w *propWorld) editSpec() {
	switch w.rng.IntN(3) {
	case 0: // add
		name := propNames[w.rng.IntN(len(propNames))]
		for _, r := range w.spec {
			if r.Name == name {
				return
			}
		}
		r := v1alpha1.PodCIDRRange{Name: name, CIDR: propCIDRs[w.rng.IntN(len(propCIDRs))]}
		if w.chance(0.15) {
			r.NodeMaskSize = 26
			if strings.Contains(r.CIDR, ":") {
				r.NodeMaskSize = 66
			}
		}
		w.spec = append(w.spec, r)
	case 1: // remove
		if len(w.spec) > 0 {
			i := w.rng.IntN(len(w.spec))
			w.spec = append(w.spec[:i], w.spec[i+1:]...)
		}
	case 2: // replace the cidr under an existing name (remove + re-add)
		if len(w.spec) > 0 {
			w.spec[w.rng.IntN(len(w.spec))].CIDR = propCIDRs[w.rng.IntN(len(propCIDRs))]
		}
	}
}

// ackSome makes a consumer behave: it acknowledges the current phase of some
// ranges, like a real consumer after applying them.
func (w *propWorld) ackSome() {
	c := w.consumers[w.rng.IntN(len(w.consumers))]
	if !c.present {
		return
	}
	pn := &v1alpha1.PodNetwork{Status: w.status}
	for _, rs := range v1alpha1.RangesToAcknowledge(pn) {
		if !w.chance(0.6) {
			continue
		}
		result, msg := v1alpha1.AckAccepted, ""
		if w.chance(0.08) {
			result, msg = v1alpha1.AckRejected, "cannot apply"
		}
		c.acks[rs.Name] = v1alpha1.AckFor(rs, result, msg, metav1.NewTime(w.now))
	}
}

// garbageAck writes an acknowledgement that matches nothing in particular.
func (w *propWorld) garbageAck() {
	c := w.consumers[w.rng.IntN(len(w.consumers))]
	phases := []v1alpha1.RangePhase{pending, active, draining, released}
	name := propNames[w.rng.IntN(len(propNames))]
	c.acks[name] = v1alpha1.ConsumerRangeStatus{
		Name: name, CIDR: propCIDRs[w.rng.IntN(len(propCIDRs))], Phase: phases[w.rng.IntN(len(phases))], Result: v1alpha1.AckAccepted,
	}
}

func (w *propWorld) churnConsumers() {
	c := w.consumers[w.rng.IntN(len(w.consumers))]
	switch w.rng.IntN(4) {
	case 0:
		if c.present && !c.deleting {
			c.deleting = true
		} else if c.deleting {
			c.present, c.deleting, c.acks = false, false, map[string]v1alpha1.ConsumerRangeStatus{}
		}
	case 1:
		if !c.present {
			c.present = true
		}
	case 2:
		c.required = !c.required
	case 3:
		// A consumer that lost its status (recreated) starts over.
		c.acks = map[string]v1alpha1.ConsumerRangeStatus{}
	}
}

func (w *propWorld) churnNodes() {
	if w.chance(0.45) && len(w.nodes) > 0 {
		names := sortedKeys(w.nodes)
		delete(w.nodes, names[w.rng.IntN(len(names))])
		return
	}
	if w.chance(0.05) {
		w.nextNode++
		w.nodes[fmt.Sprintf("foreign-%d", w.nextNode)] = netip.MustParsePrefix("192.168.7.0/24")
		return
	}
	if w.chance(0.05) {
		w.nextNode++
		w.addrNodes[fmt.Sprintf("addr-%d", w.nextNode)] = netip.MustParseAddr("10.2.0.5")
		return
	}
	if w.chance(0.05) && len(w.addrNodes) > 0 {
		delete(w.addrNodes, sortedKeys(w.addrNodes)[0])
		return
	}
	// NodeIPAM allocates only from Active ranges.
	var actives []v1alpha1.RangeStatus
	for _, r := range w.status.Ranges {
		if r.Phase == active {
			actives = append(actives, r)
		}
	}
	if len(actives) == 0 {
		return
	}
	r := actives[w.rng.IntN(len(actives))]
	block := nthBlock(netip.MustParsePrefix(r.CIDR), int(r.NodeMaskSize), uint64(w.rng.IntN(4)))
	for _, p := range w.nodes {
		if p.Overlaps(block) {
			return
		}
	}
	w.nextNode++
	w.nodes[fmt.Sprintf("node-%d", w.nextNode)] = block
}

func (w *propWorld) churnServiceCIDRs() {
	switch w.rng.IntN(3) {
	case 0:
		w.svcs = []ServiceCIDR{svc("kubernetes", "10.96.0.0/12", false)}
	case 1:
		w.svcs = []ServiceCIDR{svc("kubernetes", "10.96.0.0/12", true)}
	case 2:
		w.svcs = nil
	}
}

func (w *propWorld) input() Input {
	in := Input{
		Now:          w.now,
		Generation:   1,
		Deleting:     w.deleting,
		Spec:         append([]v1alpha1.PodCIDRRange(nil), w.spec...),
		Status:       *w.status.DeepCopy(),
		ServiceCIDRs: w.svcs,
		Edits:        w.edits,
	}
	for _, c := range w.consumers {
		if !c.present {
			continue
		}
		cons := Consumer{Name: c.name, Required: c.required, Deleting: c.deleting}
		for _, name := range sortedKeys(c.acks) {
			cons.Acks = append(cons.Acks, c.acks[name])
		}
		in.Consumers = append(in.Consumers, cons)
	}
	for _, name := range sortedKeys(w.nodes) {
		in.Nodes = append(in.Nodes, Node{Name: name, PodCIDRs: []netip.Prefix{w.nodes[name]}})
	}
	for _, name := range sortedKeys(w.addrNodes) {
		in.Nodes = append(in.Nodes, Node{Name: name, Addresses: []netip.Addr{w.addrNodes[name]}})
	}
	return in
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// nthBlock returns block idx of size nms inside p.
func nthBlock(p netip.Prefix, nms int, idx uint64) netip.Prefix {
	b := p.Addr().As16()
	total := 128
	if p.Addr().Is4() {
		total = 32
	}
	n := new(big.Int).SetBytes(b[:])
	n.Add(n, new(big.Int).Lsh(new(big.Int).SetUint64(idx), uint(total-nms)))
	n.FillBytes(b[:])
	addr := netip.AddrFrom16(b)
	if p.Addr().Is4() {
		addr = addr.Unmap()
	}
	return netip.PrefixFrom(addr, nms)
}

func TestNthBlock(t *testing.T) {
	for _, tc := range []struct {
		p    string
		nms  int
		idx  uint64
		want string
	}{
		{"10.0.0.0/16", 24, 0, "10.0.0.0/24"},
		{"10.0.0.0/16", 24, 3, "10.0.3.0/24"},
		{"10.0.0.0/8", 26, 5, "10.0.1.64/26"},
		{"fd00::/48", 64, 2, "fd00:0:0:2::/64"},
		{"fd00::/48", 66, 5, "fd00:0:0:1:4000::/66"},
	} {
		if got := nthBlock(netip.MustParsePrefix(tc.p), tc.nms, tc.idx).String(); got != tc.want {
			t.Errorf("nthBlock(%s, %d, %d) = %s, want %s", tc.p, tc.nms, tc.idx, got, tc.want)
		}
	}
}

type tracking struct {
	cidr  string
	nms   int32
	phase v1alpha1.RangePhase
}

func checkInvariants(in Input, out Output) error {
	required := map[string]Consumer{}
	for _, c := range in.Consumers {
		if c.Required && !c.Deleting {
			required[c.Name] = c
		}
	}
	allAcked := func(name, cidr string, phase v1alpha1.RangePhase) error {
		rs := &v1alpha1.RangeStatus{Name: name, CIDR: cidr, Phase: phase}
		for _, c := range required {
			if acked, _, _ := v1alpha1.AckState(c.Acks, rs); !acked {
				return fmt.Errorf("required consumer %q has not acked %s %s %s", c.Name, name, cidr, phase)
			}
		}
		return nil
	}
	inSpec := func(name, cidr string, nms int32) bool {
		if in.Deleting {
			return false
		}
		for i := range in.Spec {
			r := &in.Spec[i]
			if r.Name == name && r.CIDR == cidr && r.EffectiveNodeMaskSize() == nms {
				return true
			}
		}
		return false
	}
	outActive := map[string]netip.Prefix{}
	for _, r := range out.Ranges {
		if r.Phase == active {
			outActive[r.Name] = netip.MustParsePrefix(r.CIDR)
		}
	}

	// Every range whose status another client set where it matters gets a
	// StatusEdited event, as does one with an unknown phase.
	repaired := map[string]bool{}
	for _, e := range out.Events {
		if e.Reason == EventStatusEdited && e.Range != "" {
			repaired[e.Range] = true
		}
	}
	edited := statusedit.ByRange(in.Edits)
	for name, re := range edited {
		if (re.Phase || re.Identity || re.Added) && in.Status.FindRange(name) != nil && !repaired[name] {
			return fmt.Errorf("range %q was edited (%v) but not repaired", name, re.Fields)
		}
	}

	// Each transition is announced by exactly one event, in the same order
	// (a repair by its StatusEdited event instead).
	var announced []string
	for _, e := range out.Events {
		if transitionEvents[e.Reason] {
			announced = append(announced, e.Range)
		}
	}
	var made []string
	for _, tr := range out.Transitions {
		if !tr.Repair {
			made = append(made, tr.Range)
		}
	}
	if !slices.Equal(announced, made) {
		return fmt.Errorf("transitions of %v announced by events about %v", made, announced)
	}

	// Replay the events over the previous status.
	phases := map[string]tracking{}
	for _, r := range in.Status.Ranges {
		phases[r.Name] = tracking{r.CIDR, r.NodeMaskSize, r.Phase}
	}
	for _, e := range out.Events {
		cur, tracked := phases[e.Range]
		move := func(from ...v1alpha1.RangePhase) error {
			if !tracked {
				return fmt.Errorf("%s for untracked range %q", e.Reason, e.Range)
			}
			for _, f := range from {
				if cur.phase == f {
					return nil
				}
			}
			return fmt.Errorf("%s for range %q in phase %s", e.Reason, e.Range, cur.phase)
		}
		switch e.Reason {
		case EventStatusEdited:
			if e.Range == "" {
				continue
			}
			if !tracked {
				return fmt.Errorf("StatusEdited for untracked range %q", e.Range)
			}
			// Pending with the spec's cidr and nodeMaskSize, or Draining.
			cur.cidr, cur.phase = e.CIDR, draining
			for i := range in.Spec {
				if r := &in.Spec[i]; !in.Deleting && r.Name == e.Range && r.CIDR == e.CIDR {
					cur.nms, cur.phase = r.EffectiveNodeMaskSize(), pending
				}
			}
		case EventRangePending:
			if tracked {
				return fmt.Errorf("RangePending for tracked range %q", e.Range)
			}
			var nms int32
			for i := range in.Spec {
				if in.Spec[i].Name == e.Range {
					nms = in.Spec[i].EffectiveNodeMaskSize()
				}
			}
			if !inSpec(e.Range, e.CIDR, nms) {
				return fmt.Errorf("range %q %s tracked but not in spec", e.Range, e.CIDR)
			}
			phases[e.Range] = tracking{e.CIDR, nms, pending}
			continue
		case EventRangeActivated:
			if err := move(pending); err != nil {
				return err
			}
			if err := allAcked(e.Range, cur.cidr, pending); err != nil {
				return fmt.Errorf("activated too early: %w", err)
			}
			if !inSpec(e.Range, cur.cidr, cur.nms) {
				return fmt.Errorf("activated %q, which is not in spec", e.Range)
			}
			p := netip.MustParsePrefix(cur.cidr)
			for _, s := range in.ServiceCIDRs {
				for _, sp := range s.CIDRs {
					if sp.Overlaps(p) {
						return fmt.Errorf("activated %q overlapping ServiceCIDR %s", e.Range, sp)
					}
				}
			}
			for _, n := range in.Nodes {
				for _, a := range n.Addresses {
					if p.Contains(a) {
						return fmt.Errorf("activated %q containing node address %s", e.Range, a)
					}
				}
			}
			cur.phase = active
		case EventRangeDraining:
			if err := move(active); err != nil {
				return err
			}
			if inSpec(e.Range, cur.cidr, cur.nms) {
				return fmt.Errorf("drained %q, which is in spec", e.Range)
			}
			cur.phase = draining
		case EventRangeReactivated:
			if err := move(draining); err != nil {
				return err
			}
			if !inSpec(e.Range, cur.cidr, cur.nms) {
				return fmt.Errorf("reactivated %q, which is not in spec", e.Range)
			}
			cur.phase = active
		case EventRangeReleased:
			if err := move(pending, draining); err != nil {
				return err
			}
			if cur.phase == draining {
				if err := allAcked(e.Range, cur.cidr, draining); err != nil {
					return fmt.Errorf("released too early: %w", err)
				}
				p, err := cidr.ParseCanonical(cur.cidr)
				if err != nil {
					return fmt.Errorf("released %q, whose cidr %q is not canonical", e.Range, cur.cidr)
				}
				if prev := in.Status.FindRange(e.Range); prev != nil && prev.InvalidReason == v1alpha1.RangeInvalidStatusEdited ||
					edited[e.Range].Identity && !edited[e.Range].Added && !inSpec(e.Range, cur.cidr, cur.nms) {
					return fmt.Errorf("released %q, whose cidr was edited while it was not in the spec", e.Range)
				}
				for _, n := range in.Nodes {
					for _, b := range n.PodCIDRs {
						if !b.Overlaps(p) {
							continue
						}
						covered := false
						for name, a := range outActive {
							if name != e.Range && a.Bits() <= b.Bits() && a.Contains(b.Addr()) {
								covered = true
							}
						}
						if !covered {
							return fmt.Errorf("released %q while node %q holds %s", e.Range, n.Name, b)
						}
					}
				}
			} else if inSpec(e.Range, cur.cidr, cur.nms) {
				return fmt.Errorf("released Pending %q, which is in spec", e.Range)
			}
			cur.phase = released
		case EventRangePurged:
			if err := move(released); err != nil {
				return err
			}
			if err := allAcked(e.Range, cur.cidr, released); err != nil {
				return fmt.Errorf("purged too early: %w", err)
			}
			delete(phases, e.Range)
			continue
		default:
			continue
		}
		phases[e.Range] = cur
	}
	if len(phases) != len(out.Ranges) {
		return fmt.Errorf("events replay to %d ranges, output has %d", len(phases), len(out.Ranges))
	}
	for _, r := range out.Ranges {
		if got := phases[r.Name]; got.phase != r.Phase || got.cidr != r.CIDR {
			return fmt.Errorf("range %q: events replay to %s %s, output has %s %s", r.Name, got.cidr, got.phase, r.CIDR, r.Phase)
		}
	}

	// Static properties of the output.
	if len(out.Ranges) > v1alpha1.MaxStatusRanges {
		return fmt.Errorf("%d ranges tracked", len(out.Ranges))
	}
	for i, a := range out.Ranges {
		if a.Phase == active && !inSpec(a.Name, a.CIDR, a.NodeMaskSize) {
			return fmt.Errorf("Active range %q is not in spec", a.Name)
		}
		if !v1alpha1.NeedsAck(&out.Ranges[i]) && len(a.Awaiting) > 0 {
			return fmt.Errorf("invalid range %q awaits consumers", a.Name)
		}
		for _, c := range a.Awaiting {
			if _, ok := required[c]; !ok {
				return fmt.Errorf("range %q awaits %q, which is not a required consumer", a.Name, c)
			}
		}
		for _, b := range out.Ranges[i+1:] {
			if a.Phase != active || b.Phase != active {
				continue
			}
			pa, pb := netip.MustParsePrefix(a.CIDR), netip.MustParsePrefix(b.CIDR)
			if pa.Overlaps(pb) && (pa.Bits() == pb.Bits() || a.NodeMaskSize != b.NodeMaskSize) {
				return fmt.Errorf("Active ranges %q and %q conflict", a.Name, b.Name)
			}
		}
	}
	if out.FinalizerRemovable != (in.Deleting && len(out.Ranges) == 0) {
		return fmt.Errorf("finalizerRemovable=%v with deleting=%v and %d ranges", out.FinalizerRemovable, in.Deleting, len(out.Ranges))
	}
	ready := meta.FindStatusCondition(out.Conditions, v1alpha1.ReadyCondition)
	if ready == nil {
		return fmt.Errorf("no Ready condition")
	}
	if ready.Status == metav1.ConditionTrue {
		if in.Deleting || int(out.Summary.ActiveRanges) != len(in.Spec) || len(out.Ranges) != len(in.Spec) {
			return fmt.Errorf("ready while not every spec range is Active: %+v", out.Summary)
		}
	}
	for _, c := range out.Consumers {
		for _, ic := range in.Consumers {
			if ic.Name == c.Name && ic.Deleting {
				return fmt.Errorf("consumer %q being deleted is listed", c.Name)
			}
		}
	}
	return nil
}
