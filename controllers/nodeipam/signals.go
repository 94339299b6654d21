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
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"podnetwork.io/operator/controllers/watches"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
)

// signals wakes NodeIPAM's two reconcilers, the record's ahead-of-need
// writer and the rebuilder's recovery when the state's decisions call for
// it. Every signal coalesces (a buffer of one), so triggering often is
// cheap.
type signals struct {
	nodes   chan struct{} // retry the waiting nodes
	network chan struct{} // reconcile the PodNetwork side
	written chan struct{} // reconcile the PodNetwork side, throttled
	record  chan struct{} // write the record ahead of need
	// recovery carries what recordStore found when someone else rewrote
	// the record: the rebuilder rebuilds the suspended state.
	recovery chan string
}

func newSignals() *signals {
	return &signals{
		nodes:    make(chan struct{}, 1),
		network:  make(chan struct{}, 1),
		written:  make(chan struct{}, 1),
		record:   make(chan struct{}, 1),
		recovery: make(chan string, 1),
	}
}

// recover asks the rebuilder to rebuild the state recordStore suspended.
// State.Suspend lets one rewrite through until the state is open again, so
// a recovery already asked for is never dropped for another.
func (t *signals) recover(finding string) {
	select {
	case t.recovery <- finding:
	default:
	}
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

// wrote reconciles the PodNetwork side after podCIDRs were written, at most
// once per writtenThrottle (networkSource): a write changes only the usage
// report, which is written at most once per StatusInterval anyway.
func (t *signals) wrote() {
	select {
	case t.written <- struct{}{}:
	default:
	}
}

// recordAhead asks recordWriter to write the record: an allocation grew it
// by the next chunk (nodeipamcore.Allocation.RecordAhead).
func (t *signals) recordAhead() {
	select {
	case t.record <- struct{}{}:
	default:
	}
}

// recordWriter writes the record whenever an allocation asks for it ahead
// of need, off the allocations' path: in a 5,000-node burst the 78 writes
// at chunk boundaries each stalled the allocation that needed one. A failed
// write here costs nothing but the stall it meant to avoid: the first
// allocation in the chunk then writes the record itself, and handles the
// failure (recordStore.sync). Every checkEvery it also checks that nobody
// else wrote the record (recordStore.check); a rewrite found either way
// starts the recovery, which the rebuilder logs. It runs on the leader
// only, as the reconcilers do.
func (t *signals) recordWriter(record *recordStore, checkEvery time.Duration) manager.Runnable {
	return manager.RunnableFunc(func(ctx context.Context) error {
		log := ctrl.LoggerFrom(ctx)
		tick := time.NewTicker(checkEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.record:
				if err := record.sync(ctx); err != nil {
					log.V(1).Info("writing the issued-block record ahead of need failed; the next allocation that needs it writes it", "err", err)
				}
			case <-tick.C:
				if err := record.check(ctx); err != nil && !errors.Is(err, nodeipamcore.ErrRecordRewritten) {
					log.V(1).Info("checking the issued-block record failed; checking again later", "err", err)
				}
			}
		}
	})
}

// nodeSource enqueues every waiting node of state whenever the nodes are
// triggered: the gate opened, the ranges or the recycle policy changed, or a
// block was freed. Triggers coalesce, and the queue de-duplicates nodes, so
// a burst of releases costs one pass over the waiting nodes per reconcile
// round, not one per release.
func (t *signals) nodeSource(state *nodeipamcore.State, nodes cache.Cache) source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		indexer, err := watches.NodeIndexer(ctx, nodes)
		if err != nil {
			return err
		}
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.nodes:
					for _, name := range state.WaitingNodes() {
						if settled(state, indexer, name) {
							continue
						}
						q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
					}
				}
			}
		}()
		return nil
	})
}

// settled reports whether the cache's node name needs no reconcile, and
// stops it waiting then: when the rebuild opens the state, that is nearly
// every node that had an event before, since the rebuild read them from
// the same cache. The cache is at least as new as every event delivered,
// so a later change still comes as an event.
func settled(state *nodeipamcore.State, indexer toolscache.Indexer, name string) bool {
	if indexer == nil {
		return false
	}
	node, err := watches.CachedNode(indexer, name)
	return err == nil && node != nil && state.StopWaitingIfSettled(node)
}

// networkSource enqueues PodNetwork "default" whenever the network side is
// triggered, so usage, quarantine and acknowledgements follow allocations
// and releases. After writes it does so at most once per every
// (nodeipamcore.Throttle): the first write after a quiet period at once, as
// any other trigger, and during a burst once per period instead of after
// every write. In a 3,000-node burst that was 937 reconciles of the
// PodNetwork side, each a no-op but for the usage report, which
// StatusInterval holds back to one write per interval anyway.
func (t *signals) networkSource(clk clock.PassiveClock, every time.Duration) source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		go func() {
			var last time.Time
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.network:
					q.Add(watches.PodNetworkRequest)
				case <-t.written:
					var wait time.Duration
					wait, last = nodeipamcore.Throttle(last, clk.Now(), every)
					if wait == 0 {
						q.Add(watches.PodNetworkRequest)
					} else {
						q.AddAfter(watches.PodNetworkRequest, wait) // the queue keeps the earliest
					}
				}
			}
		}()
		return nil
	})
}
