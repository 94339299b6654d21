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
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	autoscalecore "podnetwork.io/operator/internal/autoscale"
)

// writeSet writes the autoscaler's ranges: it creates AutoscaledRangeSet
// "default", or updates the one read with its resourceVersion. A stale
// read (a restart, a failover, a cache that has not seen the last write)
// therefore fails with a conflict or AlreadyExists instead of adding a
// second range, and the next reconcile sees the first.
func (r *Reconciler) writeSet(ctx context.Context, set *podnetworkv1alpha1.AutoscaledRangeSet, ranges []podnetworkv1alpha1.AutoscaledRange) error {
	if set == nil {
		set = &podnetworkv1alpha1.AutoscaledRangeSet{
			ObjectMeta: metav1.ObjectMeta{Name: podnetworkv1alpha1.AutoscaledRangeSetName},
			Spec:       &podnetworkv1alpha1.AutoscaledRangeSetSpec{Ranges: ranges},
		}
		if err := r.Client.Create(ctx, set); err != nil {
			return fmt.Errorf("creating AutoscaledRangeSet %s: %w", set.Name, err)
		}
		return nil
	}
	set = set.DeepCopy()
	set.Spec = &podnetworkv1alpha1.AutoscaledRangeSetSpec{Ranges: ranges}
	if err := r.Client.Update(ctx, set); err != nil {
		return fmt.Errorf("updating AutoscaledRangeSet %s: %w", set.Name, err)
	}
	return nil
}

// writeStatus applies status.autoscaling under the autoscaler's field
// manager (nil removes it) when it changed: at once when its meaning
// changed (or force), otherwise at most once per StatusInterval, returning
// when to look again.
func (r *Reconciler) writeStatus(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork, want *podnetworkv1alpha1.AutoscalingStatus, force bool) (time.Duration, error) {
	current := pn.Status.Autoscaling
	if equality.Semantic.DeepEqual(current, want) {
		return 0, nil
	}
	// StatusInterval is about load on the API server, in real time.
	now := time.Now()
	if !force && equality.Semantic.DeepEqual(meaning(current), meaning(want)) {
		if wait := r.StatusInterval - now.Sub(r.lastStatusWrite); wait > 0 {
			return wait, nil
		}
	}
	u, err := podnetworkv1alpha1.PodNetworkStatusApply(pn.Name, &podnetworkv1alpha1.PodNetworkStatus{Autoscaling: want})
	if err != nil {
		return 0, err
	}
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return 0, fmt.Errorf("applying PodNetwork status.autoscaling: %w", err)
	}
	r.lastStatusWrite = now
	return 0, nil
}

// meaning returns s without what only refreshes: the numbers and the
// messages that quote them.
func meaning(s *podnetworkv1alpha1.AutoscalingStatus) *podnetworkv1alpha1.AutoscalingStatus {
	if s == nil {
		return nil
	}
	out := s.DeepCopy()
	out.Message = ""
	for i := range out.Pools {
		p := &out.Pools[i]
		p.Message, p.CapacityBlocks, p.FreeBlocks, p.WaitingNodes, p.BlocksPerHour, p.LeadTimeSeconds, p.ExhaustionSeconds = "", nil, nil, nil, nil, nil, nil
		for j := range p.Conditions {
			p.Conditions[j].Message = ""
		}
	}
	return out
}

// emit records the events Decide asked for, after the writes. Each regards
// the PodNetwork with a field path naming the range (or the pool) it is
// about, and the resourceVersion it was decided from, so two events about
// different ranges, or a new problem, are separate events rather than one
// series with a count.
func (r *Reconciler) emit(pn *podnetworkv1alpha1.PodNetwork, evs []autoscalecore.Event) {
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
			FieldPath:       fmt.Sprintf("status.autoscaling.pools{%s}", ev.Pool),
		}
		if ev.Range != "" {
			regarding.FieldPath = fmt.Sprintf("status.ranges{%s}", ev.Range)
		}
		r.Recorder.Eventf(regarding, nil, ev.Type, ev.Reason, ev.Action, "%s", ev.Message)
	}
}
