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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/reference"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
		Spec:      Spec{PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"}},
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

func TestDeepCopy(t *testing.T) {
	g := NewWithT(t)
	n := From(fullNode())
	c := n.DeepCopyObject().(*Node)
	g.Expect(c).To(Equal(n))
	c.Labels["kubernetes.io/os"] = "windows"
	c.Spec.PodCIDRs[0] = "10.9.0.0/24"
	c.Status.Addresses[0].Address = "192.0.2.9"
	c.Status.Conditions[0].Reason = "Changed"
	g.Expect(n).To(Equal(From(fullNode())), "the copy shares nothing with the original")
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
