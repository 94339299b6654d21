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
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// recorder timestamps, as each watch event arrives, when a measured node is
// first seen (ADDED) and when it is first seen with podCIDRs. Both times come
// from the same watch stream, so a node's latency is not skewed by how long
// its create call took to return under load.
type recorder struct {
	prefix string
	want   int

	mu      sync.Mutex
	added   map[string]time.Time
	cidr    map[string]time.Time
	allDone chan struct{}
}

// startRecorder watches nodes from the current resourceVersion, so it must
// start before the first measured node is created. It stops with ctx.
func startRecorder(ctx context.Context, cs kubernetes.Interface, prefix string, want int) (*recorder, error) {
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("listing nodes for a resourceVersion: %w", err)
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cs.CoreV1().Nodes().Watch(ctx, o)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	r := &recorder{prefix: prefix, want: want, added: map[string]time.Time{}, cidr: map[string]time.Time{}, allDone: make(chan struct{})}
	go func() {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				r.observe(ev, time.Now())
			}
		}
	}()
	return r, nil
}

func (r *recorder) observe(ev watch.Event, at time.Time) {
	n, ok := ev.Object.(*corev1.Node)
	if !ok || !strings.HasPrefix(n.Name, r.prefix) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if ev.Type == watch.Added || ev.Type == watch.Modified {
		if _, seen := r.added[n.Name]; !seen {
			r.added[n.Name] = at
		}
	}
	if len(n.Spec.PodCIDRs) > 0 {
		if _, seen := r.cidr[n.Name]; !seen {
			r.cidr[n.Name] = at
			if len(r.cidr) == r.want {
				close(r.allDone)
			}
		}
	}
}

// wait blocks until every measured node has podCIDRs, or ctx ends.
func (r *recorder) wait(ctx context.Context) error {
	select {
	case <-r.allDone:
		return nil
	case <-ctx.Done():
		r.mu.Lock()
		defer r.mu.Unlock()
		return fmt.Errorf("%d of %d nodes got podCIDRs: %w", len(r.cidr), r.want, ctx.Err())
	}
}

// latencies returns, per node, the time from its ADDED event to its first
// event with podCIDRs, and the time the last node got them.
func (r *recorder) latencies() ([]time.Duration, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]time.Duration, 0, len(r.cidr))
	var last time.Time
	for name, at := range r.cidr {
		if at.After(last) {
			last = at
		}
		if added, ok := r.added[name]; ok {
			out = append(out, at.Sub(added))
		}
	}
	return out, last
}
