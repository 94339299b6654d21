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

package slimnode

import (
	"fmt"
	"net/netip"
	"testing"
	"time"
	"unsafe"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/reference"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/internal/cidr"
)

// Watch handlers take cache objects as client.Objects.
var _ client.Object = &Node{}

func fullNode() *corev1.Node {
	deleting := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: "node-1", UID: "uid-1", ResourceVersion: "42", DeletionTimestamp: &deleting,
			Labels:      map[string]string{"kubernetes.io/os": "linux"},
			Annotations: map[string]string{"dropped": "yes", FlannelPublicIPv6Annotation: "2001:db8::1"},
			Finalizers:  []string{"dropped"},
		},
		Spec: corev1.NodeSpec{PodCIDR: "10.0.0.0/24", PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"}, ProviderID: "dropped"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeHostName, Address: "node-1"},
				{Type: corev1.NodeInternalIP, Address: "192.0.2.1"},
				{Type: corev1.NodeInternalDNS, Address: "node-1.example"},
				{Type: corev1.NodeExternalIP, Address: "2001:db8::1"},
			},
			Conditions: []corev1.NodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue},
				{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, Reason: "FlannelIsUp"},
			},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "dropped"},
		},
	}
}

func TestFrom(t *testing.T) {
	g := NewWithT(t)
	in := fullNode()
	got := From(in)
	g.Expect(got).To(Equal(&Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: "node-1", UID: "uid-1", ResourceVersion: "42", DeletionTimestamp: in.DeletionTimestamp,
			Labels: map[string]string{"kubernetes.io/os": "linux"},
		},
		Spec: Spec{PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"},
			read: &[]netip.Prefix{netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("fd00::/64")}[0]},
		Announced: Announced{IPv6: true},
		Status: Status{
			Addresses:  []corev1.NodeAddress{in.Status.Addresses[1], in.Status.Addresses[3]},
			Conditions: []corev1.NodeCondition{in.Status.Conditions[1]},
		},
	}))

	onlyIPs := &corev1.Node{Status: corev1.NodeStatus{Addresses: in.Status.Addresses[1:2]}}
	g.Expect(&From(onlyIPs).Status.Addresses[0]).To(BeIdenticalTo(&onlyIPs.Status.Addresses[0]),
		"addresses that are all IPs are shared, not copied")
}

// ObservedPodCIDRs reads podCIDRs as cidr.ObservePrefixes does, whether
// From read them already or the node holds a value it cannot read cleanly
// (read again, with its problems), and From's prefixes are exactly as
// long as they are, so no reader's append can write into the cache's.
func TestObservedPodCIDRs(t *testing.T) {
	for _, podCIDRs := range [][]string{
		nil,
		{"10.0.0.0/24"},
		{"10.0.0.0/24", "fd00::/64"},
		{"fd00::/64", "10.0.0.0/24"},
		{"10.0.0.1/24"},             // not masked: read masked
		{"010.000.000.000/24"},      // legacy
		{"not-a-cidr", "fd00::/64"}, // unreadable
		{"::ffff:10.0.0.0/120"},     // IPv4-mapped
	} {
		t.Run(fmt.Sprint(podCIDRs), func(t *testing.T) {
			g := NewWithT(t)
			want := cidr.ObservePrefixes(podCIDRs)
			n := From(&corev1.Node{Spec: corev1.NodeSpec{PodCIDRs: podCIDRs}})
			g.Expect(n.ObservedPodCIDRs()).To(Equal(want))
			g.Expect(n.ObservedPodCIDRs()).To(Equal(want), "read twice")
			g.Expect((&Node{Spec: Spec{PodCIDRs: podCIDRs}}).ObservedPodCIDRs()).To(Equal(want), "a node From did not make")
			if len(want.Problems) == 0 && len(podCIDRs) > 0 {
				g.Expect(n.Spec.read).NotTo(BeNil(), "read once, by From")
				g.Expect(cap(n.ObservedPodCIDRs().Prefixes)).To(Equal(len(podCIDRs)))
			} else {
				g.Expect(n.Spec.read).To(BeNil())
			}
		})
	}
}

// TestNodeSizeClass: the cache holds a Node per node for the life of the
// process, and Go allocates it in a size class; 320 bytes is the class it
// had before its podCIDRs were kept read, and a field that takes it past
// that costs 32 bytes a node (2 MiB at 65,000 nodes).
func TestNodeSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(Node{}); size > 320 {
		t.Errorf("a Node is %d bytes, past the 320-byte size class", size)
	}
}

func TestDeepCopy(t *testing.T) {
	g := NewWithT(t)
	n := From(fullNode())
	c := n.DeepCopyObject().(*Node)
	g.Expect(c.ObservedPodCIDRs()).To(Equal(n.ObservedPodCIDRs()))
	c.Spec.read = n.Spec.read
	g.Expect(c).To(Equal(n))
	c = n.DeepCopy()
	c.Labels["kubernetes.io/os"] = "windows"
	c.Spec.PodCIDRs[0] = "10.9.0.0/24"
	c.Status.Addresses[0].Address = "192.0.2.9"
	c.Status.Conditions[0].Reason = "Changed"
	g.Expect(n).To(Equal(From(fullNode())), "the copy shares nothing with the original")
	g.Expect(c.ObservedPodCIDRs().Prefixes).To(Equal([]netip.Prefix{netip.MustParsePrefix("10.9.0.0/24"), netip.MustParsePrefix("fd00::/64")}),
		"a copy changed reads its own podCIDRs")
	g.Expect((*Node)(nil).DeepCopy()).To(BeNil())
}

// TestKind checks that a Node names itself a v1 Node to an object
// reference (as event recorders build them) though no scheme knows it.
func TestKind(t *testing.T) {
	g := NewWithT(t)
	n := From(fullNode())
	n.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	ref, err := reference.GetReference(runtime.NewScheme(), n)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ref).To(Equal(&corev1.ObjectReference{Kind: "Node", APIVersion: "v1", Name: "node-1", UID: "uid-1", ResourceVersion: "42"}))
}
