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
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/slimnode"
)

// BenchmarkCompute is one lifecycle reconcile's pure part over a cluster of
// nodes listed in no order (as the informer's store lists them), each with
// one /26 of an Active /9 and one address, and two required consumers that
// acked: what the lifecycle does once per coalescing delay during a burst
// (watches.CoalescingDelay).
func BenchmarkCompute(b *testing.B) {
	for _, n := range []int{5000, 100000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			const rng = "10.128.0.0/9"
			w := newWorld(specRng("a", rng, 26)).consumers(
				required("x", ack("a", rng, pending), ack("a", rng, active)),
				required("y", ack("a", rng, pending), ack("a", rng, active)))
			w.step()
			w.step()
			if r := rangeOf(w.step(), "a"); r == nil || r.Phase != active {
				b.Fatalf("range a is not Active: %+v", r)
			}
			base := netip.MustParsePrefix(rng).Addr()
			for i := range n {
				nd := node(fmt.Sprintf("node-%06d", i))
				nd.PodCIDRs = []netip.Prefix{nthBlock(netip.MustParsePrefix(rng), 26, uint64(i))}
				nd.Addresses = []netip.Addr{base.Prev()}
				w.in.Nodes = append(w.in.Nodes, nd)
			}
			order := rand.New(rand.NewPCG(1, 2))
			order.Shuffle(n, func(i, j int) { w.in.Nodes[i], w.in.Nodes[j] = w.in.Nodes[j], w.in.Nodes[i] })
			b.ReportAllocs()
			for b.Loop() {
				Compute(w.in)
			}
		})
	}
}

// BenchmarkInputFrom is the part of a lifecycle reconcile before Compute:
// reading the podCIDRs of every cached node, single- and dual-stack. It
// runs as often as Compute (once per coalescing delay during a burst) and,
// unlike Compute, costs more per IP family: docs/performance.md
// ("Dual-stack, four interleaved rounds with their profiles") traces part of
// the dual-stack burst's extra CPU to it.
func BenchmarkInputFrom(b *testing.B) {
	v4 := netip.MustParsePrefix("10.128.0.0/9")
	v6 := netip.MustParsePrefix("fd99::/48")
	for _, dual := range []bool{false, true} {
		b.Run(fmt.Sprintf("nodes=5000/dual-stack=%v", dual), func(b *testing.B) {
			// As the node cache holds them: slimmed by its transform.
			nodes := make([]*slimnode.Node, 5000)
			for i := range nodes {
				n := &corev1.Node{}
				n.Name = fmt.Sprintf("node-%06d", i)
				n.Spec.PodCIDRs = []string{nthBlock(v4, 24, uint64(i)).String()}
				if dual {
					n.Spec.PodCIDRs = append(n.Spec.PodCIDRs, nthBlock(v6, 64, uint64(i)).String())
				}
				nodes[i] = slimnode.From(n)
			}
			objs := Objects{PodNetwork: &v1alpha1.PodNetwork{}, Nodes: nodes}
			b.ReportAllocs()
			for b.Loop() {
				if in := InputFrom(objs, t0, time.Minute); len(in.Nodes) != len(nodes) {
					b.Fatalf("InputFrom read %d nodes, want %d", len(in.Nodes), len(nodes))
				}
			}
		})
	}
}
