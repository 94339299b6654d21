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

package adapters

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	adaptercore "podnetwork.io/operator/internal/adapters"
)

// Reconciler makes one component that does not speak the PodNetwork
// protocol (kube-proxy, flannel) a consumer: it writes the covering prefixes
// of the desired ranges into the component's ConfigMap, restarts the
// component's DaemonSet, and acknowledges the phases in its own
// PodNetworkConsumer once every pod runs the new configuration. Every step
// reads its state from the API (the ConfigMap, the DaemonSet's annotations,
// the pods), so a restarted or newly elected operator resumes where the last
// one stopped.
type Reconciler struct {
	Client client.Client
	// Cache holds the nodes, read without copying them (watches.CachedNodes).
	Cache cache.Cache
	Clock clock.PassiveClock
	// Recorder emits the events about the component's configuration; nil
	// emits nothing.
	Recorder events.EventRecorder

	// Adapter is the adapter's descriptor: its consumer name, field manager,
	// description, planner and proof.
	Adapter adaptercore.Descriptor
	// ConfigMap and DaemonSet are the component's configuration and workload.
	ConfigMap adaptercore.ConfigMapKey
	DaemonSet types.NamespacedName
	// Limits bound the covering prefixes.
	Limits adaptercore.Limits
	// NodeIPAM is true when the operator's NodeIPAM runs in this process
	// (adaptercore.Input.NodeIPAM).
	NodeIPAM bool
}

// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworks,verbs=get;list;watch
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworkconsumers,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=podnetwork.io,resources=podnetworkconsumers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=networking.k8s.io,resources=servicecidrs,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile reads the component's state, moves its configuration and rollout
// one step towards the current ranges, and writes the adapter's
// acknowledgements and Ready condition once.
func (r *Reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	self := &podnetworkv1alpha1.PodNetworkConsumer{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: r.Adapter.Name}, self); err != nil {
		// Not registered yet (registration triggers a reconcile) or deleted
		// by an admin: a deleted consumer stops answering.
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !self.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	s, err := r.read(ctx, self)
	if err != nil {
		return reconcile.Result{}, err
	}
	out, err := r.step(ctx, s)
	if err != nil {
		if apierrors.IsConflict(err) {
			// The object changed since it was read (usually the cache was
			// behind our own write); its watch event brings the new version
			// and another reconcile, so this is no failure to back off from.
			return reconcile.Result{RequeueAfter: conflictRetry}, nil
		}
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, r.writeStatus(ctx, s, out)
}

// conflictRetry is how soon a reconcile that lost an optimistic-lock race
// runs again if no watch event triggers it first.
const conflictRetry = time.Second

// outcome is what one reconcile concluded: the Ready condition and how to
// answer each range.
type outcome struct {
	ready   metav1.ConditionStatus
	reason  string
	message string
	// answer is false when the adapter cannot act (Ready=False): it then
	// neither accepts nor rejects anything and keeps its previous
	// acknowledgements.
	answer bool
	// applied is true when every pod runs the configuration that holds the
	// current ranges, so every current phase is accepted with accepted.
	applied  bool
	accepted string
	// rejected maps Pending ranges to their rejection messages.
	rejected map[string]string
	// notCarried maps the ranges accepted without being carried yet to
	// the note their acknowledgement starts with (Plan.NotCarried).
	notCarried map[string]string
}

func notReady(reason, message string) outcome {
	return outcome{ready: metav1.ConditionFalse, reason: reason, message: message}
}

func (r *Reconciler) clock() clock.PassiveClock {
	if r.Clock == nil {
		return clock.RealClock{}
	}
	return r.Clock
}
