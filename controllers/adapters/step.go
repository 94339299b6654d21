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
	"slices"
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
//     and of the plan's marks (Plan.Template), and the marks (changed only
//     while no rollout is in progress, with the time the ConfigMap last
//     changed recorded on the DaemonSet). When only the marks change, the
//     pods must first run, and prove, the template as it is (3 and 4);
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

	out := outcome{ready: metav1.ConditionTrue, answer: true, rejected: plan.Decision.Rejected, notCarried: plan.NotCarried}
	problems := plan.Decision.Problems
	if plan.Invalid != "" {
		problems = append([]string{plan.Invalid}, problems...)
	}
	wait := func(reason, message string) (outcome, error) {
		if plan.Note != "" {
			message += ". " + plan.Note
		}
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
	hash := adaptercore.RolloutHash(plan.Config, plan.Template)
	if rollout.TemplateHash(s.ds) != hash {
		if !rollout.Settled(s.ds) {
			return wait(adaptercore.ReasonWaitingForRollout, fmt.Sprintf("DaemonSet %s must restart with %s; waiting for the rollout in progress to finish first: %s",
				r.DaemonSet, plan.Summary, rollout.Describe(s.ds, s.pods)))
		}
		if running := adaptercore.RolloutHash(plan.Config, marksOf(s.ds, plan.Template)); rollout.TemplateHash(s.ds) == running {
			// Only the marks change: the pods restart once more, after
			// they run, and proved, the template as it is.
			since, problem := rollout.TrustedChangedAt(s.ds, rollout.LastChange(s.cm))
			if reason, message := r.rolledOut(s, plan.Summary, running, since); reason != "" {
				if problem != "" {
					problems = append(problems, problem)
				}
				return wait(reason, message)
			}
			// The pods run the configuration: its acknowledgements may
			// be written (those the marks wait for say so, Plan.NotCarried),
			// while the marks roll out.
			out.applied = true
			out.accepted = fmt.Sprintf("%s runs on all %d pods of DaemonSet %s", plan.Summary, len(s.pods), r.DaemonSet)
		}
		if err := r.startRollout(ctx, s.ds, hash, plan.Template, rollout.LastChange(s.cm)); err != nil {
			return out, err
		}
		ctrl.LoggerFrom(ctx).Info("started a rollout", "adapter", r.Adapter.Name, "daemonSet", r.DaemonSet.String(), "configHash", hash,
			"marks", marksText(plan.Template))
	}
	since, problem := rollout.TrustedChangedAt(s.ds, rollout.LastChange(s.cm))
	if problem != "" {
		problems = append(problems, problem)
	}
	if reason, message := r.rolledOut(s, plan.Summary, hash, since); reason != "" {
		return wait(reason, message)
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

// rolledOut returns "" when every pod of the DaemonSet runs the template
// with hash and, for an adapter with a proof, every node proved it at or
// after since; otherwise the reason and message of the wait.
func (r *Reconciler) rolledOut(s *scope, summary, hash string, since time.Time) (string, string) {
	if p := rollout.Check(s.ds, s.pods, hash, since); !p.Done {
		return adaptercore.ReasonRollingOut, fmt.Sprintf("%s is written; %s", summary, p.Message)
	}
	if r.Adapter.Proof != nil {
		if waiting := r.Adapter.Proof(s.nodes, s.pods, since); len(waiting) > 0 {
			return adaptercore.ReasonWaitingForNodes, fmt.Sprintf("%s is rolled out to DaemonSet %s; waiting for %d nodes to %s at or after %s: %s",
				summary, r.DaemonSet, len(waiting), r.Adapter.ProofWhat, since.UTC().Format(time.RFC3339), rollout.List(waiting))
		}
	}
	return "", ""
}

// marksOf returns the values the DaemonSet's pod template holds for the
// keys of marks.
func marksOf(ds *appsv1.DaemonSet, marks map[string]string) map[string]string {
	out := make(map[string]string, len(marks))
	for k := range marks {
		out[k] = ds.Spec.Template.Annotations[k]
	}
	return out
}

// marksText lists the marks that are set, for logs.
func marksText(marks map[string]string) string {
	var out []string
	for k, v := range marks {
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// startRollout sets the rollout hash and the marks (an empty one is
// removed) on the DaemonSet's pod template and records when the
// configuration changed, in one optimistic-locked patch: the marks and the
// hash that covers them land together or not at all.
func (r *Reconciler) startRollout(ctx context.Context, ds *appsv1.DaemonSet, hash string, marks map[string]string, changedAt time.Time) error {
	base := ds.DeepCopy()
	rollout.Start(ds, hash, changedAt)
	for k, v := range marks {
		if v == "" {
			delete(ds.Spec.Template.Annotations, k)
		} else {
			ds.Spec.Template.Annotations[k] = v
		}
	}
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
