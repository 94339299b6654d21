package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// nodeSource enqueues every waiting node whenever the state is kicked: the
// gate opened, the ranges or the recycle policy changed, or a block was
// freed. Kicks coalesce, and the queue de-duplicates nodes, so a burst of
// releases costs one pass over the waiting nodes per reconcile round, not
// one per release.
func (s *nodeIPAMState) nodeSource() source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-s.kickNodes:
					for _, name := range s.waitingNodes() {
						q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
					}
				}
			}
		}()
		return nil
	})
}

// networkSource enqueues PodNetwork "default" whenever the state is kicked,
// so usage, quarantine and acknowledgements follow allocations and releases.
func (s *nodeIPAMState) networkSource() source.Source {
	return source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-s.kickNetwork:
					q.Add(podNetworkRequest)
				}
			}
		}()
		return nil
	})
}
