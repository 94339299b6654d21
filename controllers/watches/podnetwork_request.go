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
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
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
