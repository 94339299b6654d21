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
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// NodeEventCoalescing is how long the controllers that list every node per
// reconcile (the lifecycle, the autoscaler) wait after a node event before
// they reconcile, so that every node event in that window costs one
// reconcile. Woken once per node, a burst of N new nodes cost O(N²) and took
// the CPU the apiserver needed (docs/performance.md). Node events only ever
// hold a range back (Draining while a node still uses it), report an address
// overlap or move a forecast that looks lead times ahead, so a second of
// delay loses nothing.
const NodeEventCoalescing = time.Second

// CoalescedNodeEvents enqueues PodNetwork "default" delay after a node event.
// The work queue keeps one pending entry per key with the earliest due time,
// so under churn the controller runs at most about once per delay for nodes;
// its other watches still enqueue at once.
func CoalescedNodeEvents(delay time.Duration) handler.EventHandler {
	enqueue := func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		q.AddAfter(PodNetworkRequest, delay)
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
