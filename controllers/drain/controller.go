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

package drain

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/controllers/watches"
	draincore "podnetwork.io/operator/internal/drain"
	"podnetwork.io/operator/internal/slimnode"
	"podnetwork.io/operator/internal/statusedit"
)

// FieldManager is the server-side apply field manager drain assist writes
// PodNetwork status.drainAssist with.
const FieldManager = statusedit.DrainAssistManager

// eventSource is the reporting controller of drain assist's events.
const eventSource = "podnetwork-drain-assist"

// Reconciler runs drain assist on PodNetwork "default". It runs on the
// leader with a single worker (written is not shared).
type Reconciler struct {
	// Client writes (fenced by the lease, like every write of the
	// operator) and reads the PodNetwork from the cache.
	Client client.Client
	// APIReader reads from the API server: the marked nodes, the nodes it
	// may start, their pods (field selector spec.nodeName) and
	// PodDisruptionBudgets. No pod cache.
	APIReader client.Reader
	// Cache holds the nodes (watches.CachedNodes): their podCIDRs say who
	// holds Draining blocks.
	Cache        cache.Cache
	Recorder     events.EventRecorder
	Metrics      *metrics.Metrics
	PollInterval time.Duration
	// Clock defaults to the real clock.
	Clock clock.PassiveClock

	// written is the status.drainAssist this replica last applied to the
	// PodNetwork with UID writtenUID: drain assist is its only writer, so a
	// cached copy that differs is one the cache has not caught up with;
	// deriving events from it would announce them again. Memory only:
	// after a restart the API's copy is used.
	written    *podnetworkv1alpha1.DrainAssistStatus
	writtenUID types.UID
	nodeEvents watches.NodeEventCoalescer
}

// Drain assist reads PodNetwork "default" and writes its status.drainAssist.
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks,verbs=get;list;watch
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks/status,verbs=get;patch
// It labels, annotates, cordons and uncordons nodes (patch) and deletes
// them (handover Delete), and sets their PodCIDRReplacementNeeded condition
// (handover Condition).
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;patch;delete
// +kubebuilder:rbac:groups="",resources=nodes/status,verbs=patch
// It lists the pods of one node at a time (field selector spec.nodeName),
// evicts them, and reads the PodDisruptionBudget that refused one.
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list
// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile runs one step of drain assist.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := r.Client.Get(ctx, req.NamespacedName, pn); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if pn.Spec.DrainAssist.EffectiveMode() == podnetworkv1alpha1.DrainAssistOff {
		r.Metrics.DrainReport(nil)
		return reconcile.Result{}, r.writeStatus(ctx, pn, nil)
	}
	in, read, err := r.read(ctx, pn)
	if err != nil {
		return reconcile.Result{}, err
	}
	plan := draincore.Decide(in)
	var results map[string]draincore.NodeResult
	var actErr error
	if plan.Act {
		results, actErr = r.act(ctx, &plan, read)
	}
	rep := draincore.Summarize(in, plan, results)
	if err := r.writeStatus(ctx, pn, rep.Status); err != nil {
		// What was done is in the nodes: the next reconcile reads it back
		// and writes the status; only its events are lost.
		return reconcile.Result{}, errors.Join(actErr, err)
	}
	r.emit(pn, read, rep.Events)
	r.Metrics.DrainReport(rep.Status)
	if actErr != nil {
		return reconcile.Result{}, actErr
	}
	return reconcile.Result{RequeueAfter: rep.RequeueAfter}, nil
}

func (r *Reconciler) clock() clock.PassiveClock {
	if r.Clock == nil {
		return clock.RealClock{}
	}
	return r.Clock
}

// SetupWithManager watches PodNetwork "default" (its spec, and the phases
// of its ranges: not the status drain assist writes itself) and the nodes
// (arrivals, departures, podCIDRs and labels, coalesced like the
// lifecycle's). Pods are not watched: while nodes are left it polls.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	named := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == podnetworkv1alpha1.PodNetworkName })
	return ctrl.NewControllerManagedBy(mgr).
		Named("podnetwork-drain-assist").
		For(&podnetworkv1alpha1.PodNetwork{}, builder.WithPredicates(named, predicate.Funcs{UpdateFunc: podNetworkChanged})).
		Watches(&corev1.Node{}, r.nodeEvents.Handler(), builder.WithPredicates(watches.NodeUpdate(nodeChanged))).
		Complete(r)
}

// podNetworkChanged passes the updates of the PodNetwork drain assist acts
// on: its spec, its deletion, and the phases and cidrs of its ranges.
func podNetworkChanged(e event.UpdateEvent) bool {
	oldPN, ok1 := e.ObjectOld.(*podnetworkv1alpha1.PodNetwork)
	newPN, ok2 := e.ObjectNew.(*podnetworkv1alpha1.PodNetwork)
	if !ok1 || !ok2 {
		return true
	}
	type phase struct {
		name, cidr string
		phase      podnetworkv1alpha1.RangePhase
		invalid    podnetworkv1alpha1.RangeInvalidReason
	}
	phases := func(pn *podnetworkv1alpha1.PodNetwork) []phase {
		out := make([]phase, 0, len(pn.Status.Ranges))
		for _, rs := range pn.Status.Ranges {
			out = append(out, phase{rs.Name, rs.CIDR, rs.Phase, rs.InvalidReason})
		}
		return out
	}
	return oldPN.Generation != newPN.Generation || !oldPN.DeletionTimestamp.Equal(newPN.DeletionTimestamp) ||
		!slices.Equal(phases(oldPN), phases(newPN))
}

// nodeChanged reports whether what drain assist reads of a node in the
// cache changed: its podCIDRs or labels (its own marker among them).
func nodeChanged(oldNode, newNode *slimnode.Node) bool {
	return !slices.Equal(oldNode.Spec.PodCIDRs, newNode.Spec.PodCIDRs) || !maps.Equal(oldNode.Labels, newNode.Labels) ||
		!oldNode.DeletionTimestamp.Equal(newNode.DeletionTimestamp)
}
