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
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

// Objects the operator reads but others write: nodes, ServiceCIDRs and
// consumers' acknowledgements. For each, the apiserver refuses part of what
// is malformed (shown refused), and the operator reports the rest, reads
// it the way Kubernetes does, and keeps working.
var _ = Describe("Malformed nodes, ServiceCIDRs and consumers", func() {
	api := k8sClient
	pods := framework.Range("pods", "10.244.0.0/16").Obj()

	BeforeEach(func() {
		DeferCleanup(resetCluster, api)
		startOperator(suite.ControlPlane.Config)
	})

	It("reports node addresses it cannot read, checks ranges against the ones it reads in a legacy format, and keeps allocating", func() {
		for _, bad := range []string{"garbage", "010.244.0.0/24", "10.244.1.5/24", "::ffff:10.0.0.0/120", "10.244.2.0/24 "} {
			Expect(api.Create(suiteCtx, framework.Node("refused").PodCIDRs(bad).Obj())).To(beInvalid(), "podCIDR %q", bad)
		}
		createPodNetwork(api, pods)
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))

		// The apiserver does not validate node addresses.
		n := framework.Node("odd").Obj()
		Expect(api.Create(suiteCtx, n)).To(Succeed())
		Eventually(func() error {
			if err := api.Get(suiteCtx, client.ObjectKeyFromObject(n), n); err != nil {
				return err
			}
			n.Status.Addresses = []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "not-an-address"},
				{Type: corev1.NodeExternalIP, Address: "010.245.0.9"},
			}
			return api.Status().Update(suiteCtx, n)
		}).Should(Succeed(), "NodeIPAM may write the podCIDRs meanwhile")
		Eventually(condition(api, v1alpha1.DegradedCondition)).Should(And(HavePrefix("True MalformedInput"),
			ContainSubstring(`node has podCIDRs or addresses the operator cannot read, or reads only in a legacy format: "odd" (InternalIP "not-an-address" is not an IP address; ExternalIP "010.245.0.9" has leading zeros, which Kubernetes reads as 10.245.0.9`)))
		Eventually(notes(api, "PodNetwork", "MalformedInput")).Should(ConsistOf(ContainSubstring(`"odd"`)))

		// The address read in the legacy format still keeps a range off it.
		setRanges(api, pods, framework.Range("more", "10.245.0.0/16").Obj())
		Eventually(api.RangeStatus).WithArguments("more").Should(And(HaveField("Phase", v1alpha1.RangePhasePending),
			HaveField("InvalidReason", v1alpha1.RangeInvalidNodeAddressOverlap), HaveField("InvalidMessage", ContainSubstring(`10.245.0.9 of node "odd"`))))

		Eventually(podCIDRsOf(api, "odd")).Should(ConsistOf(inPods()), "the node itself gets a block")
		createNode(api, "normal")
		Eventually(podCIDRsOf(api, "normal")).Should(ConsistOf(inPods()))

		deleteNode(api, "odd")
		Eventually(api.Phase).WithArguments("more").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(condition(api, v1alpha1.DegradedCondition)).Should(HavePrefix("False AsExpected"))
	})

	It("lets only canonical ServiceCIDRs through, and treats 0.0.0.0/0 as one that overlaps every IPv4 range", func() {
		for i, bad := range []string{"garbage", "010.97.0.0/16", "10.97.1.5/24", "FD00:97::/112", "::ffff:10.0.0.0/120", "10.97.0.0/16 "} {
			_, err := framework.CreateServiceCIDR(suiteCtx, api, fmt.Sprintf("refused-%d", i), bad)
			Expect(err).To(MatchError(ContainSubstring("is invalid")), "cidr %q", bad)
		}
		createPodNetwork(api, pods)
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))

		_, err := framework.CreateServiceCIDR(suiteCtx, api, "everything", "0.0.0.0/0")
		Expect(err).NotTo(HaveOccurred())
		setRanges(api, pods, framework.Range("more", "10.245.0.0/16").Obj())
		Eventually(api.RangeStatus).WithArguments("more").Should(And(HaveField("Phase", v1alpha1.RangePhasePending),
			HaveField("InvalidReason", v1alpha1.RangeInvalidServiceCIDROverlap)))
		Eventually(api.RangeStatus).WithArguments("pods").Should(And(HaveField("Phase", v1alpha1.RangePhaseActive),
			HaveField("InvalidReason", v1alpha1.RangeInvalidServiceCIDROverlap)), "flagged, never demoted")
		createNode(api, "n1")
		Eventually(podCIDRsOf(api, "n1")).Should(ConsistOf(inPods()))

		Expect(api.Delete(suiteCtx, &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "everything"}})).To(Succeed())
		Eventually(api.Phase).WithArguments("more").Should(Equal(v1alpha1.RangePhaseActive))
	})

	It("refuses the acknowledgements the CRD can tell are malformed, ignores and names the rest, and keeps its messages within the API's limits", func() {
		Expect(api.Create(suiteCtx, framework.Consumer("picky").Obj())).To(Succeed())
		createPodNetwork(api, pods)
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhasePending))

		ackEntry := func(name, cidr, phase, result, message string) map[string]any {
			return map[string]any{"name": name, "cidr": cidr, "phase": phase, "result": result, "message": message}
		}
		many := make([]map[string]any, 129)
		for i := range many {
			many[i] = ackEntry(fmt.Sprintf("r%d", i), "10.244.0.0/16", "Active", "Accepted", "")
		}
		for what, ranges := range map[string][]map[string]any{
			"an unknown phase":             {ackEntry("pods", "10.244.0.0/16", "Bogus", "Accepted", "")},
			"an unknown result":            {ackEntry("pods", "10.244.0.0/16", "Pending", "Maybe", "")},
			"two entries for one range":    {ackEntry("pods", "10.244.0.0/16", "Pending", "Accepted", ""), ackEntry("pods", "10.245.0.0/16", "Pending", "Accepted", "")},
			"129 entries":                  many,
			"a message of 1025 characters": {ackEntry("pods", "10.244.0.0/16", "Pending", "Rejected", strings.Repeat("x", 1025))},
			"an entry without phase":       {{"name": "pods", "cidr": "10.244.0.0/16", "result": "Accepted"}},
		} {
			err := api.Status().Patch(suiteCtx, framework.Consumer("picky").Obj(),
				client.RawPatch(types.MergePatchType, mustJSON(map[string]any{"status": map[string]any{"ranges": ranges}})))
			Expect(err).To(beInvalid(), what)
		}

		// What the CRD lets through: cidrs that do not parse, ranges that do
		// not exist, times in the future, 128 messages of 1024 two-byte
		// characters.
		what, err := framework.CreateConsumerWithBadAcks(suiteCtx, api, "noisy")
		Expect(err).NotTo(HaveOccurred())
		GinkgoWriter.Println("wrote", what)
		Eventually(condition(api, v1alpha1.DegradedCondition)).Should(And(HavePrefix("True MalformedInput"),
			ContainSubstring(`consumer acknowledges ranges with cidrs that are not canonical prefixes, which never count: "noisy"`)))
		Eventually(func() string { return consumerMessage(api, "noisy") }).Should(ContainSubstring("Ignored acknowledgements whose cidr is not a canonical prefix"))
		Eventually(notes(api, "PodNetwork", "MalformedInput")).Should(ConsistOf(ContainSubstring(`"noisy"`)))

		// A required consumer rejects with the longest message the CRD
		// accepts: the event still gets through, cut to what the API takes.
		long := strings.Repeat("é", 1024)
		Eventually(func() error {
			c := &v1alpha1.PodNetworkConsumer{}
			if err := api.Get(suiteCtx, client.ObjectKey{Name: "picky"}, c); err != nil {
				return err
			}
			c.Status.Ranges = []v1alpha1.ConsumerRangeStatus{v1alpha1.AckFor(api.RangeStatus("pods"), v1alpha1.AckRejected, long, metav1.Now())}
			return api.Status().Update(suiteCtx, c, client.FieldOwner("picky"))
		}).Should(Succeed())
		Eventually(notes(api, "PodNetwork", "ConsumerRejected")).Should(ConsistOf(And(
			HavePrefix(`Consumer "picky" rejected range "pods" (10.244.0.0/16) in phase Pending: éé`), HaveSuffix("..."))))
		Eventually(api.RangeStatus).WithArguments("pods").Should(HaveField("Rejections", ConsistOf(HaveField("Message", And(
			HavePrefix("éé"), HaveSuffix("..."), WithTransform(func(s string) int { return len(s) }, BeNumerically("<=", 1024)))))),
			"cut to 1024 bytes, which the schema accepts however it counts")
		Expect(condition(api, v1alpha1.DegradedCondition)()).To(HavePrefix("True ConsumerRejected"))

		ack(api, "picky")
		Eventually(api.Phase).WithArguments("pods").Should(Equal(v1alpha1.RangePhaseActive))
		createNode(api, "n1")
		Eventually(podCIDRsOf(api, "n1")).Should(ConsistOf(inPods()))
	})
})
