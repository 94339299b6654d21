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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/slimnode"
)

// SetupWithManager watches everything the adapter reads and funnels every
// event into one request: the adapter always reconciles the whole component.
// Waiting (for a rollout, a pod, a node's proof) is event-driven; nothing
// polls.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	one := watches.EnqueuePodNetwork()
	named := func(nn types.NamespacedName) builder.Predicates {
		return builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetNamespace() == nn.Namespace && o.GetName() == nn.Name
		}))
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named(r.Adapter.Name+"-adapter").
		Watches(&podnetworkv1alpha1.PodNetwork{}, one, named(types.NamespacedName{Name: podnetworkv1alpha1.PodNetworkName})).
		Watches(&podnetworkv1alpha1.PodNetworkConsumer{}, one, named(types.NamespacedName{Name: r.Adapter.Name})).
		Watches(&corev1.ConfigMap{}, one, named(r.ConfigMap.NamespacedName)).
		Watches(&appsv1.DaemonSet{}, one, named(r.DaemonSet)).
		Watches(&corev1.Pod{}, one, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			ref := metav1.GetControllerOf(o)
			return o.GetNamespace() == r.DaemonSet.Namespace && ref != nil && ref.Kind == "DaemonSet" && ref.Name == r.DaemonSet.Name
		}))).
		Watches(&corev1.Node{}, one, builder.WithPredicates(watches.NodeUpdate(nodeChanged))).
		Watches(&networkingv1.ServiceCIDR{}, one).
		Complete(r)
}

// nodeChanged reports the node updates that change what an adapter
// reads: podCIDRs, addresses, flanneld's public-IP annotations (flannel's
// "peers announced" rollout) and the NetworkUnavailable condition
// (flannel's proof). Heartbeats of other conditions do not wake the
// adapters.
func nodeChanged(oldNode, newNode *slimnode.Node) bool {
	return watches.NodeNetworkChanged(oldNode, newNode) || oldNode.Announced != newNode.Announced ||
		!equality.Semantic.DeepEqual(networkUnavailable(oldNode), networkUnavailable(newNode))
}

func networkUnavailable(n *slimnode.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeNetworkUnavailable {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}
