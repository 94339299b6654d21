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
	"net/netip"
	"strings"
	"testing"
	"time"

	"go4.org/netipx"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// realistic builds a clean history of a cluster replaced in waves, the way
// the operator and its consumers behave without faults: wave w adds range
// w, drains range w-1, brings nodesPerWave nodes that get a block of range
// w and an IPv6 block (kubelets heartbeat in between), deletes the previous
// wave's nodes, releases and purges range w-1. IPv6 blocks are reused two
// waves later, long after their recycle delay. The lease is renewed every
// 2s and changes hands once, in wave 1.
func realistic(nodesPerWave, waves, heartbeats int) *hist {
	h := newHist()
	h.acquire("op-0_1", "op-0")
	for _, c := range []string{"node-ipam", "kube-proxy", "flannel"} {
		h.consumer(c, true)
	}
	h.consumer("observer", false)
	lastRenew := h.now
	renew := func() {
		if h.now.Sub(lastRenew) >= 2*time.Second {
			h.renew()
			lastRenew = h.now
		}
	}
	rangeOf := func(w int) (string, string) {
		return fmt.Sprintf("w%d", w), netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(w * 32), 0, 0}), 11).String()
	}
	v6 := netip.MustParsePrefix(cidrV6)
	h.activate("v6", cidrV6)
	statusOf := func(extra ...string) []string {
		return append([]string{"v6 " + cidrV6 + " Active"}, extra...)
	}
	for w := range waves {
		name, cidr := rangeOf(w)
		var prev []string
		if w > 0 {
			pname, pcidr := rangeOf(w - 1)
			prev = []string{pname + " " + pcidr + " Active"}
		}
		h.activate(name, cidr, append(statusOf(), prev...)...)
		if w > 0 {
			pname, pcidr := rangeOf(w - 1)
			h.spec(rng("v6", cidrV6), rng(name, cidr))
			h.status(false, statusOf(pname+" "+pcidr+" Draining", name+" "+cidr+" Active")...)
			h.ackAll(pname, pcidr, v1alpha1.RangePhaseDraining)
		}
		block := netip.PrefixFrom(netip.MustParsePrefix(cidr).Addr(), 24)
		for i := range nodesPerWave {
			n := fmt.Sprintf("w%d-n%d", w, i)
			h.node(n, nil)
			for range heartbeats / 2 {
				h.heartbeat(n)
			}
			b6 := netip.PrefixFrom(v6.Addr(), 64)
			for range (w%2)*nodesPerWave + i {
				b6 = netip.PrefixFrom(netipx.PrefixLastIP(b6).Next(), 64)
			}
			h.assign(n, block.String(), b6.String())
			block = netip.PrefixFrom(netipx.PrefixLastIP(block).Next(), 24)
			for range heartbeats - heartbeats/2 {
				h.heartbeat(n)
			}
			renew()
			if w == 1 && i == nodesPerWave/2 {
				// The leader dies; op-1 takes over once the lease expired.
				h.leader = ""
				h.tick(16 * time.Second)
				h.acquire("op-1_1", "op-1")
				lastRenew = h.now
			}
		}
		if w > 0 {
			pname, pcidr := rangeOf(w - 1)
			for i := range nodesPerWave {
				n := fmt.Sprintf("w%d-n%d", w-1, i)
				h.startDeleting(n)
				h.deleteNode(n)
				renew()
			}
			h.status(false, statusOf(pname+" "+pcidr+" Released", name+" "+cidr+" Active")...)
			h.ackAll(pname, pcidr, v1alpha1.RangePhaseReleased)
		}
		h.status(true, statusOf(name+" "+cidr+" Active")...)
		h.tick(2 * time.Minute)
		h.renew()
		lastRenew = h.now
	}
	return h
}

func TestRealisticHistoryPasses(t *testing.T) {
	const perWave, waves = 40, 4
	h := realistic(perWave, waves, 3)
	r := h.check(t, Options{FaultsEnd: h.now.Add(-time.Minute)})
	if len(r.Violations) > 0 || len(r.Stale) > 0 {
		t.Fatalf("a clean history fails:\n%s\nstale: %+v", dump(r.Violations), r.Stale)
	}
	want := map[string]int{
		CountNodes:                             perWave * waves,
		CountNodesDeleted:                      perWave * (waves - 1),
		CountAssigned:                          perWave * waves * 2,
		CountReuses:                            perWave * (waves - 2),
		CountLeaseHolders:                      2,
		CountTransition + "(new)->Pending":     waves, // the first PodNetwork observation shows v6 Pending: nothing led to it
		CountTransition + "Pending->Active":    waves + 1,
		CountTransition + "Active->Draining":   waves - 1,
		CountTransition + "Draining->Released": waves - 1,
		CountTransition + "Released->(purged)": waves - 1,
		CountWrites + "op-0":                   -1, // some
		CountWrites + "op-1":                   -1,
	}
	for k, v := range want {
		if got := r.Counts[k]; (v < 0 && got == 0) || (v >= 0 && got != v) {
			t.Errorf("Counts[%q] = %d, want %d", k, got, v)
		}
	}
	table := Table(r)
	for _, s := range []string{"| no-overlap | 0 | 0 |", "| Pending->Active | 5 |", "| nodes | 160 |", "| op-1 |"} {
		if !strings.Contains(table, s) {
			t.Errorf("Table lacks %q:\n%s", s, table)
		}
	}
}

// BenchmarkCheck checks a history of 5,000 nodes per wave, 4 waves, each
// node heartbeating 6 times: about 160,000 observations.
func BenchmarkCheck(b *testing.B) {
	h := realistic(5000, 4, 6)
	for b.Loop() {
		r := Check(h.obs, h.writes, Options{LeaseNamespace: leaseNS})
		if len(r.Violations) > 0 {
			b.Fatalf("violations: %s", dump(r.Violations[:1]))
		}
	}
	b.ReportMetric(float64(len(h.obs)), "observations")
}
