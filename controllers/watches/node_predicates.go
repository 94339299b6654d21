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
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"podnetwork.io/operator/internal/slimnode"
)

// NodeUpdate passes node creations, deletions and generic events,
// and the updates for which changed(old, new) holds. Each controller names
// the node fields it reads, so heartbeats (a status write every few seconds
// per node) wake none of them.
func NodeUpdate(changed func(oldNode, newNode *slimnode.Node) bool) predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldNode, ok1 := e.ObjectOld.(*slimnode.Node)
			newNode, ok2 := e.ObjectNew.(*slimnode.Node)
			if !ok1 || !ok2 {
				return true
			}
			return changed(oldNode, newNode)
		},
	}
}

// NodeNetworkChanged reports whether a node's podCIDRs or addresses changed:
// the node fields the lifecycle reads, and part of what the adapters read.
func NodeNetworkChanged(oldNode, newNode *slimnode.Node) bool {
	return !slices.Equal(oldNode.Spec.PodCIDRs, newNode.Spec.PodCIDRs) ||
		!equality.Semantic.DeepEqual(oldNode.Status.Addresses, newNode.Status.Addresses)
}

// NodeAutoscalingChanged reports whether what the autoscaler reads of a
// node changed: its podCIDRs (a waiting node got a block), addresses (no
// carved range may contain one) or labels (pool nodeSelectors).
func NodeAutoscalingChanged(oldNode, newNode *slimnode.Node) bool {
	return NodeNetworkChanged(oldNode, newNode) || !maps.Equal(oldNode.Labels, newNode.Labels)
}
