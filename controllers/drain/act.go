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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	draincore "podnetwork.io/operator/internal/drain"
)

// act carries out the plan's steps, node by node, each node's in order
// until one fails. It returns what happened, and the failures that are
// not a node or pod that changed or went meanwhile (those the next
// reconcile sees and decides again).
func (r *Reconciler) act(ctx context.Context, plan *draincore.Plan, snap *snapshot) (map[string]draincore.NodeResult, error) {
	results := map[string]draincore.NodeResult{}
	var errs []error
	for i := range plan.Nodes {
		np := &plan.Nodes[i]
		node := snap.nodes[np.Name]
		if len(np.Steps) == 0 || node == nil {
			continue
		}
		res, err := r.actOn(ctx, np, node.DeepCopy(), snap)
		results[np.Name] = res
		if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return results, errors.Join(errs...)
}

func (r *Reconciler) actOn(ctx context.Context, np *draincore.NodePlan, node *corev1.Node, snap *snapshot) (draincore.NodeResult, error) {
	var res draincore.NodeResult
	for _, step := range np.Steps {
		switch step {
		case draincore.StepStart:
			if err := r.start(ctx, node, np.Cordon); err != nil {
				res.StartError = err.Error()
				return res, err
			}
			res.Started = true
		case draincore.StepEvict:
			res.Evictions = r.evict(ctx, np.Evict, snap)
		case draincore.StepHandOver:
			if err := r.handOver(ctx, node, np); err != nil {
				res.HandOverError = err.Error()
				return res, err
			}
			res.HandedOver = true
		case draincore.StepRelease:
			if err := r.release(ctx, node, np); err != nil {
				res.ReleaseError = err.Error()
				return res, err
			}
			res.Released = true
		}
	}
	return res, nil
}

// start marks the node (label, start time) and cordons it unless it was
// cordoned already, in one merge patch conditional on the resourceVersion
// read: a node that changed since is left for the next reconcile.
func (r *Reconciler) start(ctx context.Context, node *corev1.Node, cordon bool) error {
	orig := node.DeepCopy()
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	node.Labels[podnetworkv1alpha1.DrainAssistNodeLabel] = "true"
	node.Annotations[podnetworkv1alpha1.DrainAssistStartedAnnotation] = r.clock().Now().UTC().Format(time.RFC3339)
	if cordon {
		node.Annotations[podnetworkv1alpha1.DrainAssistCordonedAnnotation] = "true"
		node.Spec.Unschedulable = true
	}
	if err := r.Client.Patch(ctx, node, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("cordoning node %s: %w", node.Name, err)
	}
	return nil
}

// evict asks the Eviction API to evict each pod, the pod's UID as a
// precondition so that a pod of the same name created since is not
// evicted.
func (r *Reconciler) evict(ctx context.Context, pods []draincore.Pod, snap *snapshot) []draincore.Eviction {
	out := make([]draincore.Eviction, 0, len(pods))
	for _, p := range pods {
		pod := snap.pods[p.Key()]
		if pod == nil {
			continue
		}
		uid := pod.UID
		err := r.Client.SubResource("eviction").Create(ctx, pod, &policyv1.Eviction{
			ObjectMeta:    metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name},
			DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}},
		})
		ev := r.evictionOutcome(ctx, pod, err)
		ev.Pod = p
		r.Metrics.DrainEvicted(ev.Outcome)
		out = append(out, ev)
	}
	return out
}

