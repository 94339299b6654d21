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

package consumer

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// DefaultRecheckInterval is how soon Reconciler looks again while a range
// is not applied yet or rejected, when RecheckInterval is zero.
const DefaultRecheckInterval = 10 * time.Second

// Reconciler is a complete consumer for controller-runtime: it registers
// the PodNetworkConsumer (unless SkipRegistration), and whenever PodNetwork
// "default" or the consumer's own object changes it configures (Configure),
// asks Applied about the current phase of every range offered, and writes
// the acknowledgements and the Ready condition in one server-side apply.
type Reconciler struct {
	// Client reads the PodNetwork and writes the consumer's own object.
	Client client.Client
	// Name is the PodNetworkConsumer's name, FieldManager the field manager
	// of its status (default: Name).
	Name         string
	FieldManager string

	// Required and Description are the spec written at registration, if
	// the object does not exist yet.
	Required    bool
	Description string
	// SkipRegistration leaves creating the PodNetworkConsumer to the admin
	// or the chart (or to an explicit Register).
	SkipRegistration bool

	// Configure, if set, makes the consumer's configuration hold exactly
	// desired, and drop the released ranges that are not desired. While it
	// fails, Ready is False and no acknowledgement changes.
	Configure func(ctx context.Context, desired, released []v1alpha1.RangeStatus) error
	// Applied answers the current phase of rs: AckAccepted once it is in
	// effect everywhere the consumer runs, AckRejected (with a message the
	// admin can act on) if it can never be, "" while it is not yet. An error
	// leaves that range's acknowledgement as it was and makes Ready False.
	Applied func(ctx context.Context, rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, error)

	// ReadyMessage is the Ready=True message (default "<name> runs and
	// applies ranges").
	ReadyMessage string
	// RecheckInterval is how soon to look again while a range is not
	// applied yet or is rejected (the cause may be fixed); default
	// DefaultRecheckInterval.
	RecheckInterval time.Duration
	// ControllerName names the controller (default "podnetworkconsumer-<name>").
	ControllerName string
	// Clock stamps acknowledgements; the real clock when nil.
	Clock clock.PassiveClock

	// reader is the reconciler's own cache (SetupWithManager), restricted
	// to PodNetwork "default" and PodNetworkConsumer Name; apiReader reads
	// the API server directly, for registration.
	reader    client.Reader
	apiReader client.Reader
}

// ConsumerClient returns the low-level client the reconciler registers
// and writes its status through; once SetupWithManager has run, its Reader
// is the manager's API reader.
func (r *Reconciler) ConsumerClient() *Client {
	fm := r.FieldManager
	if fm == "" {
		fm = r.Name
	}
	return &Client{Client: r.Client, Reader: r.apiReader, Name: r.Name, FieldManager: fm}
}

// Spec is the spec written at registration.
func (r *Reconciler) Spec() v1alpha1.PodNetworkConsumerSpec {
	return v1alpha1.PodNetworkConsumerSpec{Required: ptr.To(r.Required), Description: r.Description}
}

