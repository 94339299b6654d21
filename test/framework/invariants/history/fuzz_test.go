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
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"

	"go4.org/netipx"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// legalModel plays a cluster by the rules from fuzz input: ranges added
// and activated after every ack, drained, released only without holders
// and purged after every ack; nodes get a never-held block, or one freed
// longer than the recycle delay ago, of an Active range; leaders renew
// before they write and hand over after their lease expired.
type legalModel struct {
	h        *hist
	phase    map[string]v1alpha1.RangePhase // tracked ranges
	block    map[string]netip.Prefix        // node -> its block (invalid while none)
	freedAt  map[netip.Prefix]time.Time
	renewed  time.Time
	nodes    int
	leaders  int
	rangeSet []rangeDef
}

type rangeDef struct{ name, cidr string }

func newLegalModel() *legalModel {
	m := &legalModel{h: newHist(), phase: map[string]v1alpha1.RangePhase{}, block: map[string]netip.Prefix{}, freedAt: map[netip.Prefix]time.Time{}}
	m.h.acquire("op-0_1", "op-0")
	m.renewed = m.h.now
	m.h.consumer("node-ipam", true)
	m.h.consumer("kube-proxy", true)
	for i := range 3 {
		m.rangeSet = append(m.rangeSet, rangeDef{fmt.Sprintf("r%d", i), fmt.Sprintf("10.0.%d.0/23", 2*i)}) // two blocks each
	}
	return m
}

// status records the PodNetwork with every tracked range.
func (m *legalModel) status() {
	var rs []string
	ready := true
	for _, r := range m.rangeSet {
		if p := m.phase[r.name]; p != "" {
			rs = append(rs, r.name+" "+r.cidr+" "+string(p))
			ready = ready && p == v1alpha1.RangePhaseActive
		}
	}
	m.write()
	m.h.status(ready, rs...)
}

func (m *legalModel) spec() {
	var spec []v1alpha1.PodCIDRRange
	for _, r := range m.rangeSet {
		if p := m.phase[r.name]; p == v1alpha1.RangePhasePending || p == v1alpha1.RangePhaseActive {
			spec = append(spec, rng(r.name, r.cidr))
		}
	}
	m.h.spec(spec...)
}

// write renews the lease first when it is due, as a leader that keeps it.
func (m *legalModel) write() {
	if m.h.now.Sub(m.renewed) >= 2*time.Second {
		m.h.renew()
		m.renewed = m.h.now
	}
}

func (m *legalModel) step(op, arg byte) {
	h := m.h
	r := m.rangeSet[int(arg)%len(m.rangeSet)]
	// Weighted: nodes join and get blocks more often than leaders die.
	switch [16]int{0, 0, 1, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 6, 6, 7}[op%16] {
	case 0: // add and activate a range
		if m.phase[r.name] != "" {
			return
		}
		m.phase[r.name] = v1alpha1.RangePhasePending
		m.spec()
		m.status()
		h.ackAll(r.name, r.cidr, v1alpha1.RangePhasePending)
		m.phase[r.name] = v1alpha1.RangePhaseActive
		m.status()
		h.ackAll(r.name, r.cidr, v1alpha1.RangePhaseActive)
	case 1: // remove a range
		if m.phase[r.name] != v1alpha1.RangePhaseActive {
			return
		}
		m.phase[r.name] = v1alpha1.RangePhaseDraining
		m.spec()
		m.status()
		h.ackAll(r.name, r.cidr, v1alpha1.RangePhaseDraining)
	case 2: // release and purge a drained range
		p := netip.MustParsePrefix(r.cidr)
		if m.phase[r.name] != v1alpha1.RangePhaseDraining || slices.ContainsFunc(mapValues(m.block), p.Overlaps) {
			return
		}
		m.phase[r.name] = v1alpha1.RangePhaseReleased
		m.status()
		h.ackAll(r.name, r.cidr, v1alpha1.RangePhaseReleased)
		delete(m.phase, r.name)
		m.status()
	case 3: // a node joins
		m.nodes++
		name := fmt.Sprintf("n%d", m.nodes)
		h.node(name, nil)
		m.block[name] = netip.Prefix{}
	case 4: // NodeIPAM gives a waiting node a block
		for _, name := range sortedKeys(m.block) {
			if m.block[name].IsValid() {
				continue
			}
			if b, ok := m.freeBlock(); ok {
				m.write()
				h.assign(name, b.String())
				m.block[name] = b
			}
			return
		}
	case 5: // a node leaves
		names := sortedKeys(m.block)
		if len(names) == 0 {
			return
		}
		name := names[int(arg)%len(names)]
		h.deleteNode(name)
		if b := m.block[name]; b.IsValid() {
			m.freedAt[b] = h.now
		}
		delete(m.block, name)
	case 6: // time passes
		h.tick(time.Duration(arg) * time.Second)
	case 7: // the leader dies; another takes over after the lease expired
		m.leaders++
		h.leader = ""
		h.tick(16 * time.Second)
		h.acquire(fmt.Sprintf("op-%d_1", m.leaders), fmt.Sprintf("op-%d", m.leaders))
		m.renewed = h.now
	}
}

// freeBlock returns a block of an Active range no node holds and, if it
// was freed, freed more than the recycle delay (with margin) ago.
func (m *legalModel) freeBlock() (netip.Prefix, bool) {
	held := map[netip.Prefix]bool{}
	for _, b := range m.block {
		held[b] = true
	}
	for _, r := range m.rangeSet {
		if m.phase[r.name] != v1alpha1.RangePhaseActive {
			continue
		}
		p := netip.MustParsePrefix(r.cidr)
		for b := netip.PrefixFrom(p.Addr(), 24); p.Contains(b.Addr()); b = netip.PrefixFrom(netipx.PrefixLastIP(b).Next(), 24) {
			if at, freed := m.freedAt[b]; !held[b] && (!freed || m.h.now.Sub(at) > 62*time.Second) {
				return b, true
			}
		}
	}
	return netip.Prefix{}, false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// FuzzLegalHistories checks that no history played by the rules fails an
// invariant (liveness aside: a random history does not end settled), and
// that Check and Table never panic.
func FuzzLegalHistories(f *testing.F) {
	f.Add([]byte{0, 0, 4, 0, 7, 0, 4, 0, 7, 0, 11, 0, 13, 70, 4, 0, 7, 0})
	f.Add([]byte{0, 0, 4, 0, 7, 0, 0, 1, 2, 0, 4, 0, 7, 0, 11, 0, 3, 0, 15, 0, 4, 0, 7, 0})
	rnd := rand.New(rand.NewPCG(13, 13))
	for range 4 {
		seed := make([]byte, 400)
		for i := range seed {
			seed[i] = byte(rnd.IntN(256))
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 2000 {
			ops = ops[:2000] // the model, not Check, is quadratic in the nodes
		}
		m := newLegalModel()
		for i := 0; i+1 < len(ops); i += 2 {
			m.step(ops[i], ops[i+1])
		}
		r := m.h.check(t, Options{})
		vs := slices.DeleteFunc(slices.Clone(r.Violations), func(v Violation) bool {
			return v.Invariant == InvLivenessNodes || v.Invariant == InvLivenessReady
		})
		if len(vs) > 0 || len(r.Stale) > 0 {
			t.Fatalf("a legal history fails:\n%s\nstale: %+v", dump(vs), r.Stale)
		}
		_ = Table(r)
	})
}
