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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/api/consumer"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
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

// HoldPoll is how often a consumer that has not answered a range (held, or
// within Delay) looks again, and how often a rejection is re-evaluated.
const HoldPoll = 250 * time.Millisecond

// description is spec.description written at registration.
const description = "reference consumer (test/framework/refconsumer)"

// FieldManager is the server-side apply field manager the consumer writes
// its status with; the operator never writes these fields.
func (c *Consumer) FieldManager() string { return "podnetwork-consumer/" + c.Name }

// SetupWithManager registers the consumer's loop (consumer.Reconciler, as a
// plugin would) with a manager. Registration is left to Register, the admin
// or the chart.
func (c *Consumer) SetupWithManager(mgr ctrl.Manager) error {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	return (&consumer.Reconciler{
		Client:           c.Client,
		Name:             c.Name,
		FieldManager:     c.FieldManager(),
		SkipRegistration: true,
		Applied:          c.applied,
		ReadyMessage:     "reference consumer running",
		RecheckInterval:  HoldPoll,
		ControllerName:   "refconsumer-" + c.Name,
		Clock:            c.Clock,
	}).SetupWithManager(mgr)
}

// Register creates the consumer's PodNetworkConsumer if it does not exist,
// by server-side apply (consumer.Client.Register). A plugin whose RBAC does
// not let it create the object finds it already created by the admin or the
// chart.
func (c *Consumer) Register(ctx context.Context) error {
	cc := &consumer.Client{Client: c.Client, Reader: c.APIReader, Name: c.Name, FieldManager: c.FieldManager()}
	return cc.Register(ctx, podnetworkv1alpha1.PodNetworkConsumerSpec{Required: ptr.To(c.Required), Description: description})
}

// applied answers the current phase of rs once it has lasted Delay, unless
// Hold holds it; a Pending range is rejected when Reject says so.
func (c *Consumer) applied(_ context.Context, rs podnetworkv1alpha1.RangeStatus) (podnetworkv1alpha1.AckResult, string, error) {
	if c.Hold != nil && c.Hold(rs) {
		return "", "", nil
	}
	if ptr.Deref(rs.PhaseSince, metav1.Time{}).Add(c.Delay).After(c.Clock.Now()) {
		return "", "", nil
	}
	if rs.Phase == podnetworkv1alpha1.RangePhasePending && c.Reject != nil {
		if msg := c.Reject(rs); msg != "" {
			return podnetworkv1alpha1.AckRejected, msg, nil
		}
	}
	return podnetworkv1alpha1.AckAccepted, "applied", nil
}
