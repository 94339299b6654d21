// Package refconsumer is a small reference PodNetworkConsumer written the way
// docs/protocol.md tells a plugin author to write one, with nothing taken from
// the operator's internals: it registers its PodNetworkConsumer, watches
// PodNetwork "default", and acknowledges the current phase of every range by
// server-side apply of its own status under its own field manager.
//
// It acknowledges each phase Delay after the range entered it, and rejects a
// Pending range when Reject says so. The envtest suites, the e2e test and the
// demo use it as a stand-in for a real plugin.
package refconsumer

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Consumer is one reference consumer.
type Consumer struct {
	// Client reads the PodNetwork and writes the consumer's own object.
	Client client.Client
	// APIReader reads without the cache, for Register before the manager
	// starts (mgr.GetAPIReader()); Client when nil.
	APIReader client.Reader
	// Name of the PodNetworkConsumer.
	Name string
	// Required is set on registration (spec.required).
	Required bool
	// Delay is how long after a range entered its phase the consumer
	// acknowledges it, to make the wait visible.
	Delay time.Duration
	// Reject returns a non-empty message to reject a Pending range.
	Reject func(rs podnetworkv1alpha1.RangeStatus) string
	// Hold, when it returns true, keeps the consumer from answering the
	// current phase of rs for now (a slow consumer). It is asked again every
	// HoldPoll.
	Hold func(rs podnetworkv1alpha1.RangeStatus) bool
	// Clock defaults to the real clock.
	Clock clock.PassiveClock
}

// HoldPoll is how often a held consumer asks Hold again, and how often a
// rejection is re-evaluated.
const HoldPoll = 250 * time.Millisecond

// FieldManager is the server-side apply field manager the consumer writes
// its status with; the operator never writes these fields.
func (c *Consumer) FieldManager() string { return "podnetwork-consumer/" + c.Name }

// SetupWithManager registers the consumer with a manager. It reconciles on
// every change of PodNetwork "default" and of its own object.
func (c *Consumer) SetupWithManager(mgr ctrl.Manager) error {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	own := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: podnetworkv1alpha1.PodNetworkName}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("refconsumer-"+c.Name).
		For(&podnetworkv1alpha1.PodNetwork{}).
		Watches(&podnetworkv1alpha1.PodNetworkConsumer{}, own, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetName() == c.Name
		}))).
		Complete(c)
}

// Register creates the consumer's PodNetworkConsumer if it does not exist.
// A plugin whose RBAC only lets it write its own status (the chart's plugin
// ClusterRole) finds the object already created by the admin or the chart.
func (c *Consumer) Register(ctx context.Context) error {
	reader := c.APIReader
	if reader == nil {
		reader = c.Client
	}
	if err := reader.Get(ctx, client.ObjectKey{Name: c.Name}, &podnetworkv1alpha1.PodNetworkConsumer{}); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return fmt.Errorf("looking up PodNetworkConsumer %s: %w", c.Name, err)
	}
	obj := &podnetworkv1alpha1.PodNetworkConsumer{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name},
		Spec: podnetworkv1alpha1.PodNetworkConsumerSpec{
			Required:    ptr.To(c.Required),
			Description: "reference consumer (test/refconsumer)",
		},
	}
	if err := c.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("registering PodNetworkConsumer %s: %w", c.Name, err)
	}
	return nil
}

// Reconcile acknowledges every range whose phase has lasted Delay.
func (c *Consumer) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: podnetworkv1alpha1.PodNetworkName}, pn); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	self := &podnetworkv1alpha1.PodNetworkConsumer{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: c.Name}, self); err != nil {
		// Not registered (or deleted): a deleted consumer stops answering.
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}

	now := c.Clock.Now()
	var wait time.Duration
	acks := podnetworkv1alpha1.Acks(pn, self.Status.Ranges, metav1.NewTime(now), func(rs podnetworkv1alpha1.RangeStatus) (podnetworkv1alpha1.AckResult, string, bool) {
		if c.Hold != nil && c.Hold(rs) {
			if wait == 0 || HoldPoll < wait {
				wait = HoldPoll
			}
			return "", "", false
		}
		if left := rs.PhaseSince.Add(c.Delay).Sub(now); left > 0 {
			if wait == 0 || left < wait {
				wait = left
			}
			return "", "", false
		}
		if rs.Phase == podnetworkv1alpha1.RangePhasePending && c.Reject != nil {
			if msg := c.Reject(rs); msg != "" {
				// Re-evaluate rejections periodically: the rule may change.
				if wait == 0 || HoldPoll < wait {
					wait = HoldPoll
				}
				return podnetworkv1alpha1.AckRejected, msg, true
			}
		}
		return podnetworkv1alpha1.AckAccepted, "applied", true
	})

	status := podnetworkv1alpha1.PodNetworkConsumerStatus{
		ObservedGeneration: self.Generation,
		Conditions:         self.Status.Conditions,
		Ranges:             acks,
	}
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type:               podnetworkv1alpha1.ConsumerReadyCondition,
		Status:             metav1.ConditionTrue,
		Reason:             podnetworkv1alpha1.ConsumerRunningReason,
		Message:            "reference consumer running",
		ObservedGeneration: self.Generation,
	})
	if err := c.applyStatus(ctx, status); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: wait}, nil
}

// applyStatus server-side applies the consumer's whole status under its own
// field manager.
func (c *Consumer) applyStatus(ctx context.Context, status podnetworkv1alpha1.PodNetworkConsumerStatus) error {
	u, err := podnetworkv1alpha1.ConsumerStatusApply(c.Name, &status)
	if err != nil {
		return err
	}
	if err := c.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(c.FieldManager()), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying status of PodNetworkConsumer %s: %w", c.Name, err)
	}
	return nil
}
