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
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"podnetwork.io/operator/controllers/watches"
)

// NodeEventCoalescing is how long the lifecycle waits after a node
// event before it reconciles, so that every node event in that window costs
// one reconcile. Each reconcile lists every node from the cache; woken once
// per node, a burst of N new nodes cost O(N²) and took the CPU the apiserver
// needed (docs/performance.md). Node events only ever hold a range back
// (Draining while a node still uses it) or report an address overlap, so a
// second of delay loses nothing.
const NodeEventCoalescing = time.Second

// coalescedNodeEvents enqueues PodNetwork "default" delay after a node event.
// The work queue keeps one pending entry per key with the earliest due time,
// so under churn the lifecycle runs at most about once per delay for nodes;
// PodNetwork and consumer events still enqueue at once.
func coalescedNodeEvents(delay time.Duration) handler.EventHandler {
	enqueue := func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		q.AddAfter(watches.PodNetworkRequest, delay)
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
