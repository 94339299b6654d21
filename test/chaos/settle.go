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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/nodeipam"
	"podnetwork.io/operator/test/framework"
)

// settlePoll is how often waitSettled looks.
const settlePoll = 250 * time.Millisecond

// waitSettled polls until the system has settled, up to timeout: it
// returns an error saying what was still missing.
func (r *run) waitSettled(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var missing string
	for time.Now().Before(deadline) {
		if missing = r.unsettled(ctx); missing == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(settlePoll):
		}
	}
	return fmt.Errorf("not settled after %s: %s", timeout, missing)
}

// unsettled says what keeps the system from having settled, "" when it
// has: a running replica holds the lease, the PodNetwork is Ready and not
// Degraded for its current generation, every declared range (spec and
// AutoscaledRangeSet) is Active and nothing else is tracked, every node has
// podCIDRs, and every required consumer (NodeIPAM and the adapters
// included) has accepted every range as Active.
func (r *run) unsettled(ctx context.Context) string {
	if r.ops.leader(ctx) == nil {
		return "no running replica holds the lease"
	}
	pn := &v1alpha1.PodNetwork{}
	if err := r.admin.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
		return err.Error()
	}
	for _, t := range []string{v1alpha1.ReadyCondition, v1alpha1.DegradedCondition} {
		want := metav1.ConditionTrue
		if t == v1alpha1.DegradedCondition {
			want = metav1.ConditionFalse
		}
		c := meta.FindStatusCondition(pn.Status.Conditions, t)
		if c == nil || c.Status != want || c.ObservedGeneration != pn.Generation {
			return fmt.Sprintf("PodNetwork condition %s is %v for generation %d", t, c, pn.Generation)
		}
	}
	declared, err := r.declared(ctx, pn)
	if err != nil {
		return err.Error()
	}
	if len(pn.Status.Ranges) != len(declared) {
		return fmt.Sprintf("%d ranges tracked for %d declared (spec and AutoscaledRangeSet)", len(pn.Status.Ranges), len(declared))
	}
	for _, name := range declared {
		if rs := pn.Status.FindRange(name); rs == nil || rs.Phase != v1alpha1.RangePhaseActive {
			return fmt.Sprintf("range %s is not Active", name)
		}
	}
	var nodes corev1.NodeList
	if err := r.admin.List(ctx, &nodes); err != nil {
		return err.Error()
	}
	for _, n := range nodes.Items {
		if len(n.Spec.PodCIDRs) == 0 {
			return fmt.Sprintf("node %s has no podCIDRs", n.Name)
		}
	}
	required := append([]string{nodeipam.ConsumerName}, consumerNames...)
	if r.cfg.Adapters {
		required = append(required, adapterConsumers...)
	}
	for _, name := range required {
		c := &v1alpha1.PodNetworkConsumer{}
		if err := r.admin.Get(ctx, client.ObjectKey{Name: name}, c); err != nil {
			return err.Error()
		}
		for _, rs := range pn.Status.Ranges {
			if !acked(c, rs) {
				return fmt.Sprintf("consumer %s has not accepted %s (%s)", name, rs.Name, rs.Phase)
			}
		}
	}
	return ""
}

// declared returns the names of the declared ranges: spec.ranges and the
// ranges of AutoscaledRangeSet default (a name in both is one range).
func (r *run) declared(ctx context.Context, pn *v1alpha1.PodNetwork) ([]string, error) {
	var names []string
	for _, sr := range pn.Spec.Ranges {
		names = append(names, sr.Name)
	}
	ars := &v1alpha1.AutoscaledRangeSet{}
	if err := r.admin.Get(ctx, client.ObjectKey{Name: v1alpha1.AutoscaledRangeSetName}, ars); err != nil {
		if apierrors.IsNotFound(err) {
			return names, nil
		}
		return nil, err
	}
	if ars.Spec != nil {
		for _, ar := range ars.Spec.Ranges {
			if !slices.Contains(names, ar.Name) {
				names = append(names, ar.Name)
			}
		}
	}
	return names, nil
}

func acked(c *v1alpha1.PodNetworkConsumer, rs v1alpha1.RangeStatus) bool {
	for _, a := range c.Status.Ranges {
		if a.Name == rs.Name && a.CIDR == rs.CIDR && a.Phase == rs.Phase && a.Result == v1alpha1.AckAccepted {
			return true
		}
	}
	return false
}

// flush writes a marker Lease and waits until the recorder has seen it, so
// the history holds every change made before.
func (r *run) flush(ctx context.Context, hist *framework.Recorder) error {
	marker := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: LeaseNamespace, Name: "chaos-end-marker"}}
	if err := retry(ctx, func() error { return client.IgnoreAlreadyExists(r.admin.Create(ctx, marker)) }); err != nil {
		return fmt.Errorf("writing the end marker: %w", err)
	}
	for range 600 {
		for _, ev := range hist.Events() {
			if ev.Object.GetName() == marker.Name {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the recorder did not see the end marker within a minute (history error: %w)", hist.Err())
}

// progress reports what the run does on stderr.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s chaos: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// harnessLog sends the in-process consumers' logs to harness.log in dir.
func harnessLog(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	f, err := os.Create(filepath.Join(dir, "harness.log"))
	if err != nil {
		return nil, fmt.Errorf("creating the harness log: %w", err)
	}
	logf.SetLogger(zap.New(zap.WriteTo(f)))
	return f, nil
}
