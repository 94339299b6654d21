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

package bench

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/controller/nodeipam/ipam"

	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/nodeipam"
)

// rebuildCluster is the cluster range of the rebuild benchmarks: 65,536
// blocks, room for the largest node count.
var rebuildCluster = netip.MustParsePrefix("10.0.0.0/8")

// listedNodes returns n nodes as a LIST returns them after allocation: each
// with one /24 podCIDR of rebuildCluster. Only the fields either allocator
// reads matter; both get the same objects.
func listedNodes(n int) *corev1.NodeList {
	geo, err := allocator.NewRange(rebuildCluster, 24)
	if err != nil {
		panic(err)
	}
	list := &corev1.NodeList{Items: make([]corev1.Node, n)}
	for i := range list.Items {
		name := fmt.Sprintf("node-%05d", i)
		cidr := geo.Block(i).String()
		list.Items[i] = corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1"},
			Spec:       corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}},
		}
	}
	return list
}

// rebuildOurs does what the operator's start-up rebuild does with the listed
// nodes (nodeipam.Rebuild, filled by controllers/nodeipam's rebuilder): a fresh
// allocator, every podCIDR reserved for its node, the per-node records kept,
// then the sort-and-sweep overlap check. The paginated LIST and the
// controller around it are measured in the main module
// (BenchmarkNodeIPAMRebuild in controllers/nodeipam).
func rebuildOurs(list *corev1.NodeList) (any, error) {
	a := allocator.New(allocator.Options{RecycleDelay: time.Minute})
	if err := a.SetRanges([]allocator.RangeSpec{{Name: "r", Prefix: rebuildCluster, NodeMaskSize: 24, Active: true}}); err != nil {
		return nil, fmt.Errorf("configuring ranges: %w", err)
	}
	records := map[string][]netip.Prefix{}
	var holdings []nodeipam.Holding
	for i := range list.Items {
		n := &list.Items[i]
		var cidrs []netip.Prefix
		for _, s := range n.Spec.PodCIDRs {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				continue
			}
			if err := a.Reserve(n.Name, p); err != nil {
				return nil, fmt.Errorf("reserving %s for %s: %w", p, n.Name, err)
			}
			cidrs = append(cidrs, p)
			holdings = append(holdings, nodeipam.Holding{Node: n.Name, Prefix: p})
		}
		records[n.Name] = cidrs
	}
	if c := nodeipam.FindOverlaps(holdings); len(c) != 0 {
		return nil, fmt.Errorf("unexpected conflicts: %v", c)
	}
	return struct {
		a *allocator.Allocator
		r map[string][]netip.Prefix
	}{a, records}, nil
}

// rebuildKCM calls kube-controller-manager's own constructor,
// ipam.NewCIDRRangeAllocator, which occupies every listed node's podCIDRs
// before any worker starts. Its event broadcaster stops with ctx.
func rebuildKCM(ctx context.Context, list *corev1.NodeList) (any, error) {
	client := fake.NewClientset()
	nodes := informers.NewSharedInformerFactory(client, 0).Core().V1().Nodes()
	_, cluster, err := net.ParseCIDR(rebuildCluster.String())
	if err != nil {
		return nil, fmt.Errorf("parsing cluster CIDR: %w", err)
	}
	ra, err := ipam.NewCIDRRangeAllocator(ctx, client, nodes, ipam.CIDRAllocatorParams{
		ClusterCIDRs:      []*net.IPNet{cluster},
		NodeCIDRMaskSizes: []int{24},
	}, list)
	if err != nil {
		return nil, fmt.Errorf("building the range allocator: %w", err)
	}
	return ra, nil
}

// BenchmarkRebuild measures rebuilding occupancy after a restart from 5,000
// and 65,000 listed nodes. Besides time and allocations it reports the heap
// the rebuilt state retains (measured once, outside the timed loop).
func BenchmarkRebuild(b *testing.B) {
	for _, n := range []int{5000, 65000} {
		list := listedNodes(n)
		for _, impl := range []string{"ours", "kcm"} {
			b.Run(fmt.Sprintf("nodes=%d/impl=%s", n, impl), func(b *testing.B) {
				build := func() any {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					var (
						st  any
						err error
					)
					if impl == "ours" {
						st, err = rebuildOurs(list)
					} else {
						st, err = rebuildKCM(ctx, list)
					}
					if err != nil {
						b.Fatal(err)
					}
					return st
				}
				build() // first use initializes package state (schemes, metrics) that is not the rebuild's
				retained := retainedBytes(build)
				b.ReportAllocs()
				for b.Loop() {
					build()
				}
				b.ReportMetric(retained, "retained-B")
			})
		}
	}
}

// retainedBytes returns the live heap that the result of mk keeps.
func retainedBytes(mk func() any) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep := mk()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}
