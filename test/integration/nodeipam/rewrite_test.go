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
	"net/netip"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go4.org/netipx"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	pn "podnetwork.io/operator/api/v1alpha1"
	nodeipamctrl "podnetwork.io/operator/controllers/nodeipam"
	"podnetwork.io/operator/internal/nodeipam/blockstore"
	"podnetwork.io/operator/test/framework"
)

// recordKey is NodeIPAM's issued-block record.
var recordKey = client.ObjectKey{Namespace: framework.RecordNamespace, Name: nodeipamctrl.RecordName}

// readRecord returns the issued-block record as the API holds it.
// issuedSetOf is the issued set of the block store cm holds; empty
// without one.
func issuedSetOf(cm *corev1.ConfigMap) *netipx.IPSet {
	GinkgoHelper()
	data, ok := cm.BinaryData[nodeipamctrl.RecordDataKey]
	if !ok {
		return &netipx.IPSet{}
	}
	c, _, err := blockstore.Decode(data)
	Expect(err).NotTo(HaveOccurred())
	return c.Issued
}

// issuedOf is issuedSetOf's prefixes, one a line.
func issuedOf(cm *corev1.ConfigMap) string {
	GinkgoHelper()
	var lines []string
	for _, p := range issuedSetOf(cm).Prefixes() {
		lines = append(lines, p.String())
	}
	return strings.Join(lines, "\n")
}

func readRecord() *corev1.ConfigMap {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	Expect(k8sClient.Get(suiteCtx, recordKey, cm)).To(Succeed())
	return cm
}

// recordRewrittenNotes returns the notes of the IssuedRecordRewritten
// events on PodNetwork "default".
func recordRewrittenNotes() []string {
	var list eventsv1.EventList
	Expect(k8sClient.List(suiteCtx, &list)).To(Succeed())
	var out []string
	for _, ev := range list.Items {
		if ev.Reason != nodeipamctrl.IssuedRecordRewrittenReason {
			continue
		}
		Expect(ev.Type).To(Equal(corev1.EventTypeWarning))
		Expect(ev.Regarding.Kind).To(Equal("PodNetwork"))
		Expect(ev.Regarding.Name).To(Equal(pn.PodNetworkName))
		out = append(out, ev.Note)
	}
	return out
}

// quarantinedSince returns status.quarantine as block → freedAt.
func quarantinedSince() map[string]time.Time {
	out := map[string]time.Time{}
	for _, q := range k8sClient.GetPodNetwork().Status.Quarantine {
		out[q.CIDR] = q.FreedAt.Time
	}
	return out
}

// Issue #31, point 4: anyone may rewrite the record (an exported copy
// re-applied, a GitOps sync, a restore). The leader must neither stop
// allocating for good nor trust the rewritten content: it stops at once,
// rebuilds in place with every block no node holds quarantined from then,
// claims the record again and allocates once that delay has passed.
var _ = Describe("NodeIPAM issued-block record rewritten by another client", func() {
	BeforeEach(func() {
		DeferCleanup(resetCluster)
	})

	DescribeTable("is found and distrusted; allocation resumes with no early reuse and no overlap",
		func(keepClaim bool) {
			history := recordRanges()
			clk := clocktesting.NewFakeClock(time.Now().Truncate(time.Second))
			startOperator(withClock(clk))
			createPodNetwork(60, pn.WhenExhaustedWait, framework.Range("rw", "10.253.0.0/28").NodeMaskSize(30).Obj()) // 4 blocks
			Eventually(k8sClient.Phase).WithArguments("rw").Should(Equal(pn.RangePhaseActive))

			// An export of the record taken before any node got a block.
			var export *corev1.ConfigMap
			Eventually(func() error {
				export = &corev1.ConfigMap{}
				return k8sClient.Get(suiteCtx, recordKey, export)
			}).Should(Succeed())
			Expect(issuedOf(export)).To(BeEmpty())

			names := k8sClient.CreateNodes("rw", 3)
			Eventually(allHavePodCIDRs(names)).Should(BeEmpty())
			held := []string{podCIDRsOf(names[1])()[0], podCIDRsOf(names[2])()[0]}
			freed := podCIDRsOf(names[0])()[0]
			freedAt := clk.Now()
			deleteNode(names[0])
			Eventually(quarantinedSince).Should(Equal(map[string]time.Time{freed: freedAt}))
			never := ""
			for _, b := range []string{"10.253.0.0/30", "10.253.0.4/30", "10.253.0.8/30", "10.253.0.12/30"} {
				if b != freed && !slices.Contains(held, b) {
					never = b
				}
			}
			Expect(issuedOf(readRecord())).To(Equal("10.253.0.0/28"))

			// Half the delay later, another client re-applies the export.
			clk.Step(30 * time.Second)
			rewrittenAt := clk.Now()
			current := readRecord()
			claim := current.Annotations[nodeipamctrl.ClaimAnnotation]
			Expect(claim).NotTo(BeEmpty())
			current.BinaryData = export.BinaryData
			current.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}
			if keepClaim {
				current.Annotations[nodeipamctrl.ClaimAnnotation] = claim
			}
			Expect(k8sClient.Update(suiteCtx, current)).To(Succeed())

			// Found, said, and recovered from: the record is claimed again
			// with every range, and every block no node holds is
			// quarantined from the recovery, the freed one included.
			Eventually(recordRewrittenNotes).WithTimeout(30 * time.Second).Should(ConsistOf(
				And(ContainSubstring(nodeipamctrl.RecordName), ContainSubstring("quarantines every block no node holds for one recycle delay (1m0s)"))))
			// The claim stores every range issued; the next trim keeps the
			// held blocks issued and stores the others freed from the
			// recovery, either way quarantined from it.
			Eventually(func() bool {
				cm := readRecord()
				if c := cm.Annotations[nodeipamctrl.ClaimAnnotation]; c == "" || c == claim {
					return false
				}
				set := issuedSetOf(cm)
				return set.ContainsPrefix(netip.MustParsePrefix(held[0])) && set.ContainsPrefix(netip.MustParsePrefix(held[1]))
			}).WithTimeout(30*time.Second).Should(BeTrue(), "claimed again, with the held blocks issued")
			Eventually(quarantinedSince).WithTimeout(30 * time.Second).Should(Equal(map[string]time.Time{freed: rewrittenAt, never: rewrittenAt}))

			// No early reuse: a new node waits a full delay from the
			// recovery, past the freed block's own delay.
			Expect(k8sClient.Create(suiteCtx, framework.Node("rw-new").Obj())).To(Succeed())
			Eventually(cidrNotAvailable(uidOf("rw-new"))).Should(ConsistOf(And(
				ContainSubstring("all free blocks are quarantined"),
				ContainSubstring("NodeIPAM retries in 1m0s"))))
			Expect(podCIDRsOf("rw-new")()).To(BeEmpty())

			// Allocation resumes once that delay has passed.
			clk.Step(61 * time.Second)
			touchNode("rw-new")
			Eventually(podCIDRsOf("rw-new")).WithTimeout(30 * time.Second).Should(Equal([]string{freed}))
			Expect(k8sClient.Create(suiteCtx, framework.Node("rw-next").Obj())).To(Succeed())
			Eventually(podCIDRsOf("rw-next")).WithTimeout(30 * time.Second).Should(Equal([]string{never}))
			Expect(recordRewrittenNotes()).To(HaveLen(1), "one rewrite, one recovery")
			expectInvariants(history)
		},
		Entry("an old exported copy re-applied without the claim annotation", false),
		Entry("an old exported copy re-applied with the current claim annotation", true),
	)
})
