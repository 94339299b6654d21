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

package nodeipam

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"podnetwork.io/operator/controllers/watches"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
)

// signals wakes NodeIPAM's two reconcilers when the state's
// decisions call for it. Both signals coalesce (a buffer of one), so
// triggering often is cheap.
type signals struct {
	nodes   chan struct{} // retry the waiting nodes
	network chan struct{} // reconcile the PodNetwork side
}

func newSignals() *signals {
	return &signals{nodes: make(chan struct{}, 1), network: make(chan struct{}, 1)}
}

// all retries the waiting nodes and reconciles the PodNetwork side: the gate
// opened, or a block went back to the pool.
func (t *signals) all() {
	t.retryNodes()
	t.reconcileNetwork()
}

func (t *signals) retryNodes() {
	select {
	case t.nodes <- struct{}{}:
	default:
	}
}

func (t *signals) reconcileNetwork() {
	select {
	case t.network <- struct{}{}:
	default:
	}
}

// nodeSource enqueues every waiting node of state whenever the nodes are
// triggered: the gate opened, the ranges or the recycle policy changed, or a
// block was freed. Triggers coalesce, and the queue de-duplicates nodes, so
// a burst of releases costs one pass over the waiting nodes per reconcile
// round, not one per release.
func (t *signals) nodeSource(state *nodeipamcore.State) source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.nodes:
					for _, name := range state.WaitingNodes() {
						q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
					}
				}
			}
		}()
		return nil
	})
}

// networkSource enqueues PodNetwork "default" whenever the network side is
// triggered, so usage, quarantine and acknowledgements follow allocations
// and releases.
func (t *signals) networkSource() source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.network:
					q.Add(watches.PodNetworkRequest)
				}
			}
		}()
		return nil
	})
}
