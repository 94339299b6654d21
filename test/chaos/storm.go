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

package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/test/framework"
)

// stormWorkers is how many node creations and deletions run in parallel.
const stormWorkers = 16

// storm creates and deletes nodes in waves, as an autoscaler would, against
// the apiserver directly. Names come from a pool half again as large as
// the most nodes that exist at once, so names are reused by new node
// objects.
type storm struct {
	c     client.Client
	r     *rand.Rand
	pool  []string
	max   int
	kwok  bool
	nodes map[string]bool // existing, as far as the storm knows

	mu      sync.Mutex
	created int
	deleted int
}

func newStorm(c client.Client, seed int64, maxNodes int, kwok bool) *storm {
	s := &storm{c: c, r: rng(seed, streamWaves), max: maxNodes, kwok: kwok, nodes: map[string]bool{}}
	for i := range maxNodes * 3 / 2 {
		s.pool = append(s.pool, fmt.Sprintf("chaos-node-%05d", i))
	}
	return s
}

// wave deletes between 20% and 60% of the nodes, then creates nodes until
// between 60% and 100% of the maximum exist; the full maximum when full.
func (s *storm) wave(ctx context.Context, full bool) {
	existing := s.existing()
	s.r.Shuffle(len(existing), func(i, j int) { existing[i], existing[j] = existing[j], existing[i] })
	del := existing[:int(float64(len(existing))*(0.2+0.4*s.r.Float64()))]
	target := int(float64(s.max) * (0.6 + 0.4*s.r.Float64()))
	if full {
		target = s.max
	}
	var free []string
	for _, n := range s.pool {
		if !s.nodes[n] {
			free = append(free, n)
		}
	}
	s.r.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	add := free[:max(0, min(len(free), target-(len(existing)-len(del))))]
	for _, n := range del {
		delete(s.nodes, n)
	}
	s.parallel(ctx, del, s.deleteNode)
	for _, n := range add {
		s.nodes[n] = true
	}
	s.parallel(ctx, add, s.createNode)
}

func (s *storm) existing() []string {
	out := make([]string, 0, len(s.nodes))
	for n := range s.nodes {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// deleteHolders deletes every node with a podCIDR inside prefix, as an
// admin draining a removed range replaces its nodes.
func (s *storm) deleteHolders(ctx context.Context, prefix netip.Prefix) int {
	var list corev1.NodeList
	if err := retry(ctx, func() error { return s.c.List(ctx, &list) }); err != nil {
		return 0
	}
	var holders []string
	for _, n := range list.Items {
		for _, c := range n.Spec.PodCIDRs {
			if p, err := netip.ParsePrefix(c); err == nil && prefix.Overlaps(p) {
				holders = append(holders, n.Name)
				break
			}
		}
	}
	for _, n := range holders {
		delete(s.nodes, n)
	}
	s.parallel(ctx, holders, s.deleteNode)
	return len(holders)
}

func (s *storm) parallel(ctx context.Context, names []string, do func(context.Context, string) error) {
	work := make(chan string)
	var wg sync.WaitGroup
	for range stormWorkers {
		wg.Go(func() {
			for n := range work {
				_ = retry(ctx, func() error { return do(ctx, n) })
			}
		})
	}
	for _, n := range names {
		work <- n
	}
	close(work)
	wg.Wait()
}

func (s *storm) createNode(ctx context.Context, name string) error {
	idx, _ := slices.BinarySearch(s.pool, name)
	w := framework.Node(name).InternalIP(nodeAddress(idx))
	if s.kwok {
		w = w.Labels(map[string]string{"type": "kwok"}) // cluster.KwokNodeLabel
	}
	err := s.c.Create(ctx, w.Obj())
	if err == nil || apierrors.IsAlreadyExists(err) {
		s.mu.Lock()
		s.created++
		s.mu.Unlock()
		return nil
	}
	return err
}

func (s *storm) deleteNode(ctx context.Context, name string) error {
	err := s.c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err == nil || apierrors.IsNotFound(err) {
		s.mu.Lock()
		s.deleted++
		s.mu.Unlock()
		return nil
	}
	return err
}

// counts returns how many nodes the storm created and deleted.
func (s *storm) counts() (created, deleted int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.created, s.deleted
}

// nodeAddress is node i's InternalIP, in the benchmarking range
// 198.18.0.0/15 (RFC 2544), clear of every pod range.
func nodeAddress(i int) string {
	return netip.AddrFrom4([4]byte{198, 18 + byte(i>>16&1), byte(i >> 8), byte(i)}).String()
}

// retry calls f until it succeeds or ctx ends: the apiserver or etcd may be
// restarting.
func retry(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
