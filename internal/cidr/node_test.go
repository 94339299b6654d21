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
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
)

// TestNodeAddresses reads what the apiserver lets a node report (it does
// not validate addresses): Kubernetes' legacy formats as Kubernetes reads
// them, and a sentence for everything that is not a plain address.
func TestNodeAddresses(t *testing.T) {
	g := NewWithT(t)
	n := &corev1.Node{Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: "10.244.0.5"},
		{Type: corev1.NodeExternalIP, Address: "010.244.0.6"},
		{Type: corev1.NodeInternalIP, Address: "::ffff:10.244.0.7"},
		{Type: corev1.NodeInternalIP, Address: "garbage"},
		{Type: corev1.NodeHostName, Address: "not-an-address-and-fine"},
	}}}
	addrs, problems := NodeAddresses(n.Status.Addresses)
	g.Expect(addrs).To(Equal([]netip.Addr{netip.MustParseAddr("10.244.0.5"), netip.MustParseAddr("10.244.0.6"), netip.MustParseAddr("10.244.0.7")}))
	g.Expect(problems).To(HaveExactElements(
		ContainSubstring(`ExternalIP "010.244.0.6" has leading zeros`),
		ContainSubstring(`InternalIP "::ffff:10.244.0.7" is an IPv4-mapped IPv6 address`),
		`InternalIP "garbage" is not an IP address`,
	))
}
