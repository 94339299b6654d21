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
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// createConcurrency is how many create calls the load generator keeps in
// flight. It only has to outpace every allocator; it is the same for all.
const createConcurrency = 16

// newNode is a node as it registers, before any allocator ran: no podCIDRs.
func newNode(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name,
		Labels: map[string]string{
			"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		},
	}}
}

// createNodes creates nodes prefix00000 … in a burst (rate 0: as fast as
// createConcurrency calls go) or at a steady rate per second, and returns
// when every create call returned.
func createNodes(ctx context.Context, cs kubernetes.Interface, prefix string, n int, rate float64) error {
	return createNodesWith(ctx, cs, n, rate, func(i int) *corev1.Node { return newNode(nodeName(prefix, i)) })
}

// createNodesWith creates the nodes mk makes for 0 … n-1.
func createNodesWith(ctx context.Context, cs kubernetes.Interface, n int, rate float64, mk func(i int) *corev1.Node) error {
	nodes := make(chan *corev1.Node)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for range createConcurrency {
		wg.Go(func() {
			for node := range nodes {
				if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("creating node %s: %w", node.Name, err))
					mu.Unlock()
				}
			}
		})
	}
	start := time.Now()
	for i := range n {
		if rate > 0 {
			// Node i arrives at start + i/rate whatever happened before, so
			// a slow create does not slow the arrivals down.
			if d := time.Until(start.Add(time.Duration(float64(i) / rate * float64(time.Second)))); d > 0 {
				time.Sleep(d)
			}
		}
		select {
		case nodes <- mk(i):
		case <-ctx.Done():
			close(nodes)
			wg.Wait()
			return ctx.Err()
		}
	}
	close(nodes)
	wg.Wait()
	return errors.Join(errs...)
}

func nodeName(prefix string, i int) string { return fmt.Sprintf("%s%05d", prefix, i) }

// deleteNodes deletes the nodes selector matches ("" for all) and waits
// until none is left. The apiserver deletes a collection one object at a
// time, and 100,000 nodes take longer than its request timeout: the call
// then fails while the deletion has only got part of the way, so it is
// made again until nothing matches. Any other failure of the call (an
// HTTP/2 stream reset by a loaded apiserver, seen in a 5-round run) is
// retried the same way: the deletion may have got part of the way too.
func deleteNodes(ctx context.Context, cs kubernetes.Interface, selector string) error {
	list := metav1.ListOptions{LabelSelector: selector}
	for attempt := 1; ; attempt++ {
		deleteErr := cs.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, list)
		if deleteErr != nil && ctx.Err() != nil {
			return fmt.Errorf("deleting nodes: %w", deleteErr)
		}
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			l, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: selector, Limit: 1})
			if err != nil {
				return false, fmt.Errorf("listing nodes: %w", err)
			}
			return len(l.Items) == 0, nil
		})
		if err == nil {
			return nil
		}
		if attempt == 30 || ctx.Err() != nil {
			return fmt.Errorf("waiting for the nodes (%q) to be gone: %w", selector, errors.Join(err, deleteErr))
		}
	}
}
