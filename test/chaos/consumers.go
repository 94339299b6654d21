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

package chaos

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"podnetwork.io/operator/api/consumer"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/refconsumer"
)

// The consumers of a run, all required: the reference consumer and two
// black-box ones on the consumer client; the last one rejects some Pending
// ranges while faults are injected.
const (
	refConsumerName    = "chaos-ref"
	delayConsumerName  = "chaos-delay"
	rejectConsumerName = "chaos-reject"
)

// consumerNames are the required consumers a run registers (NodeIPAM's
// "node-ipam" comes on top).
var consumerNames = []string{refConsumerName, delayConsumerName, rejectConsumerName}

// rejectShare is the share of Pending ranges the rejecting consumer
// rejects while faults last.
const rejectShare = 0.3

// consumers runs the three consumers, each on its own manager as its own
// process would, against the apiserver directly (not through the proxy).
type consumers struct {
	seed     int64
	maxDelay time.Duration
	// faulting lets the rejecting consumer reject: faults are injected.
	faulting atomic.Bool
	// settled makes every consumer accept at once: the faults are over.
	settled atomic.Bool
	procs   []*framework.Process
}

// delay is how long consumer waits before it answers rs's current phase:
// the same for the same seed, consumer, range and phase.
func (c *consumers) delay(consumer string, rs v1alpha1.RangeStatus) time.Duration {
	return time.Duration(c.unit(consumer, "delay", rs) * float64(c.maxDelay))
}

// unit hashes the seed, consumer, purpose and the range's identity into
// [0, 1).
func (c *consumers) unit(consumer, purpose string, rs v1alpha1.RangeStatus) float64 {
	h := fnv.New64a()
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(c.seed))
	_, _ = h.Write(seed[:])
	_, _ = fmt.Fprintf(h, "%s %s %s %s %s %d", consumer, purpose, rs.Name, rs.CIDR, rs.Phase, rs.PhaseSince.Unix())
	return float64(h.Sum64()>>11) / float64(1<<53)
}

// waiting reports whether consumer still holds back its answer to rs.
func (c *consumers) waiting(consumer string, rs v1alpha1.RangeStatus) bool {
	if c.settled.Load() {
		return false
	}
	return time.Now().Before(rs.PhaseSince.Add(c.delay(consumer, rs)))
}

func (c *consumers) start(ctx context.Context, cfg *rest.Config) error {
	ref, err := framework.NewManager(cfg)
	if err != nil {
		return err
	}
	rc := &refconsumer.Consumer{
		Client:    ref.GetClient(),
		APIReader: ref.GetAPIReader(),
		Name:      refConsumerName,
		Required:  true,
		Hold:      func(rs v1alpha1.RangeStatus) bool { return c.waiting(refConsumerName, rs) },
		Clock:     clock.RealClock{},
	}
	if err := registerRetrying(ctx, rc.Register); err != nil {
		return err
	}
	if err := rc.SetupWithManager(ref); err != nil {
		return fmt.Errorf("setting up %s: %w", refConsumerName, err)
	}
	c.procs = append(c.procs, framework.Go(ctx, ref.Start))

	for _, name := range []string{delayConsumerName, rejectConsumerName} {
		mgr, err := framework.NewManager(cfg)
		if err != nil {
			return err
		}
		r := &consumer.Reconciler{
			Client:          mgr.GetClient(),
			Name:            name,
			FieldManager:    "podnetwork-consumer/" + name,
			Required:        true,
			Description:     "chaos consumer (test/chaos)",
			Applied:         c.applied(name),
			RecheckInterval: 250 * time.Millisecond,
			ControllerName:  "chaos-" + name,
		}
		if err := r.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up %s: %w", name, err)
		}
		c.procs = append(c.procs, framework.Go(ctx, mgr.Start))
	}
	return nil
}

// applied answers after the consumer's delay; the rejecting consumer
// rejects a share of Pending ranges until the faults are over.
func (c *consumers) applied(name string) func(context.Context, v1alpha1.RangeStatus) (v1alpha1.AckResult, string, error) {
	return func(_ context.Context, rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, error) {
		if c.waiting(name, rs) {
			return "", "", nil
		}
		if name == rejectConsumerName && rs.Phase == v1alpha1.RangePhasePending && c.faulting.Load() &&
			c.unit(name, "reject", rs) < rejectShare {
			return v1alpha1.AckRejected, "chaos: rejected until the faults are over", nil
		}
		return v1alpha1.AckAccepted, "applied", nil
	}
}

// registerRetrying registers until it succeeds: the apiserver may be
// restarting.
func registerRetrying(ctx context.Context, register func(context.Context) error) error {
	for {
		err := register(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

func (c *consumers) stop() error {
	var errs []error
	for _, p := range c.procs {
		errs = append(errs, p.Stop())
	}
	return errors.Join(errs...)
}
