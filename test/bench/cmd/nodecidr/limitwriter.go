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

package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	watchtools "k8s.io/client-go/tools/watch"
)

// limitWriter is the raw write limit: a process that, like an allocator,
// watches nodes and writes podCIDRs to every node that has none, with
// `writers` PATCHes in flight and no client-side rate limit, but without any
// allocator logic (block i goes to the i-th node seen). What it reaches is
// what the apiserver accepts on this machine at that concurrency.
type limitWriter struct {
	cs      kubernetes.Interface
	prefix  netip.Prefix
	mask    int
	writers int
	next    atomic.Uint32
}

// runLimitWriter runs the limit writer until SIGTERM.
func runLimitWriter(kubeconfig string, writers int, clusterCIDR string, mask int) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = -1, 0 // no client-side rate limit
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating client: %w", err)
	}
	prefix, err := netip.ParsePrefix(clusterCIDR)
	if err != nil {
		return fmt.Errorf("limit writer needs an IPv4 cluster CIDR, got %q: %w", clusterCIDR, err)
	}
	if !prefix.Addr().Is4() {
		return fmt.Errorf("limit writer needs an IPv4 cluster CIDR, got %q", clusterCIDR)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w := &limitWriter{cs: cs, prefix: prefix.Masked(), mask: mask, writers: writers}
	return w.run(ctx)
}

func (w *limitWriter) run(ctx context.Context) error {
	list, err := w.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	queue := make(chan string, 1<<17)
	for _, n := range list.Items {
		if len(n.Spec.PodCIDRs) == 0 {
			queue <- n.Name
		}
	}
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return w.cs.CoreV1().Nodes().Watch(ctx, o)
		},
	})
	if err != nil {
		return fmt.Errorf("watching nodes: %w", err)
	}
	defer rw.Stop()
	var wg sync.WaitGroup
	for range w.writers {
		wg.Go(func() { w.work(ctx, queue) })
	}
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return nil
		case ev, ok := <-rw.ResultChan():
			if !ok {
				return fmt.Errorf("node watch ended")
			}
			if n, isNode := ev.Object.(*corev1.Node); isNode && ev.Type == watch.Added && len(n.Spec.PodCIDRs) == 0 {
				queue <- n.Name
			}
		}
	}
}

// work patches podCIDRs onto queued nodes, with the strategic merge patch
// kube-controller-manager sends (k8s.io/component-helpers PatchNodeCIDRs).
func (w *limitWriter) work(ctx context.Context, queue <-chan string) {
	for {
		select {
		case <-ctx.Done():
			return
		case name := <-queue:
			cidr := w.block(int(w.next.Add(1) - 1))
			patch := fmt.Appendf(nil, `{"spec":{"podCIDR":%q,"podCIDRs":[%q]}}`, cidr, cidr)
			if _, err := w.cs.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "patching node %s: %v\n", name, err)
			}
		}
	}
}

// block returns the i-th /mask block of the cluster CIDR.
func (w *limitWriter) block(i int) netip.Prefix {
	base := w.prefix.Addr().As4()
	v := binary.BigEndian.Uint32(base[:]) + uint32(i)<<(32-w.mask)
	var out [4]byte
	binary.BigEndian.PutUint32(out[:], v)
	return netip.PrefixFrom(netip.AddrFrom4(out), w.mask)
}
