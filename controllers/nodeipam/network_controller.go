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
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/declared"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
)

// NetworkReconciler is NodeIPAM's side of the PodNetwork: it applies
// the ranges to the allocator, reports usage, quarantine and conflicts into
// the PodNetwork status, and acknowledges range phases as the
// PodNetworkConsumer "node-ipam". It runs on the leader only, after the
// start-up rebuild, with a single worker (lastWrite is not shared).
type NetworkReconciler struct {
	// Client reads from the cache and writes.
	Client client.Client
	// Reader reads the PodNetwork from the API server when a status write
	// raced the lifecycle purging a range.
	Reader client.Reader
	// StatusInterval is the shortest time between two status writes.
	StatusInterval time.Duration
	// Clock measures StatusInterval, which is about load on the API server
	// in real time; it defaults to the real clock. NodeIPAM's own clock
	// (recycle delays, event backoff) may be a fake one in tests.
	Clock clock.PassiveClock

	state     *nodeipamcore.State
	signals   *signals
	record    *recordStore
	lastWrite time.Time
	lastTrim  time.Time
}

// Reconcile brings the allocator, the reported status and the
// acknowledgements in line with PodNetwork "default". The status is written
// before the acknowledgements: NodeIPAM gives up the usage of a Released
// range before acknowledging Released, so the lifecycle can purge it.
func (r *NetworkReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if !r.state.IsOpen() {
		return reconcile.Result{}, nil // the rebuild kicks this when it finished
	}
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := r.Client.Get(ctx, req.NamespacedName, pn); err != nil {
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, fmt.Errorf("reading PodNetwork %s: %w", req.Name, err)
		}
		return reconcile.Result{}, r.sync(ctx, nil)
	}
	if err := r.sync(ctx, pn); err != nil {
		return reconcile.Result{}, err
	}
	requeue, err := r.writeReport(ctx, pn)
	if err != nil {
		return reconcile.Result{}, err
	}
	trimAgain, err := r.syncRecord(ctx)
	if errors.Is(err, nodeipamcore.ErrRecordRewritten) {
		return reconcile.Result{}, nil // the recovery reconciles this side when it reopens the state
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	if err := r.writeAcks(ctx, pn); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: soonest(requeue, trimAgain)}, nil
}

// syncRecord trims the issued-block record of the chunks that are free past
// their delay, at most once per StatusInterval like the status, and writes
// it when it differs from what the API holds (a trim, or blocks adopted
// whose write failed). It returns when to trim again.
func (r *NetworkReconciler) syncRecord(ctx context.Context) (time.Duration, error) {
	var next time.Duration
	if wait := r.StatusInterval - r.Clock.Since(r.lastTrim); wait > 0 {
		next = wait
	} else {
		r.lastTrim = r.Clock.Now()
		_, next = r.state.TrimRecord()
	}
	return next, r.record.sync(ctx)
}

// soonest returns the shorter of two requeue delays, zero meaning none.
func soonest(a, b time.Duration) time.Duration {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// sync applies the PodNetwork (nil when there is none), with the ranges the
// autoscaler declared, to the state, logs the ranges it cannot use and
// retries the waiting nodes when the ranges, the policy or the candidates
// changed.
func (r *NetworkReconciler) sync(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork) error {
	set, err := watches.AutoscaledRangeSet(ctx, r.Client)
	if err != nil {
		return err
	}
	res, err := r.state.Sync(declared.View(pn, set))
	if err != nil {
		return err
	}
	logConfigProblems(ctx, res.Problems)
	if res.Retry {
		ctrl.LoggerFrom(ctx).V(1).Info("applied PodNetwork to the node allocator",
			"ranges", len(res.Config.Ranges), "candidates", len(res.Config.Candidates),
			"recycleDelay", res.Config.RecycleDelay, "whenExhausted", res.Config.WhenExhausted.String(),
			"familyPolicy", res.Config.FamilyPolicy, "awaited", len(res.Config.Awaited))
		r.signals.retryNodes()
	}
	return nil
}

// logConfigProblems logs the ranges NodeIPAM cannot use and the invalid
// nodeSelector terms when they appear or change. They are not errors of the
// reconcile: the range is rejected (Pending) or its terms match no node.
func logConfigProblems(ctx context.Context, problems []nodeipamcore.ConfigProblem) {
	log := ctrl.LoggerFrom(ctx)
	for _, p := range problems {
		if p.Selector {
			log.Info("range nodeSelector has invalid terms, which match no node", "range", p.Range, "reason", p.Reason)
		} else {
			log.Info("range cannot be used by the node allocator", "range", p.Range, "reason", p.Reason)
		}
	}
}

// writtenThrottle is the shortest time between two reconciles of the
// PodNetwork side that writes of podCIDRs trigger: a second, and never
// longer than StatusInterval, which holds the usage report back to one
// write per interval (with an interval of 0, every write reconciles, as
// before).
func writtenThrottle(statusInterval time.Duration) time.Duration {
	return min(time.Second, statusInterval)
}

// SetupWithManager watches PodNetwork "default", the autoscaler's ranges
// (a range's nodeSelector is in its declaration), NodeIPAM's own
// PodNetworkConsumer and the state's signal.
func (r *NetworkReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	toDefault := watches.EnqueuePodNetwork()
	named := func(name string) predicate.Predicate {
		return predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == name })
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("node-ipam-podnetwork").
		For(&podnetworkv1alpha1.PodNetwork{}, builder.WithPredicates(named(podnetworkv1alpha1.PodNetworkName))).
		Watches(&podnetworkv1alpha1.PodNetworkConsumer{}, toDefault, builder.WithPredicates(named(ConsumerName))).
		Watches(&podnetworkv1alpha1.AutoscaledRangeSet{}, toDefault).
		WatchesRawSource(r.signals.networkSource(r.Clock, writtenThrottle(r.StatusInterval))).
		Complete(r)
}
