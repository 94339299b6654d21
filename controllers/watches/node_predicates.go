package watches

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// NodeUpdate passes node creations, deletions and generic events,
// and the updates for which changed(old, new) holds. Each controller names
// the node fields it reads, so heartbeats (a status write every few seconds
// per node) wake none of them.
func NodeUpdate(changed func(oldNode, newNode *corev1.Node) bool) predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldNode, ok1 := e.ObjectOld.(*corev1.Node)
			newNode, ok2 := e.ObjectNew.(*corev1.Node)
			if !ok1 || !ok2 {
				return true
			}
			return changed(oldNode, newNode)
		},
	}
}

// NodeNetworkChanged reports whether a node's podCIDRs or addresses changed:
// the node fields the lifecycle reads, and part of what the adapters read.
func NodeNetworkChanged(oldNode, newNode *corev1.Node) bool {
	return !slices.Equal(oldNode.Spec.PodCIDRs, newNode.Spec.PodCIDRs) ||
		!equality.Semantic.DeepEqual(oldNode.Status.Addresses, newNode.Status.Addresses)
}
