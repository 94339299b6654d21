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
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/declared"
	lifecyclecore "podnetwork.io/operator/internal/lifecycle"
	"podnetwork.io/operator/internal/statusedit"
)

// FieldManager is the server-side apply field manager the lifecycle
// controller writes PodNetwork status with. It owns every status field except
// ranges[].usage and quarantine, which NodeIPAM owns.
const FieldManager = statusedit.LifecycleManager

// staleRetryAfter is when a reconcile whose status write conflicted runs
// again, if nothing triggers it sooner. A conflict says the cache is behind
// the apiserver (it has not yet seen this controller's own previous write,
// or NodeIPAM's report), so the watch event of the newer version is on its
// way and normally reconciles within milliseconds; this is the safety net.
// A fixed delay, not the rate limiter's backoff: Result.Requeue is
// deprecated, and returning the conflict as an error would log an expected
// race at error level and count it in controller_runtime_reconcile_errors_total.
const staleRetryAfter = time.Second

// Reconciler moves every range of PodNetwork "default" through
// Pending → Active → Draining → Released as the consumers acknowledge each
// phase. It reads the PodNetwork, the consumers, the nodes and the
// ServiceCIDRs, lets the pure lifecyclecore.Compute decide, writes status once and
// then emits the events.
type Reconciler struct {
	Client client.Client
	// Cache holds the nodes, read without copying them (watches.CachedNodes).
	Cache      cache.Cache
	Recorder   events.EventRecorder
	StallAfter time.Duration
	// Clock defaults to the real clock; tests inject a fake one.
	Clock clock.PassiveClock
	// Metrics records the transitions; nil records nothing.
	Metrics *metrics.Metrics

	// nodeEvents waits after a node event in proportion to the nodes read.
	nodeEvents watches.NodeEventCoalescer
}

// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks/finalizers,verbs=update
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworkconsumers,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=podnetwork.io,resources=autoscaledrangesets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=networking.k8s.io,resources=servicecidrs,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile runs one step of the lifecycle.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := r.Client.Get(ctx, req.NamespacedName, pn); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	deleting := !pn.DeletionTimestamp.IsZero()
	// Add the finalizer first and return: the update triggers the next
	// reconcile, and a deletion can never race an unfinalized object.
	if !deleting && !controllerutil.ContainsFinalizer(pn, podnetworkv1alpha1.PodNetworkDrainFinalizer) {
		want := append(slices.Clone(pn.Finalizers), podnetworkv1alpha1.PodNetworkDrainFinalizer)
		return reconcile.Result{}, ignoreFinalizersChanged(setFinalizers(ctx, r.Client, pn, want))
	}

	in, consumers, err := r.readInput(ctx, pn)
	if err != nil {
		return reconcile.Result{}, err
	}
	out := lifecyclecore.Compute(in)

	written, err := r.writeStatus(ctx, pn, &out)
	if err != nil {
		return r.retryIfStale(ctx, pn, err)
	}
	// The status now shows what out decided, computed from the version the
	// apiserver still had: count and announce it, once.
	r.Metrics.ObserveTransitions(out.Transitions, consumers)
	r.emit(pn, out.Events)
	if statusedit.HasOthers(written.ManagedFields) {
		// Compute has dealt with what other clients set; hand the fields
		// back, so the operator's next applies set or drop them, and the
		// edit is not reported again.
		if err := r.takeBack(ctx, written, &out); err != nil {
			return r.retryIfStale(ctx, pn, err)
		}
	}
	if err := r.labelConsumers(ctx, consumers, out.Consumers); err != nil {
		return reconcile.Result{}, err
	}

	if deleting && out.FinalizerRemovable && controllerutil.ContainsFinalizer(pn, podnetworkv1alpha1.PodNetworkDrainFinalizer) {
		want := slices.DeleteFunc(slices.Clone(pn.Finalizers), func(f string) bool { return f == podnetworkv1alpha1.PodNetworkDrainFinalizer })
		if err := setFinalizers(ctx, r.Client, pn, want); err != nil {
			return reconcile.Result{}, ignoreFinalizersChanged(err)
		}
		ctrl.LoggerFrom(ctx).Info("every range released; PodNetwork may be deleted")
	}
	return reconcile.Result{RequeueAfter: out.RequeueAfter}, nil
}

// retryIfStale returns err, unless it is a Conflict: the PodNetwork changed
// since pn was read, so what was computed from pn is dropped, unannounced,
// and computed again from a newer read (see staleRetryAfter). That is an
// expected race, visible at debug level, not an error.
func (r *Reconciler) retryIfStale(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork, err error) (reconcile.Result, error) {
	if !apierrors.IsConflict(err) {
		return reconcile.Result{}, err
	}
	ctrl.LoggerFrom(ctx).V(1).Info("PodNetwork changed since it was read; computing its status again",
		"readResourceVersion", pn.ResourceVersion, "conflict", err.Error())
	return reconcile.Result{RequeueAfter: staleRetryAfter}, nil
}

