package watches

import (
	"context"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// PodNetworkRequest is the only request of the controllers that work on the
// whole pod network (lifecycle, NodeIPAM's status, the adapters): every
// event they watch maps to the singleton PodNetwork "default".
var PodNetworkRequest = reconcile.Request{NamespacedName: client.ObjectKey{Name: podnetworkv1alpha1.PodNetworkName}}

// EnqueuePodNetwork maps any event to PodNetworkRequest.
func EnqueuePodNetwork() handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{PodNetworkRequest}
	})
}
