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

package watches

import (
	"context"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// NodeEventCoalescing is how long the controllers that list every node per
// reconcile (the lifecycle, the autoscaler) wait after a node event before
// they reconcile, per NodesPerCoalescingStep nodes (at least once), so that
// every node event in that window costs one reconcile. Woken once per node,
// a burst of N new nodes cost O(N²) and took the CPU the apiserver needed
// (docs/performance.md); and since a reconcile costs O(nodes), waiting in
// proportion to the nodes keeps its CPU about constant as the cluster
// grows (at 100,000 nodes, once a second, it was a third of the operator's
// CPU in a burst). Node events only ever hold a range back (Draining while
// a node still uses it), report an address overlap or move a forecast that
// looks lead times ahead, so seconds of delay lose nothing.
const NodeEventCoalescing = time.Second

// NodesPerCoalescingStep is how many nodes one NodeEventCoalescing covers.
const NodesPerCoalescingStep = 10000

// CoalescingDelay is the wait after a node event for a controller that read
// nodes nodes in its last reconcile: NodeEventCoalescing per started
// NodesPerCoalescingStep, at least one.
func CoalescingDelay(nodes int) time.Duration {
	steps := max(1, (nodes+NodesPerCoalescingStep-1)/NodesPerCoalescingStep)
	return time.Duration(steps) * NodeEventCoalescing
}

// NodeEventCoalescer holds the node count a controller read last, which
// sets the delay of its coalesced node events. The zero value waits
// NodeEventCoalescing.
type NodeEventCoalescer struct {
	nodes atomic.Int64
}

// Read records how many nodes the controller read in a reconcile.
func (c *NodeEventCoalescer) Read(nodes int) { c.nodes.Store(int64(nodes)) }

// Delay is CoalescingDelay of the count read last.
func (c *NodeEventCoalescer) Delay() time.Duration { return CoalescingDelay(int(c.nodes.Load())) }

// Handler enqueues PodNetwork "default" Delay() after a node event.
func (c *NodeEventCoalescer) Handler() handler.EventHandler { return CoalescedNodeEvents(c.Delay) }

// CoalescedNodeEvents enqueues PodNetwork "default" delay() after a node
// event. The work queue keeps one pending entry per key with the earliest
// due time, so under churn the controller runs at most about once per
// delay for nodes; its other watches still enqueue at once.
func CoalescedNodeEvents(delay func() time.Duration) handler.EventHandler {
	enqueue := func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		q.AddAfter(PodNetworkRequest, delay())
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, _ event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q)
		},
		UpdateFunc: func(_ context.Context, _ event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q)
		},
		DeleteFunc: func(_ context.Context, _ event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q)
		},
		GenericFunc: func(_ context.Context, _ event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q)
		},
	}
}
