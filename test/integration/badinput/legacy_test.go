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

package badinput_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

// Until StrictIPCIDRValidation (beta, on by default, since Kubernetes 1.36)
// kube-apiserver accepted node podCIDRs that net/netip cannot read, and
// clusters upgraded since still serve the values stored then. This
// apiserver runs with the gate off to write such nodes.
var _ = Describe("Node podCIDRs in the legacy formats an apiserver before Kubernetes 1.36 accepted", Ordered, func() {
	api := &framework.API{}
	var cp *framework.ControlPlane

	BeforeAll(func() {
		var err error
		cp, err = framework.StartControlPlane(framework.ControlPlaneOptions{
			APIServerArgs: map[string]string{"feature-gates": "StrictIPCIDRValidation=false"},
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(cp.Stop()).To(Succeed()) })
		*api = framework.NewAPI(suiteCtx, cp.Client)
	})

	BeforeEach(func() {
		DeferCleanup(resetCluster, api)
		startOperator(cp.Config)
	})

	It("are still refused when no version of Kubernetes could read them", func() {
		Expect(api.Create(suiteCtx, framework.Node("garbage").PodCIDRs("garbage").Obj())).To(beInvalid())
	})

	It("are reserved as Kubernetes reads them, reported, and never handed to another node", func() {
		createNode(api, "legacy", "010.244.0.0/24")
		createNode(api, "host-bits", "10.244.1.7/24")
		createPodNetwork(api, framework.Range("pods", "10.244.0.0/22").NodeMaskSize(24).Obj()) // four blocks
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))

		Eventually(notes(api, "Node", "InvalidPodCIDR")).Should(ConsistOf(And(
			ContainSubstring(`podCIDRs "010.244.0.0/24" has leading zeros, which Kubernetes reads as 10.244.0.0/24`),
			ContainSubstring("NodeIPAM reserves [10.244.0.0/24] for this node"))), "host bits are not ambiguous")
		Eventually(condition(api, v1alpha1.DegradedCondition)).Should(And(HavePrefix("True MalformedInput"),
			ContainSubstring(`"legacy" (podCIDR "010.244.0.0/24" has leading zeros`)))
		Eventually(api.Usage).WithArguments("pods").Should(HaveField("Allocated", HaveValue(Equal(int64(2)))))

		createNode(api, "n1")
		createNode(api, "n2")
		Eventually(func() []string { return append(podCIDRsOf(api, "n1")(), podCIDRsOf(api, "n2")()...) }).
			Should(ConsistOf("10.244.2.0/24", "10.244.3.0/24"))
		createNode(api, "n3")
		Eventually(notes(api, "Node", "CIDRNotAvailable")).ShouldNot(BeEmpty(), "the four blocks are taken")

		setRanges(api)
		Eventually(api.RangeStatus).WithArguments("pods").Should(And(HaveField("Phase", v1alpha1.RangePhaseDraining),
			HaveField("Holders", ConsistOf("host-bits", "legacy", "n1", "n2"))))
	})
})
