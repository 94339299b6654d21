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

package lifecycle_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

// expectRejected creates (or, with old, updates from old to obj) the
// PodNetwork and expects the apiserver to refuse it with message. Nothing is
// stored: a rejected create leaves no object, a rejected update leaves old.
func expectRejected(old []v1alpha1.PodCIDRRange, ranges []v1alpha1.PodCIDRRange, message string) {
	pn := framework.PodNetwork().Obj()
	if old != nil {
		pn.Spec.Ranges = old
		Expect(k8sClient.Create(ctx, pn)).To(Succeed())
		DeferCleanup(func() {
			// No operator runs in these specs: nothing holds the object.
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, pn))).To(Succeed())
		})
		pn.Spec.Ranges = ranges
		err := k8sClient.Update(ctx, pn)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "update must be refused, got %v", err)
		Expect(err.Error()).To(ContainSubstring(message))
		stored, err := k8sClient.PodNetwork()
		Expect(err).NotTo(HaveOccurred())
		Expect(stored.Spec.Ranges).To(HaveLen(len(old)), "a refused update changes nothing")
		return
	}
	pn.Spec.Ranges = ranges
	err := k8sClient.Create(ctx, pn)
	if err == nil {
		_ = k8sClient.Delete(ctx, pn)
	}
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "create must be refused, got %v", err)
	Expect(err.Error()).To(ContainSubstring(message))
	Expect(apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKey{Name: "default"}, &v1alpha1.PodNetwork{}))).To(BeTrue())
}

var _ = Describe("PodNetwork admission on a real apiserver", Serial, func() {
	DescribeTable("refuses a bad spec with a message that says what is wrong",
		func(old, ranges []v1alpha1.PodCIDRRange, message string) {
			expectRejected(old, ranges, message)
		},
		Entry("not a CIDR", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "not-a-cidr").Obj()}, "must be an IPv4 or IPv6 prefix"),
		Entry("an address, not a prefix", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "10.244.0.0").Obj()}, "must be an IPv4 or IPv6 prefix"),
		Entry("prefix length out of range", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "10.244.0.0/33").Obj()}, "must be an IPv4 or IPv6 prefix"),
		Entry("host bits set", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "10.244.1.0/16").Obj()}, "canonical form"),
		Entry("upper-case IPv6", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "FD00::/48").Obj()}, "canonical form"),
		Entry("non-shortest IPv6", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "fd00:0::/48").Obj()}, "canonical form"),
		Entry("IPv4-mapped IPv6", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "::ffff:10.0.0.0/104").NodeMaskSize(120).Obj()}, "must be an IPv4 or IPv6 prefix"),
		Entry("contains the IPv4-mapped range", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "::ff00:0:0/88").NodeMaskSize(112).Obj()}, "IPv4-mapped"),
		Entry("this network 0.0.0.0/8", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "0.1.0.0/16").Obj()}, "0.0.0.0/8"),
		Entry("IPv6 unspecified", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "::/64").Obj()}, "unspecified address"),
		Entry("loopback", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "127.0.0.0/16").Obj()}, "loopback"),
		Entry("contains loopback", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "120.0.0.0/5").NodeMaskSize(24).Obj()}, "loopback"),
		Entry("IPv4 link-local", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "169.254.0.0/20").Obj()}, "link-local"),
		Entry("IPv6 link-local", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "fe80::/64").Obj()}, "link-local"),
		Entry("IPv4 multicast", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "224.0.0.0/24").Obj()}, "multicast"),
		Entry("IPv6 multicast", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "ff02::/64").Obj()}, "multicast"),
		Entry("reserved 240.0.0.0/4", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "240.0.0.0/8").Obj()}, "reserved range 240.0.0.0/4"),
		Entry("broadcast", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "255.255.255.0/24").Obj()}, "broadcast"),
		Entry("nodeMaskSize shorter than the prefix", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/16").NodeMaskSize(12).Obj()}, "at least the prefix length"),
		Entry("default nodeMaskSize shorter than a /25", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/25").Obj()}, "at least the prefix length"),
		Entry("IPv4 nodeMaskSize above 30", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/16").NodeMaskSize(31).Obj()}, "at most 30 for an IPv4"),
		Entry("IPv6 nodeMaskSize above 126", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "fd00::/112").NodeMaskSize(127).Obj()}, "at most 126"),
		Entry("more than 2^24 blocks", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "64.0.0.0/3").NodeMaskSize(28).Obj()}, "at most 24 bits longer"),
		Entry("IPv6 /32 with the default /64 blocks", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "2001:db8::/32").Obj()}, "at most 24 bits longer"),
		Entry("bad range name", nil, []v1alpha1.PodCIDRRange{framework.Range("Bad_Name", "10.0.0.0/16").Obj()}, "spec.ranges[0].name"),
		Entry("duplicate names", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/16").Obj(), framework.Range("a", "10.1.0.0/16").Obj()}, "Duplicate value"),
		Entry("the same CIDR twice", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/16").Obj(), framework.Range("b", "10.0.0.0/16").Obj()}, "ranges must not overlap"),
		Entry("containment with another nodeMaskSize", nil, []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/8").Obj(), framework.Range("b", "10.1.0.0/16").NodeMaskSize(26).Obj()}, "ranges must not overlap"),
		Entry("too many ranges", nil, tooManyRanges(), "must have at most 64 items"),
		Entry("cidr changed", []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/16").Obj()}, []v1alpha1.PodCIDRRange{framework.Range("a", "10.1.0.0/16").Obj()}, "cidr is immutable"),
		Entry("nodeMaskSize changed", []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/16").NodeMaskSize(24).Obj()}, []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/16").NodeMaskSize(25).Obj()}, "nodeMaskSize is immutable"),
		Entry("default nodeMaskSize replaced", []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/16").Obj()}, []v1alpha1.PodCIDRRange{framework.Range("a", "10.0.0.0/16").NodeMaskSize(26).Obj()}, "nodeMaskSize is immutable"),
	)

	It("refuses a bad allocation policy and a bad node selector operator", func() {
		pn := framework.PodNetwork().RecycleDelaySeconds(-1).Obj()
		err := k8sClient.Create(ctx, pn)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("recycleDelaySeconds"))

		pn = framework.PodNetwork().WhenExhausted("Panic").Obj()
		err = k8sClient.Create(ctx, pn)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring(`Unsupported value: "Panic"`))
	})

	It("accepts expansion in place, dual stack and a node selector", func() {
		zoneA := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}},
		}}}
		pn := framework.PodNetwork().Range("big", "10.0.0.0/8").Range("small", "10.1.0.0/16").
			Ranges(framework.Range("zone-a", "10.2.0.0/16").NodeSelector(zoneA).Obj()).
			Range("v6", "fd00:10:244::/48").Obj()
		Expect(k8sClient.Create(ctx, pn)).To(Succeed())
		Expect(k8sClient.Delete(ctx, pn)).To(Succeed())
	})
})

func tooManyRanges() []v1alpha1.PodCIDRRange {
	var out []v1alpha1.PodCIDRRange
	for i := range 65 {
		out = append(out, framework.Range(fmt.Sprintf("r%d", i), fmt.Sprintf("10.%d.0.0/16", i)).Obj())
	}
	return out
}