// readInput lists everything lifecyclecore.Compute needs.
func (r *Reconciler) readInput(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork) (lifecyclecore.Input, []podnetworkv1alpha1.PodNetworkConsumer, error) {
	var consumers podnetworkv1alpha1.PodNetworkConsumerList
	if err := r.Client.List(ctx, &consumers); err != nil {
		return lifecyclecore.Input{}, nil, fmt.Errorf("listing PodNetworkConsumers: %w", err)
	}
	// lifecyclecore.NodeFrom copies out the few fields it reads, so the nodes are
	// the cache's own, not copied per reconcile.
	nodes, err := watches.CachedNodes(ctx, r.Cache)
	if err != nil {
		return lifecyclecore.Input{}, nil, err
	}
	r.nodeEvents.Read(len(nodes))
	var serviceCIDRs networkingv1.ServiceCIDRList
	if err := r.Client.List(ctx, &serviceCIDRs); err != nil {
		return lifecyclecore.Input{}, nil, fmt.Errorf("listing ServiceCIDRs: %w", err)
	}
	set, err := watches.AutoscaledRangeSet(ctx, r.Client)
	if err != nil {
		return lifecyclecore.Input{}, nil, err
	}
	in := lifecyclecore.InputFrom(lifecyclecore.Objects{
		PodNetwork:   pn,
		Declared:     declared.Union(pn.Spec.Ranges, set),
		Consumers:    consumers.Items,
		Nodes:        nodes,
		ServiceCIDRs: serviceCIDRs.Items,
	}, r.clock().Now(), r.StallAfter)
	return in, consumers.Items, nil
}

// emit records the events Compute asked for, after the status write
// succeeded, so an event never announces a state the API does not show, nor
// one computed from a read the apiserver had moved past.
//
// The events.k8s.io recorder folds events with the same regarding object,
// related object, reason and action into one series and keeps the first
// note only. So an event about a range regards the PodNetwork with a field
// path naming that range, and one about a consumer is related to it: two
// ranges activated together are two events, not one with a count of 2.
// The regarding reference also carries the resourceVersion the change was
// computed from, which the status write that carried it was conditional on:
// Compute derives events only from changes (a transition, a new rejection
// message, a new problem), every such change is a successful status write
// from that version, so no two emitting reconciles read the same version,
// and a changed note is a new event instead of a higher count on the old
// note.
func (r *Reconciler) emit(pn *podnetworkv1alpha1.PodNetwork, evs []lifecyclecore.Event) {
	if r.Recorder == nil {
		return
	}
	for _, ev := range evs {
		regarding := &corev1.ObjectReference{
			APIVersion:      podnetworkv1alpha1.GroupVersion.String(),
			Kind:            "PodNetwork",
			Name:            pn.Name,
			UID:             pn.UID,
			ResourceVersion: pn.ResourceVersion,
		}
		if ev.Range != "" {
			regarding.FieldPath = fmt.Sprintf("status.ranges{%s}", ev.Range)
		}
		var related runtime.Object
		if ev.Consumer != "" {
			related = &corev1.ObjectReference{
				APIVersion: podnetworkv1alpha1.GroupVersion.String(),
				Kind:       "PodNetworkConsumer",
				Name:       ev.Consumer,
			}
		}
		r.Recorder.Eventf(regarding, related, ev.Type, ev.Reason, ev.Action, "%s", ev.Message)
	}
}

func (r *Reconciler) clock() clock.PassiveClock {
	if r.Clock == nil {
		return clock.RealClock{}
	}
	return r.Clock
}

// SetupWithManager watches the PodNetwork and everything its lifecycle
// depends on: the autoscaler's ranges (declared with spec.ranges),
// consumers (their acknowledgements), nodes (their podCIDRs hold Draining
// ranges; their addresses must stay outside every range) and ServiceCIDRs
// (no range may overlap them).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toDefault := watches.EnqueuePodNetwork()
	return ctrl.NewControllerManagedBy(mgr).
		Named("podnetwork-lifecycle").
		For(&podnetworkv1alpha1.PodNetwork{}).
		Watches(&podnetworkv1alpha1.AutoscaledRangeSet{}, toDefault).
		Watches(&podnetworkv1alpha1.PodNetworkConsumer{}, toDefault).
		Watches(&corev1.Node{}, r.nodeEvents.Handler(), builder.WithPredicates(watches.NodeUpdate(watches.NodeNetworkChanged))).
		Watches(&networkingv1.ServiceCIDR{}, toDefault).
		Complete(r)
}
