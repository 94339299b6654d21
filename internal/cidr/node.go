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

package cidr

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
)

// IsNodeIPType reports whether a node address of type t is one a pod range
// must never contain: InternalIP and ExternalIP. The other types a kubelet
// reports (Hostname, InternalDNS, ExternalDNS) are names.
func IsNodeIPType(t corev1.NodeAddressType) bool {
	return t == corev1.NodeInternalIP || t == corev1.NodeExternalIP
}

// NodeAddresses returns the InternalIP and ExternalIP addresses among a
// node's status addresses, the ones a pod range must never contain, read
// with ParseObservedAddr,
// and a sentence for each one that cannot be read at all or only in a
// legacy format (the apiserver does not validate node addresses, so a
// broken node can have any string there). Every controller, and the kubectl
// plugin, reads node addresses with this one rule.
func NodeAddresses(status []corev1.NodeAddress) (addrs []netip.Addr, problems []string) {
	for _, a := range status {
		if !IsNodeIPType(a.Type) {
			continue
		}
		ip, legacy, ok := ParseObservedAddr(a.Address)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s %q is not an IP address", a.Type, a.Address))
			continue
		case legacy != "":
			problems = append(problems, fmt.Sprintf("%s %s", a.Type, legacy))
		}
		addrs = append(addrs, ip)
	}
	return addrs, problems
}
