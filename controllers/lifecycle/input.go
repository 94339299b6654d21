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

// nodeInput extracts what the lifecycle needs from a node. Values are read
// the way Kubernetes reads them (cidr.ObservePrefixes, watches.NodeAddresses);
// the ones that cannot be read, or only in a legacy format, are handed on
// for Degraded to name, and never stop the lifecycle.
func nodeInput(n *corev1.Node) lifecyclecore.Node {
	pods := cidr.ObservePrefixes(n.Spec.PodCIDRs)
	addrs, addrProblems := watches.NodeAddresses(n)
	out := lifecyclecore.Node{Name: n.Name, PodCIDRs: pods.Prefixes, UnreadablePodCIDRs: pods.Unreadable, Addresses: addrs}
	for _, p := range pods.Problems {
		out.Problems = append(out.Problems, "podCIDR "+p)
	}
	out.Problems = append(out.Problems, addrProblems...)
	return out
}

// serviceCIDRInput extracts a ServiceCIDR's prefixes.
func serviceCIDRInput(s *networkingv1.ServiceCIDR) lifecyclecore.ServiceCIDR {
	cidrs := cidr.ObservePrefixes(s.Spec.CIDRs)
	return lifecyclecore.ServiceCIDR{Name: s.Name, Deleting: !s.DeletionTimestamp.IsZero(), CIDRs: cidrs.Prefixes, Problems: cidrs.Problems}
}
