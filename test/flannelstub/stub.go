// Package flannelstub plays flanneld's part towards the API in tests, where
// no real flanneld runs: whenever a pod of the flannel DaemonSet runs on a
// node and is newer than that node's last stamp, it stamps the node's
// NetworkUnavailable condition exactly as flanneld does on every start
// (status False, reason FlannelIsUp, both times set to now). Skip keeps it
// from stamping chosen nodes, to show the adapter waiting for them.
package flannelstub

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// FlannelIsUp is the reason flanneld writes.
const FlannelIsUp = "FlannelIsUp"

// SkipPoll is how often a skipped node is looked at again.
const SkipPoll = 250 * time.Millisecond

// Stub stamps nodes for the pods of one DaemonSet.
type Stub struct {
	Client client.Client
	// Namespace and DaemonSet name the flannel DaemonSet.
	Namespace string
	DaemonSet string
	// Skip, when it returns true, leaves the node unstamped for now.
	Skip func(node string) bool
	// Clock defaults to the real clock.
	Clock clock.PassiveClock
}

// SetupWithManager reconciles every pod of the DaemonSet.
func (s *Stub) SetupWithManager(mgr ctrl.Manager) error {
	if s.Clock == nil {
		s.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("flannelstub").
		For(&corev1.Pod{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			ref := metav1.GetControllerOf(o)
			return o.GetNamespace() == s.Namespace && ref != nil && ref.Kind == "DaemonSet" && ref.Name == s.DaemonSet
		}))).
		Complete(s)
}

// Reconcile stamps the node of a running pod that has not been stamped since
// the pod was created.
func (s *Stub) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := s.Client.Get(ctx, req.NamespacedName, pod); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if pod.DeletionTimestamp != nil || pod.Spec.NodeName == "" || pod.Status.Phase != corev1.PodRunning {
		return reconcile.Result{}, nil
	}
	if s.Skip != nil && s.Skip(pod.Spec.NodeName) {
		return reconcile.Result{RequeueAfter: SkipPoll}, nil
	}
	node := &corev1.Node{}
	if err := s.Client.Get(ctx, types.NamespacedName{Name: pod.Spec.NodeName}, node); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if stampedSince(node, pod.CreationTimestamp.Time) {
		return reconcile.Result{}, nil
	}
	now := metav1.NewTime(s.Clock.Now())
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.NodeCondition{{
		Type:               corev1.NodeNetworkUnavailable,
		Status:             corev1.ConditionFalse,
		Reason:             FlannelIsUp,
		Message:            "Flannel is running on this node",
		LastTransitionTime: now,
		LastHeartbeatTime:  now,
	}}}})
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("encoding the node patch: %w", err)
	}
	// flanneld writes with a strategic-merge patch of nodes/status, which
	// merges conditions by type.
	if err := s.Client.Status().Patch(ctx, node, client.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
		return reconcile.Result{}, fmt.Errorf("stamping node %s: %w", node.Name, err)
	}
	return reconcile.Result{}, nil
}

func stampedSince(n *corev1.Node, t time.Time) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeNetworkUnavailable && c.Reason == FlannelIsUp {
			return !c.LastHeartbeatTime.Time.Before(t)
		}
	}
	return false
}
