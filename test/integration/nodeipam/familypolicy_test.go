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

package nodeipam_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pn "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

var _ = Describe("NodeIPAM under familyPolicy AllOrWait", func() {
	BeforeEach(func() {
		DeferCleanup(resetCluster)
	})

	It("makes a node wait while the IPv6 range is Pending, never gives it IPv4 alone, and gives it both once the range is Active", func() {
		history := recordRanges()
		startOperator()
		Expect(k8sClient.Create(suiteCtx, framework.PodNetwork().RecycleDelaySeconds(0).WhenExhausted(pn.WhenExhaustedWait).
			FamilyPolicy(pn.FamilyPolicyAllOrWait).Ranges(framework.Range("v4", "10.253.0.0/22").NodeMaskSize(24).Obj()).Obj())).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("v4").Should(Equal(pn.RangePhaseActive))

		// A required consumer that never answers keeps the IPv6 range
		// Pending, as a slow plugin would.
		slow := &pn.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: "slow"}, Spec: pn.PodNetworkConsumerSpec{Required: ptr.To(true)}}
		Expect(k8sClient.Create(suiteCtx, slow)).To(Succeed())
		addRange(framework.Range("v6", "fd00:253::/63").NodeMaskSize(64).Obj())
		// Only once NodeIPAM has acknowledged: the event names whom the
		// range awaits when the node is served.
		Eventually(func() []string { return k8sClient.RangeStatus("v6").Awaiting }).Should(ConsistOf("slow"))

		names := k8sClient.CreateNodes("aow", 1)
		Eventually(cidrNotAvailable(uidOf(names[0]))).Should(ConsistOf(And(
			ContainSubstring("spec.allocation.familyPolicy is AllOrWait"), ContainSubstring(`IPv6 range "v6" (fd00:253::/63)`),
			ContainSubstring("awaiting slow"))))
		Consistently(podCIDRsOf(names[0]), "2s").Should(BeEmpty(), "never IPv4 alone")
		Expect(k8sClient.Usage("v4")).To(HaveField("Allocated", HaveValue(BeZero())), "nothing reserved while it waits")

		Expect(k8sClient.Delete(suiteCtx, slow)).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("v6").Should(Equal(pn.RangePhaseActive))
		Eventually(podCIDRsOf(names[0])).Should(HaveExactElements(inside("10.253.0.0/22"), inside("fd00:253::/63")))
		expectInvariants(history)
	})
})
