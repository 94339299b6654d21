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
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	adaptercore "podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/internal/text"
)

// step moves the component one step towards the configuration the current
// ranges need, in this order, each step only once the previous one holds:
//
//  1. the ConfigMap key holds the desired configuration (written only while
//     no rollout is in progress);
//  2. the DaemonSet's pod template carries the hash of that configuration
//     (changed only while no rollout is in progress, with the time the
//     ConfigMap last changed recorded on the DaemonSet);
//  3. every pod of the DaemonSet was created from that template after that
//     time, and the DaemonSet reports the rollout complete;
//  4. for flannel, every node proved that flanneld restarted.
//
// Only then are the current phases accepted. Rejections do not wait.
func (r *Reconciler) step(ctx context.Context, s *scope) (outcome, error) {
	if s.pn == nil || len(s.pn.Status.Ranges) == 0 {
		// Nothing to configure, and writing a configuration without ranges
		// would wipe a cluster that is only being adopted.
		return outcome{ready: metav1.ConditionTrue, reason: adaptercore.ReasonNoPodNetwork, answer: true,
			message: fmt.Sprintf("PodNetwork %q tracks no range yet; the %s configuration is left as it is", podnetworkv1alpha1.PodNetworkName, r.Adapter.Name)}, nil
	}
	if s.cm == nil {
		return notReady(adaptercore.ReasonConfigMapNotFound, fmt.Sprintf("ConfigMap %s not found", r.ConfigMap.NamespacedName)), nil
	}
	current, ok := s.cm.Data[r.ConfigMap.Key]
	if !ok {
		return notReady(adaptercore.ReasonConfigMapNotFound, fmt.Sprintf("ConfigMap %s has no key %q", r.ConfigMap.NamespacedName, r.ConfigMap.Key)), nil
	}
	if s.ds == nil {
		return notReady(adaptercore.ReasonDaemonSetNotFound, fmt.Sprintf("DaemonSet %s not found", r.DaemonSet)), nil
	}
	plan, err := r.Adapter.Plan(current, s.input)
	if err != nil {
		return notReady(adaptercore.ReasonInvalidConfig, text.Message(fmt.Sprintf(
			"%s of ConfigMap %s cannot be managed (nothing was changed; fix it by hand): %v", r.ConfigMap.Key, r.ConfigMap.NamespacedName, err))), nil
	}
	if plan.RangeIndependent != "" {
		return outcome{ready: metav1.ConditionTrue, reason: adaptercore.ReasonRangeIndependent, message: plan.RangeIndependent,
			answer: true, applied: true, accepted: plan.RangeIndependent}, nil
	}

	out := outcome{ready: metav1.ConditionTrue, answer: true, rejected: plan.Decision.Rejected}
	problems := plan.Decision.Problems
	if plan.Invalid != "" {
		problems = append([]string{plan.Invalid}, problems...)
	}
	wait := func(reason, message string) (outcome, error) {
		out.reason, out.message = reason, withProblems(message, problems)
		return out, nil
	}
	if plan.Config != current {
		if !rollout.Settled(s.ds) {
			return wait(adaptercore.ReasonWaitingForRollout, fmt.Sprintf("%s must change to %s; waiting for the rollout in progress to finish first: %s",
				r.ConfigMap, plan.Summary, rollout.Describe(s.ds, s.pods)))
		}
		if err := r.writeConfig(ctx, s.cm, plan.Config); err != nil {
			return out, err
		}
		ctrl.LoggerFrom(ctx).Info("rewrote the component configuration", "adapter", r.Adapter.Name, "configMap", r.ConfigMap.String(), "value", plan.Summary)
		if plan.Invalid != "" {
			r.event(s.cm, corev1.EventTypeWarning, adaptercore.EventInvalidValue, "Rewrite",
				fmt.Sprintf("%s of %s: %s; the %s adapter replaced it (%s) and restarts DaemonSet %s", r.ConfigMap.Key, r.ConfigMap.NamespacedName,
					plan.Invalid, r.Adapter.Name, plan.Summary, r.DaemonSet))
		}
	}
	hash := adaptercore.ConfigHash(plan.Config)
	if rollout.TemplateHash(s.ds) != hash {
		if !rollout.Settled(s.ds) {
			return wait(adaptercore.ReasonWaitingForRollout, fmt.Sprintf("DaemonSet %s must restart with %s; waiting for the rollout in progress to finish first: %s",
				r.DaemonSet, plan.Summary, rollout.Describe(s.ds, s.pods)))
		}
		if err := r.startRollout(ctx, s.ds, hash, rollout.LastChange(s.cm)); err != nil {
			return out, err
		}
		ctrl.LoggerFrom(ctx).Info("started a rollout", "adapter", r.Adapter.Name, "daemonSet", r.DaemonSet.String(), "configHash", hash)
	}
	since, problem := rollout.TrustedChangedAt(s.ds, rollout.LastChange(s.cm))
	if problem != "" {
		problems = append(problems, problem)
	}
	if p := rollout.Check(s.ds, s.pods, hash, since); !p.Done {
		return wait(adaptercore.ReasonRollingOut, fmt.Sprintf("%s is written; %s", plan.Summary, p.Message))
	}
	if r.Adapter.Proof != nil {
		if waiting := r.Adapter.Proof(s.nodes, s.pods, since); len(waiting) > 0 {
			return wait(adaptercore.ReasonWaitingForNodes, fmt.Sprintf("%s is rolled out to DaemonSet %s; waiting for %d nodes to %s at or after %s: %s",
				plan.Summary, r.DaemonSet, len(waiting), r.Adapter.ProofWhat, since.UTC().Format(time.RFC3339), rollout.List(waiting)))
		}
	}
	out.applied = true
	out.accepted = fmt.Sprintf("%s runs on all %d pods of DaemonSet %s", plan.Summary, len(s.pods), r.DaemonSet)
	return wait(adaptercore.ReasonRunning, out.accepted)
}