// evictionOutcome reads the Eviction API's answer: 429 (or any refusal a
// PodDisruptionBudget causes) is Blocked, naming the budget; a pod gone or
// replaced is Gone.
func (r *Reconciler) evictionOutcome(ctx context.Context, pod *corev1.Pod, err error) draincore.Eviction {
	if err == nil {
		return draincore.Eviction{Outcome: draincore.Evicted}
	}
	var causes []metav1.StatusCause
	var st apierrors.APIStatus
	if errors.As(err, &st) && st.Status().Details != nil {
		causes = st.Status().Details.Causes
	}
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return draincore.Eviction{Outcome: draincore.Gone}
	case apierrors.IsTooManyRequests(err) || draincore.HasBudgetCause(causes):
		name := draincore.BudgetFromCauses(causes)
		if name == "" {
			name = r.blockingBudget(ctx, pod)
		}
		if name != "" {
			name = pod.Namespace + "/" + name
		}
		return draincore.Eviction{Outcome: draincore.Blocked, PDB: name}
	}
	return draincore.Eviction{Outcome: draincore.Failed, Message: err.Error()}
}

// blockingBudget names the PodDisruptionBudget of the pod's namespace that
// selects it, when the Eviction API's answer did not; "" if it cannot tell.
func (r *Reconciler) blockingBudget(ctx context.Context, pod *corev1.Pod) string {
	var pdbs policyv1.PodDisruptionBudgetList
	if err := r.APIReader.List(ctx, &pdbs, client.InNamespace(pod.Namespace)); err != nil {
		return ""
	}
	return draincore.BlockingBudget(pod, pdbs.Items)
}

// handOver deletes the drained node (handover Delete; only a node Karpenter
// manages is planned for it) or sets its PodCIDRReplacementNeeded
// condition (handover Condition).
func (r *Reconciler) handOver(ctx context.Context, node *corev1.Node, np *draincore.NodePlan) error {
	if np.Handover == podnetworkv1alpha1.HandoverDelete {
		// Conditional on the UID: never a node of the same name created since.
		if err := r.Client.Delete(ctx, node, client.Preconditions{UID: &node.UID}); err != nil {
			return fmt.Errorf("deleting node %s: %w", node.Name, err)
		}
		return nil
	}
	now := metav1.NewTime(r.clock().Now())
	return r.patchCondition(ctx, node, map[string]any{
		"type": podnetworkv1alpha1.PodCIDRReplacementNeededCondition, "status": corev1.ConditionTrue,
		"reason": cmp.Or(np.ConditionReason, podnetworkv1alpha1.PodCIDRRangeDrainingReason), "message": np.ConditionMessage,
		"lastTransitionTime": now, "lastHeartbeatTime": now,
	})
}

// release removes what drain assist wrote on the node: its condition, then
// its label and annotations, and uncordons it if drain assist had cordoned
// it; the last patch is conditional on the resourceVersion read.
func (r *Reconciler) release(ctx context.Context, node *corev1.Node, np *draincore.NodePlan) error {
	if np.RemoveCondition {
		if err := r.patchCondition(ctx, node, map[string]any{"type": podnetworkv1alpha1.PodCIDRReplacementNeededCondition, "$patch": "delete"}); err != nil {
			return err
		}
	}
	orig := node.DeepCopy()
	delete(node.Labels, podnetworkv1alpha1.DrainAssistNodeLabel)
	delete(node.Annotations, podnetworkv1alpha1.DrainAssistStartedAnnotation)
	delete(node.Annotations, podnetworkv1alpha1.DrainAssistCordonedAnnotation)
	if np.Uncordon {
		node.Spec.Unschedulable = false
	}
	if err := r.Client.Patch(ctx, node, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("releasing node %s: %w", node.Name, err)
	}
	return nil
}

// patchCondition patches one condition of the node's status by strategic
// merge (conditions merge by type, so the kubelet's are untouched). The
// node is updated in place with the answer, so a later patch is
// conditional on the new resourceVersion.
func (r *Reconciler) patchCondition(ctx context.Context, node *corev1.Node, condition map[string]any) error {
	body, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []any{condition}}})
	if err != nil {
		return fmt.Errorf("encoding the condition patch: %w", err)
	}
	if err := r.Client.Status().Patch(ctx, node, client.RawPatch(types.StrategicMergePatchType, body), client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("patching condition %s of node %s: %w", podnetworkv1alpha1.PodCIDRReplacementNeededCondition, node.Name, err)
	}
	return nil
}
