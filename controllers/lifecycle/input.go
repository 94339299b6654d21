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

package lifecycle

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/cidr"
	lifecyclecore "podnetwork.io/operator/internal/lifecycle"
)

// nodeInput extracts what the lifecycle needs from a node. Unparseable
// values are skipped: the apiserver validates both fields, so they only come
// from a broken object, which must not stop the lifecycle.
func nodeInput(n *corev1.Node) lifecyclecore.Node {
	return lifecyclecore.Node{Name: n.Name, PodCIDRs: cidr.ParseObserved(n.Spec.PodCIDRs), Addresses: watches.NodeAddresses(n)}
}

// serviceCIDRInput extracts a ServiceCIDR's prefixes.
func serviceCIDRInput(s *networkingv1.ServiceCIDR) lifecyclecore.ServiceCIDR {
	return lifecyclecore.ServiceCIDR{Name: s.Name, Deleting: !s.DeletionTimestamp.IsZero(), CIDRs: cidr.ParseObserved(s.Spec.CIDRs)}
}
