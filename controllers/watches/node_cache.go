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

package watches

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheOptions configures the manager's informer cache. Nodes are the
// largest objects the operator watches (images, volumes, managedFields and
// heartbeat conditions make a typical one 10-30 KiB) and a cluster may have
// 65,000 of them, so the cache keeps only what the controllers read.
func CacheOptions() cache.Options {
	return cache.Options{
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Node{}: {Transform: TransformNode},
		},
	}
}

// nodeLabels interns the label strings of cached nodes.
var nodeLabels = newInternPool()

// TransformNode strips a Node down to what the operator's controllers read
// before it enters the cache:
//
//   - metadata: name, uid, resourceVersion, creation and deletion
//     timestamps, and labels (range nodeSelectors);
//   - spec: podCIDR and podCIDRs;
//   - status: addresses (no range may contain a node address) and the
//     NetworkUnavailable condition (the adapters' proof).
//
// Everything else (images, volumes, capacity, nodeInfo, taints, the Ready
// condition, providerID, annotations, finalizers, managedFields, ...) is
// dropped: at 65,000 nodes every kept byte per node is 62 KiB of heap, and
// every heap byte is about two of resident memory. A controller that needs
// another field must add it here. Objects that are not Nodes, such as
// delete tombstones, pass unchanged.
//
// Label keys and values are interned (internPool).
//
// A merge patch computed from a stripped Node only carries the fields the
// controller changed, so writing through the cache stays safe.
func TransformNode(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	out := &corev1.Node{
		TypeMeta: n.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:              n.Name,
			UID:               n.UID,
			ResourceVersion:   n.ResourceVersion,
			CreationTimestamp: n.CreationTimestamp,
			DeletionTimestamp: n.DeletionTimestamp,
			Labels:            nodeLabels.labels(n.Name, n.Labels),
		},
		Spec: corev1.NodeSpec{
			PodCIDR:  n.Spec.PodCIDR,
			PodCIDRs: n.Spec.PodCIDRs,
		},
		Status: corev1.NodeStatus{Addresses: n.Status.Addresses},
	}
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeNetworkUnavailable {
			out.Status.Conditions = []corev1.NodeCondition{n.Status.Conditions[i]}
			break
		}
	}
	return out, nil
}