// writeConfig sets the managed key of the ConfigMap. The patch carries the
// resourceVersion it was computed from, so a concurrent edit is never
// overwritten: it fails with a conflict and the next reconcile starts over
// from the edited text.
func (r *Reconciler) writeConfig(ctx context.Context, cm *corev1.ConfigMap, content string) error {
	base := cm.DeepCopy()
	cm.Data[r.ConfigMap.Key] = content
	if err := r.Client.Patch(ctx, cm, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}),
		client.FieldOwner(r.Adapter.FieldManager())); err != nil {
		return fmt.Errorf("writing %s: %w", r.ConfigMap, err)
	}
	return nil
}

// startRollout sets the configuration hash on the DaemonSet's pod template
// and records when the configuration changed, in one optimistic-locked patch.
func (r *Reconciler) startRollout(ctx context.Context, ds *appsv1.DaemonSet, hash string, changedAt time.Time) error {
	base := ds.DeepCopy()
	rollout.Start(ds, hash, changedAt)
	if err := r.Client.Patch(ctx, ds, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}),
		client.FieldOwner(r.Adapter.FieldManager())); err != nil {
		return fmt.Errorf("starting the rollout of DaemonSet %s: %w", r.DaemonSet, err)
	}
	return nil
}

// withProblems appends the problems that block new ranges to a Ready message.
func withProblems(message string, problems []string) string {
	if len(problems) == 0 {
		return message
	}
	return text.Message(message + ". Problem: " + strings.Join(problems, "; "))
}

// event records an event about obj, its note cut to what the API accepts.
func (r *Reconciler) event(obj runtime.Object, eventType, reason, action, note string) {
	if r.Recorder == nil {
		return
	}
	r.Recorder.Eventf(obj, nil, eventType, reason, action, "%s", text.Message(note))
}
