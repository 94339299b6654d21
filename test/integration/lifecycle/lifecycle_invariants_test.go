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

package lifecycle_test

import (
	"fmt"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/test/framework"
)

// lifecycleHistory is what a lifecycle spec recorded, split by kind, each in
// the order etcd committed it.
type lifecycleHistory struct {
	pn    []pnSnapshot
	acks  []ackSnapshot
	nodes []nodeSnapshot
}

type pnSnapshot struct {
	rv     int64
	ranges []v1alpha1.RangeStatus
}

type ackSnapshot struct {
	rv       int64
	consumer string
	acks     []v1alpha1.ConsumerRangeStatus
}

type nodeSnapshot struct {
	rv       int64
	name     string
	podCIDRs []string
	deleted  bool
}

func splitHistory(events []framework.Event) *lifecycleHistory {
	h := &lifecycleHistory{}
	for _, ev := range events {
		switch o := ev.Object.(type) {
		case *v1alpha1.PodNetwork:
			h.pn = append(h.pn, pnSnapshot{rv: ev.RV, ranges: o.Status.Ranges})
		case *v1alpha1.PodNetworkConsumer:
			h.acks = append(h.acks, ackSnapshot{rv: ev.RV, consumer: o.Name, acks: o.Status.Ranges})
		case *corev1.Node:
			h.nodes = append(h.nodes, nodeSnapshot{rv: ev.RV, name: o.Name, podCIDRs: o.Spec.PodCIDRs, deleted: ev.Deleted})
		}
	}
	return h
}

// expectLifecycleInvariants asserts the lifecycle's safety invariants on a
// recorded history of the PodNetwork, the consumers and the nodes, for the
// given required consumers:
//   - a range became Active only after every required consumer accepted its
//     Pending phase (after the range entered that phase);
//   - a range became Released from Draining only after every required
//     consumer acknowledged Draining and while no node held a podCIDR
//     overlapping it (these specs have no Active supernets);
//   - a Released range was purged only after every required consumer
//     acknowledged Released.
func expectLifecycleInvariants(events []framework.Event, required ...string) {
	h := splitHistory(events)
	type key struct{ name, cidr string }
	prev := map[key]v1alpha1.RangeStatus{}
	entered := map[key]int64{}
	for _, snap := range h.pn {
		cur := map[key]v1alpha1.RangeStatus{}
		for _, rs := range snap.ranges {
			k := key{rs.Name, rs.CIDR}
			cur[k] = rs
			old, had := prev[k]
			if !had || old.Phase == rs.Phase {
				if !had {
					entered[k] = snap.rv
				}
				continue
			}
			switch {
			case old.Phase == v1alpha1.RangePhasePending && rs.Phase == v1alpha1.RangePhaseActive:
				h.expectAcked(required, old, entered[k], snap.rv)
			case old.Phase == v1alpha1.RangePhaseDraining && rs.Phase == v1alpha1.RangePhaseReleased:
				h.expectAcked(required, old, entered[k], snap.rv)
				Expect(h.holdersAt(rs.CIDR, snap.rv)).To(BeEmpty(),
					"range %s/%s was Released at revision %d while nodes held blocks inside it", rs.Name, rs.CIDR, snap.rv)
			}
			entered[k] = snap.rv
		}
		for k, old := range prev {
			if _, still := cur[k]; !still {
				Expect(old.Phase).To(Equal(v1alpha1.RangePhaseReleased), "range %s/%s left status while %s", k.name, k.cidr, old.Phase)
				h.expectAcked(required, old, entered[k], snap.rv)
			}
		}
		prev = cur
	}
}

// expectAcked asserts that every required consumer accepted phase rs.Phase
// of the range at a revision in (since, before).
func (h *lifecycleHistory) expectAcked(required []string, rs v1alpha1.RangeStatus, since, before int64) {
	for _, c := range required {
		found := false
		for _, a := range h.acks {
			if a.consumer != c || a.rv <= since || a.rv >= before {
				continue
			}
			if acked, _, _ := v1alpha1.AckState(a.acks, &rs); acked {
				found = true
				break
			}
		}
		Expect(found).To(BeTrue(), fmt.Sprintf("range %s/%s left %s at revision %d before consumer %s acknowledged it",
			rs.Name, rs.CIDR, rs.Phase, before, c))
	}
}

// holdersAt returns the nodes whose podCIDRs overlapped prefix at revision rv.
func (h *lifecycleHistory) holdersAt(prefix string, rv int64) []string {
	p, err := cidr.ParseCanonical(prefix)
	Expect(err).NotTo(HaveOccurred())
	last := map[string]nodeSnapshot{}
	for _, n := range h.nodes {
		if n.rv > rv {
			break
		}
		last[n.name] = n
	}
	var holders []string
	for name, n := range last {
		if n.deleted {
			continue
		}
		for _, s := range n.podCIDRs {
			if q, err := cidr.ParseCanonical(s); err == nil && cidr.Overlaps(p, q) {
				holders = append(holders, name)
			}
		}
	}
	return holders
}
