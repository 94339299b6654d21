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

package autoscale

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/watches"
	autoscalecore "podnetwork.io/operator/internal/autoscale"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/statusedit"
)

// FieldManager is the server-side apply field manager the autoscaler writes
// PodNetwork status.autoscaling with.
const FieldManager = statusedit.AutoscalerManager

// eventSource is the reporting controller of the autoscaler's events.
const eventSource = "podnetwork-autoscaler"

// Reconciler runs the autoscaler on PodNetwork "default". It runs on the
// leader with a single worker (lastStatusWrite is not shared).
type Reconciler struct {
	Client client.Client
	// Cache holds the nodes, read without copying them (watches.CachedNodes).
	Cache          cache.Cache
	Recorder       events.EventRecorder
	Metrics        *metrics.Metrics
	StatusInterval time.Duration
	// Clock defaults to the real clock.
	Clock clock.PassiveClock

	lastStatusWrite time.Time
	// written is the status.autoscaling this replica last applied to the
	// PodNetwork with UID writtenUID. The autoscaler is the only writer of
	// that field, so a cached copy that differs from it is one the cache
	// has not caught up with yet (another writer's change to the PodNetwork
	// arrived first); deciding from it would announce the same transition
	// again. It is memory only: after a restart the API's copy is used.
	written    *podnetworkv1alpha1.AutoscalingStatus
	writtenUID types.UID
	// nodeEvents waits after a node event in proportion to the nodes read.
	nodeEvents watches.NodeEventCoalescer
}

// +kubebuilder:rbac:groups=podnetwork.io,resources=autoscaledrangesets,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks,verbs=get;list;watch
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks/status,verbs=get;patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=networking.k8s.io,resources=servicecidrs,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile runs one step of the autoscaler.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := r.Client.Get(ctx, req.NamespacedName, pn); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	// A PodNetwork being deleted drains every range, the autoscaler's too;
	// its set stays, so a PodNetwork created again (a restore) gets them back.
	if !pn.DeletionTimestamp.IsZero() || (!pn.Spec.Autoscaling.IsSet() && pn.Status.Autoscaling == nil) {
		return reconcile.Result{}, nil
	}
	set, err := watches.AutoscaledRangeSet(ctx, r.Client)
	if err != nil {
		return reconcile.Result{}, err
	}
	in, err := r.readInput(ctx, pn, set)
	if err == nil && r.written != nil && r.writtenUID == pn.UID {
		in.Status.Autoscaling = r.written.DeepCopy()
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	out := autoscalecore.Decide(in)

	if out.SetChanged {
		if err := r.writeSet(ctx, set, out.Set); err != nil {
			return reconcile.Result{}, err
		}
		for _, s := range out.Steps {
			ctrl.LoggerFrom(ctx).Info("autoscaled", "pool", s.Pool, "action", s.Action)
		}
	}
	requeue, statusErr := r.writeStatus(ctx, pn, out.Status, out.SetChanged)
	if statusErr != nil && !out.SetChanged {
		return reconcile.Result{}, statusErr
	}
	// The set is written: what it announces is true even if the status
	// write failed (the next reconcile writes the status).
	r.emit(pn, out.Events)
	for _, s := range out.Steps {
		r.Metrics.AutoscalerStep(s.Pool, s.Action, s.Recommended)
	}
	if statusErr != nil {
		return reconcile.Result{}, statusErr
	}
	if requeue > 0 && requeue < out.RequeueAfter {
		return reconcile.Result{RequeueAfter: requeue}, nil
	}
	return reconcile.Result{RequeueAfter: out.RequeueAfter}, nil
}

// readInput lists everything Decide needs.
func (r *Reconciler) readInput(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork, set *podnetworkv1alpha1.AutoscaledRangeSet) (autoscalecore.Input, error) {
	// The loop below copies out the few fields it reads, so the nodes are the
	// cache's own, not copied per reconcile.
	nodes, err := watches.CachedNodes(ctx, r.Cache)
	if err != nil {
		return autoscalecore.Input{}, err
	}
	r.nodeEvents.Read(len(nodes))
	var serviceCIDRs networkingv1.ServiceCIDRList
	if err := r.Client.List(ctx, &serviceCIDRs); err != nil {
		return autoscalecore.Input{}, fmt.Errorf("listing ServiceCIDRs: %w", err)
	}
	in := autoscalecore.Input{
		Now:         r.clock().Now(),
		Generation:  pn.Generation,
		Autoscaling: pn.Spec.Autoscaling,
		Spec:        pn.Spec.Ranges,
		Status:      pn.Status,
		Nodes:       make([]autoscalecore.Node, 0, len(nodes)),
	}
	if set != nil && set.Spec != nil {
		in.Set = set.Spec.Ranges
	}
	for _, n := range nodes {
		// Addresses that do not parse are the lifecycle's to report
		// (MalformedInput); carving only needs to avoid the ones that do.
		addrs, _ := cidr.NodeAddresses(n.Status.Addresses)
		in.Nodes = append(in.Nodes, autoscalecore.Node{
			Name: n.Name, Labels: n.Labels, Created: n.CreationTimestamp.Time, Deleting: !n.DeletionTimestamp.IsZero(),
			PodCIDRs: n.ObservedPodCIDRs().Prefixes, Addresses: addrs,
		})
	}
	for i := range serviceCIDRs.Items {
		in.ServiceCIDRs = append(in.ServiceCIDRs, cidr.ParseObserved(serviceCIDRs.Items[i].Spec.CIDRs)...)
	}
	return in, nil
}

func (r *Reconciler) clock() clock.PassiveClock {
	if r.Clock == nil {
		return clock.RealClock{}
	}
	return r.Clock
}

// SetupWithManager watches PodNetwork "default" (its spec.autoscaling, the
// phases and usage in its status), the autoscaler's own set, the nodes
// (arrivals, podCIDRs, addresses, labels; coalesced like the lifecycle's)
// and the ServiceCIDRs.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toDefault := watches.EnqueuePodNetwork()
	named := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == podnetworkv1alpha1.PodNetworkName })
	return ctrl.NewControllerManagedBy(mgr).
		Named("podnetwork-autoscaler").
		For(&podnetworkv1alpha1.PodNetwork{}, builder.WithPredicates(named)).
		Watches(&podnetworkv1alpha1.AutoscaledRangeSet{}, toDefault).
		Watches(&corev1.Node{}, r.nodeEvents.Handler(), builder.WithPredicates(watches.NodeUpdate(watches.NodeAutoscalingChanged))).
		Watches(&networkingv1.ServiceCIDR{}, toDefault).
		Complete(r)
}
