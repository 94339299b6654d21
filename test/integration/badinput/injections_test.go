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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

// The malformed writes chaos storms reuse (framework.Injections), one after
// the other on a cluster with an Active and a Draining range.
var _ = Describe("Every malformed write of framework.Injections", func() {
	api := k8sClient

	BeforeEach(func() {
		DeferCleanup(resetCluster, api)
		startOperator(suite.ControlPlane.Config)
	})

	It("leaves the operator allocating, activating ranges and writing its status, without a hot loop", func() {
		pods := framework.Range("pods", "10.244.0.0/16").Obj()
		createPodNetwork(api, pods, framework.Range("old", "10.246.0.0/16").Obj())
		Eventually(api.Phase).WithArguments("old").Should(Equal(v1alpha1.RangePhaseActive))
		createNode(api, "holder", "10.246.3.0/24")
		setRanges(api, pods)
		Eventually(api.RangeStatus).WithArguments("old").Should(HaveField("Holders", ConsistOf("holder")))

		for _, inj := range framework.Injections("chaos") {
			what, err := inj.Inject(suiteCtx, api)
			Expect(err).NotTo(HaveOccurred(), inj.Name)
			GinkgoWriter.Printf("%s: %s (holds: %q)\n", inj.Name, what, inj.Holds)
		}

		Eventually(statusManagers(api)).Should(operatorOnly)
		createNode(api, "after")
		Eventually(podCIDRsOf(api, "after")).Should(ConsistOf(inPods()))
		setRanges(api, pods, framework.Range("late", "10.247.0.0/16").Obj())
		Eventually(api.Phase).WithArguments("late").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(api.Phase).WithArguments("chaos-handmade").Should(BeEmpty())
		Eventually(condition(api, v1alpha1.DegradedCondition)).Should(And(ContainSubstring(`"chaos-bad-addresses"`), ContainSubstring(`"chaos-bad-acks"`)))
		Expect(len(api.GetPodNetwork().Status.Conditions)).To(BeNumerically("<=", 16))

		// Settled, nothing changes by itself: no controller rewrites the
		// status over and over.
		rv := api.GetPodNetwork().ResourceVersion
		Consistently(func() string { return api.GetPodNetwork().ResourceVersion }).WithTimeout(3 * time.Second).Should(Equal(rv))
	})
})
