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
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	clocktesting "k8s.io/utils/clock/testing"

	pn "podnetwork.io/operator/api/v1alpha1"
	nodeipamctrl "podnetwork.io/operator/controllers/nodeipam"
	"podnetwork.io/operator/test/framework"
)

// Issue #31, point 3: before the block store, a fail-over held back every
// recorded block no node held for a full delay, so on a range whose every
// block had been issued once, nothing was handed out for a minute although
// most free blocks had been free for long. Now only the blocks freed
// within the last delay wait.
var _ = Describe("NodeIPAM fail-over", func() {
	BeforeEach(func() {
		DeferCleanup(resetCluster)
	})

	It("holds back only the blocks freed within the last delay", func() {
		history := recordRanges()
		clk := clocktesting.NewFakeClock(time.Now().Truncate(time.Second))
		op := startOperator(withClock(clk))
		createPodNetwork(60, pn.WhenExhaustedWait, framework.Range("f", "10.200.0.0/16").NodeMaskSize(24).Obj()) // 256 blocks
		names := createManyNodes("f", 256)
		Eventually(func() int { return len(podCIDRsByNode(names)) }).WithTimeout(2 * time.Minute).Should(Equal(256))
		blocks := podCIDRsByNode(names)

		// Ten nodes go more than a delay and a status interval before the
		// kill: their blocks are free.
		var old []string
		for _, n := range names[:10] {
			old = append(old, blocks[n][0])
		}
		deleteNodes(names[:10])
		Eventually(quarantined).Should(HaveLen(10))
		clk.Step(61 * time.Second)
		touchPodNetwork()
		Eventually(quarantined).Should(BeEmpty())

		// Two go within the delay: they must wait out what is left of it.
		recentAt := clk.Now()
		deleteNodes(names[10:12])
		want := map[string]time.Time{blocks[names[10]][0]: recentAt, blocks[names[11]][0]: recentAt}
		Eventually(quarantinedSince).Should(Equal(want))
		claim := readRecord().Annotations[nodeipamctrl.ClaimAnnotation]
		op.kill()

		clk.Step(5 * time.Second)
		startOperator(withClock(clk))
		Eventually(func() string { return readRecord().Annotations[nodeipamctrl.ClaimAnnotation] }).ShouldNot(Equal(claim), "the new leader claimed the store")
		Expect(k8sClient.Create(suiteCtx, framework.Node("f-new").Obj())).To(Succeed())
		Eventually(podCIDRsOf("f-new")).WithTimeout(5 * time.Second).Should(HaveLen(1))
		Expect(slices.Contains(old, podCIDRsOf("f-new")()[0])).To(BeTrue(), "a block freed long ago")
		Eventually(quarantinedSince).Should(Equal(want), "exactly the two recent blocks are held back, from their own time")
		expectInvariants(history)
	})
})
