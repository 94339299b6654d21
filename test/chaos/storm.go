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
	cfg   Config
	r     *rand.Rand
	pool  []string
	max   int
	nodes map[string]bool // existing, as far as the storm knows

	mu      sync.Mutex
	created int
	deleted int
}

func newStorm(c client.Client, cfg Config) *storm {
	s := &storm{c: c, cfg: cfg, r: rng(cfg.Seed, streamWaves), max: cfg.Nodes, nodes: map[string]bool{}}
	for i := range poolSize(cfg) {
		s.pool = append(s.pool, fmt.Sprintf("chaos-node-%05d", i))
	}
	return s
}

// poolSize is how many node names a run uses.
func poolSize(cfg Config) int { return cfg.Nodes * 3 / 2 }

// nodeLabels returns the labels of the i-th node name, which say what it
// is: by i modulo 10, in a dual-stack run 1 is IPv4-only and 2 IPv6-only
// (familyLabel); with the autoscaler, 3 is a node of its pools (poolLabel);
// with the adapters, every step-th name with 4 runs their DaemonSets
// (adapterLabel), AdapterNodes names in all. The other names, and those,
// are plain nodes of every family the run has.
func nodeLabels(cfg Config, i int) map[string]string {
	labels := map[string]string{}
	if cfg.Kwok {
		labels["type"] = "kwok" // cluster.KwokNodeLabel
	}
	switch i % 10 {
	case 1:
		if cfg.Families == DualStack {
			labels[familyLabel] = string(IPv4)
		}
	case 2:
		if cfg.Families == DualStack {
			labels[familyLabel] = string(IPv6)
		}
	case 3:
		if cfg.Autoscaler {
			labels[poolLabel] = poolValue
		}
	case 4:
		if step := max(1, poolSize(cfg)/10/max(1, cfg.AdapterNodes)); cfg.Adapters && (i/10)%step == 0 {
			labels[adapterLabel] = "true"
		}
	}
	return labels
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

// deleteHolders deletes every node with a podCIDR inside one of prefixes,
// as an admin draining a removed range replaces its nodes.
func (s *storm) deleteHolders(ctx context.Context, prefixes ...netip.Prefix) int {
	var list corev1.NodeList
	if err := retry(ctx, func() error { return s.c.List(ctx, &list) }); err != nil {
		return 0
	}
	var holders []string
	for _, n := range list.Items {
		for _, c := range n.Spec.PodCIDRs {
			if p, err := netip.ParsePrefix(c); err == nil && slices.ContainsFunc(prefixes, p.Overlaps) {
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
	w := framework.Node(name).InternalIP(nodeAddress(idx)).Labels(nodeLabels(s.cfg, idx))
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
		if idx, _ := slices.BinarySearch(s.pool, name); nodeLabels(s.cfg, idx)[adapterLabel] != "" {
			// The adapters' pods go with their node (adapterKubelet
			// removes what a DaemonSet controller that had not seen the
			// deletion yet created since): a pod left on a deleted node
			// runs the old configuration forever and stalls every rollout
			// the adapters wait for.
			if err := deletePodsOn(ctx, s.c, name); err != nil {
				return err
			}
		}
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