// SetupWithManager adds the controller and, unless SkipRegistration, the
// registration to mgr. Both run on the leader only.
//
// The reconciler reads PodNetwork "default" and its own PodNetworkConsumer
// through a cache of its own, added to mgr, whose informers list and watch
// with the field selector metadata.name=<name>: the apiserver authorizes
// such a list or watch against a role's resourceNames, so the plugin's
// ClusterRole may restrict both to those names (docs/protocol.md, RBAC).
// The manager's own cache, which other controllers may share, is not used
// for them and stays unrestricted; registration reads the API server
// directly (mgr.GetAPIReader()).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Applied == nil {
		return errors.New("consumer.Reconciler needs Applied")
	}
	own, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient: mgr.GetHTTPClient(),
		Scheme:     mgr.GetScheme(),
		Mapper:     mgr.GetRESTMapper(),
		ByObject: map[client.Object]cache.ByObject{
			&v1alpha1.PodNetwork{}:         {Field: fields.OneTermEqualSelector("metadata.name", v1alpha1.PodNetworkName)},
			&v1alpha1.PodNetworkConsumer{}: {Field: fields.OneTermEqualSelector("metadata.name", r.Name)},
		},
		// A read of any other kind fails instead of starting an informer.
		ReaderFailOnMissingInformer: true,
	})
	if err != nil {
		return fmt.Errorf("creating the cache of PodNetworkConsumer %s: %w", r.Name, err)
	}
	if err := mgr.Add(own); err != nil {
		return fmt.Errorf("adding the cache of PodNetworkConsumer %s: %w", r.Name, err)
	}
	r.reader, r.apiReader = own, mgr.GetAPIReader()
	if !r.SkipRegistration {
		if err := mgr.Add(r.ConsumerClient().Registration(r.Spec())); err != nil {
			return fmt.Errorf("adding the registration of PodNetworkConsumer %s: %w", r.Name, err)
		}
	}
	name := r.ControllerName
	if name == "" {
		name = "podnetworkconsumer-" + r.Name
	}
	toDefault := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: v1alpha1.PodNetworkName}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WatchesRawSource(source.Kind[client.Object](own, &v1alpha1.PodNetwork{}, toDefault)).
		WatchesRawSource(source.Kind[client.Object](own, &v1alpha1.PodNetworkConsumer{}, toDefault)).
		Complete(r)
}

// Reconcile configures the consumer for the current ranges and
// acknowledges what is in effect. Without PodNetwork "default" or without
// its own (live) PodNetworkConsumer, the consumer says nothing.
func (r *Reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	reader := r.reader
	if reader == nil {
		reader = r.Client
	}
	pn := &v1alpha1.PodNetwork{}
	if err := reader.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	self, err := getLive(ctx, reader, r.Name)
	if err != nil || self == nil {
		return reconcile.Result{}, err
	}
	c := r.ConsumerClient()
	clk := r.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	u, recheck, failed := r.update(ctx, pn)
	u.Now = metav1.NewTime(clk.Now())
	if err := c.WriteStatus(ctx, self, u); err != nil {
		return reconcile.Result{}, errors.Join(failed, err)
	}
	if failed != nil {
		return reconcile.Result{}, failed // retried with backoff; the error is logged by controller-runtime
	}
	if recheck {
		return reconcile.Result{RequeueAfter: r.recheckInterval()}, nil
	}
	return reconcile.Result{}, nil
}

// update configures and asks Applied about the current phase of every
// range offered. recheck is true while a range is not applied yet or is
// rejected; failed is the first error.
func (r *Reconciler) update(ctx context.Context, pn *v1alpha1.PodNetwork) (u Update, recheck bool, failed error) {
	u = Update{PodNetwork: pn, Ready: Running(r.readyMessage())}
	if r.Configure != nil {
		if err := r.Configure(ctx, v1alpha1.DesiredRanges(pn), v1alpha1.ReleasedRanges(pn)); err != nil {
			u.Ready = ApplyFailed(err.Error())
			u.Applied = func(v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) { return "", "", false }
			return u, false, fmt.Errorf("configuring %s: %w", r.Name, err)
		}
	}
	type answer struct {
		result  v1alpha1.AckResult
		message string
	}
	answers := map[string]answer{}
	for _, rs := range v1alpha1.RangesToAcknowledge(pn) {
		result, message, err := r.Applied(ctx, rs)
		switch {
		case err != nil:
			if failed == nil {
				failed = fmt.Errorf("applying range %s (%s): %w", rs.Name, rs.Phase, err)
			}
			continue
		case result == "":
			recheck = true
			continue
		case result == v1alpha1.AckRejected:
			recheck = true
		}
		answers[rs.Name] = answer{result, message}
	}
	if failed != nil {
		u.Ready = ApplyFailed(failed.Error())
	}
	u.Applied = func(rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
		a, ok := answers[rs.Name]
		return a.result, a.message, ok
	}
	return u, recheck, failed
}

func (r *Reconciler) readyMessage() string {
	if r.ReadyMessage != "" {
		return r.ReadyMessage
	}
	return r.Name + " runs and applies ranges"
}

func (r *Reconciler) recheckInterval() time.Duration {
	if r.RecheckInterval > 0 {
		return r.RecheckInterval
	}
	return DefaultRecheckInterval
}
