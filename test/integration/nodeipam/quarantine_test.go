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
	"fmt"
	"net/netip"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go4.org/netipx"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	pn "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	nodeipamctrl "podnetwork.io/operator/controllers/nodeipam"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/test/framework"
)

// withoutStatusWrites holds NodeIPAM's PodNetwork status writes back after
// the first one, so nothing it learns reaches status.quarantine.
func withoutStatusWrites(o *controllers.Options) { o.NodeIPAM.StatusInterval = 24 * time.Hour }

// gone reports whether the node object is gone.
func gone(name string) func() bool {
	return func() bool {
		err := k8sClient.Get(suiteCtx, client.ObjectKey{Name: name}, &corev1.Node{})
		return apierrors.IsNotFound(err)
	}
}

// expectWaitsForQuarantine creates a node that must get nothing while the
// only free block is quarantined from the operator's start (the fake clock
// does not move), then steps past the delay and checks it gets that block.
func expectWaitsForQuarantine(clk *clocktesting.FakeClock, name, freed string) {
	GinkgoHelper()
	Expect(k8sClient.Create(suiteCtx, framework.Node(name).Obj())).To(Succeed())
	Eventually(cidrNotAvailable(uidOf(name))).Should(ConsistOf(ContainSubstring("NodeIPAM retries in 1m0s, when the first quarantined block becomes reusable")))
	Expect(podCIDRsOf(name)()).To(BeEmpty())
	Eventually(quarantined).Should(Equal([]string{freed}))

	clk.Step(61 * time.Second)
	touchNode(name)
	Eventually(podCIDRsOf(name)).Should(Equal([]string{freed}))
}

var _ = Describe("NodeIPAM quarantine across restarts", func() {
	BeforeEach(func() {
		DeferCleanup(resetCluster)
	})

	It("quarantines the block of a node deleted just before the operator was killed, before its status listed it", func() {
		history := recordRanges()
		clk := clocktesting.NewFakeClock(time.Now().Truncate(time.Second))
		op := startOperator(withClock(clk), withoutStatusWrites)
		createPodNetwork(60, pn.WhenExhaustedWait, framework.Range("q", "10.253.0.0/23").NodeMaskSize(24).Obj()) // 2 blocks
		names := k8sClient.CreateNodes("killed", 2)
		Eventually(allHavePodCIDRs(names)).Should(BeEmpty())
		freed := podCIDRsOf(names[0])()[0]

		deleteNode(names[0])
		Eventually(gone(names[0])).Should(BeTrue())
		op.kill()
		Expect(quarantined()).To(BeEmpty(), "the killed operator never listed the block")

		startOperator(withClock(clk))
		expectWaitsForQuarantine(clk, "killed-new", freed)
		expectInvariants(history)
	})

	It("quarantines the block of a node deleted while no operator ran", func() {
		history := recordRanges()
		clk := clocktesting.NewFakeClock(time.Now().Truncate(time.Second))
		op := startOperator(withClock(clk))
		createPodNetwork(60, pn.WhenExhaustedWait, framework.Range("q", "10.253.0.0/23").NodeMaskSize(24).Obj()) // 2 blocks
		names := k8sClient.CreateNodes("downtime", 2)
		Eventually(allHavePodCIDRs(names)).Should(BeEmpty())
		Eventually(k8sClient.Usage).WithArguments("q").Should(Equal(pn.NewRangeUsage(2, 2, 0, 0)))
		freed := podCIDRsOf(names[0])()[0]
		Expect(op.Stop()).To(Succeed())

		deleteNode(names[0])
		Eventually(gone(names[0])).Should(BeTrue())
		Expect(quarantined()).To(BeEmpty())

		startOperator(withClock(clk))
		expectWaitsForQuarantine(clk, "downtime-new", freed)
		expectInvariants(history)
	})

	// Issue #31, point 1: status.quarantine lists a block that is handed out
	// again once its delay has passed and freed again before the next status
	// write; the leader is killed. The new leader must not trust the stale
	// freedAt: the block waits a full delay from the rebuild.
	It("quarantines from the rebuild a block reused and freed again after status.quarantine listed it, then killed", func() {
		history := recordRanges()
		clk := clocktesting.NewFakeClock(time.Now().Truncate(time.Second))
		op := startOperator(withClock(clk))
		createPodNetwork(8, pn.WhenExhaustedWait, framework.Range("q", "10.253.0.0/28").NodeMaskSize(30).Obj()) // 4 blocks
		names := k8sClient.CreateNodes("stale", 4)
		Eventually(allHavePodCIDRs(names)).Should(BeEmpty())
		Eventually(k8sClient.Usage).WithArguments("q").Should(Equal(pn.NewRangeUsage(4, 4, 0, 0)))
		Expect(op.Stop()).To(Succeed())

		// The next operator writes its status once, at the first change,
		// and never again: a status interval longer than the spec.
		op = startOperator(withClock(clk), withoutStatusWrites)
		freedAt := clk.Now()
		x := podCIDRsOf(names[0])()[0]
		deleteNode(names[0])
		Eventually(quarantined).Should(Equal([]string{x}))
		Expect(k8sClient.GetPodNetwork().Status.Quarantine[0].FreedAt.Time).To(BeTemporally("==", freedAt))

		// Past its delay, B gets X; B is deleted, and the operator killed.
		clk.Step(9 * time.Second)
		Expect(k8sClient.Create(suiteCtx, framework.Node("stale-b").Obj())).To(Succeed())
		Eventually(podCIDRsOf("stale-b")).Should(Equal([]string{x}))
		deleteNode("stale-b")
		Eventually(gone("stale-b")).Should(BeTrue())
		op.kill()
		Expect(quarantined()).To(Equal([]string{x}), "the status still lists X as freed before B got it")

		// One second later a new leader starts: C waits a full delay.
		clk.Step(time.Second)
		startOperator(withClock(clk))
		Expect(k8sClient.Create(suiteCtx, framework.Node("stale-c").Obj())).To(Succeed())
		Eventually(func() []string {
			if got := podCIDRsOf("stale-c")(); len(got) > 0 {
				StopTrying(fmt.Sprintf("C got %v within the delay since B's deletion", got)).Now()
			}
			return cidrNotAvailable(uidOf("stale-c"))()
		}).Should(ConsistOf(ContainSubstring("NodeIPAM retries in 8s, when the first quarantined block becomes reusable")))
		Expect(podCIDRsOf("stale-c")()).To(BeEmpty())
		clk.Step(9 * time.Second)
		touchNode("stale-c")
		Eventually(podCIDRsOf("stale-c")).Should(Equal([]string{x}))
		expectInvariants(history)
	})

	It("reuses no block early when more nodes than status.quarantine lists are deleted within one delay, across a kill", func() {
		const n = nodeipamcore.MaxStatusQuarantine + 4
		history := recordRanges()
		// 8192 blocks; the ones from n on are held by a few wide podCIDRs,
		// as another allocator could have left them, so the n nodes below
		// use up every other block.
		const cidr = "10.192.0.0/11"
		r := netip.MustParsePrefix(cidr)
		firstFiller := netip.AddrFrom4([4]byte{10, byte(192 + n>>8), byte(n & 0xff), 0})
		for i, p := range netipx.IPRangeFrom(firstFiller, netipx.PrefixLastIP(r)).Prefixes() {
			Expect(k8sClient.Create(suiteCtx, framework.Node(fmt.Sprint("filler-", i)).PodCIDRs(p.String()).Obj())).To(Succeed())
		}
		op := startOperator()
		createPodNetwork(3600, pn.WhenExhaustedWait, framework.Range("many", cidr).NodeMaskSize(24).Obj())

		names := createManyNodes("many", n)
		Eventually(func() int { return len(podCIDRsByNode(names)) }).WithTimeout(5 * time.Minute).WithPolling(time.Second).Should(Equal(n))
		freed := map[string]bool{}
		for _, cidrs := range podCIDRsByNode(names) {
			freed[cidrs[0]] = true
		}
		Expect(freed).To(HaveLen(n), "distinct blocks")
		deleteNodes(names)
		Eventually(quarantined).WithTimeout(2 * time.Minute).Should(HaveLen(nodeipamcore.MaxStatusQuarantine))

		// Every free block is quarantined: new nodes wait.
		waiting := k8sClient.CreateNodes("waiting", 4)
		for _, name := range waiting {
			Eventually(cidrNotAvailable(uidOf(name))).Should(ConsistOf(ContainSubstring("all free blocks are quarantined")))
		}

		// The status lists only the newest 4096 of them; the record keeps
		// the rest quarantined after a kill.
		op.kill()
		startOperator()
		for _, name := range waiting {
			Eventually(cidrNotAvailable(uidOf(name))).Should(HaveLen(2), "the new leader retried %s and found nothing free", name)
		}
		newcomer := k8sClient.CreateNodes("newcomer", 1)[0]
		Eventually(cidrNotAvailable(uidOf(newcomer))).Should(ConsistOf(ContainSubstring("all free blocks are quarantined")))
		for _, name := range append(waiting, newcomer) {
			Expect(podCIDRsOf(name)()).To(BeEmpty())
		}
		Eventually(k8sClient.Usage).WithArguments("many").Should(Equal(pn.NewRangeUsage(8192, int64(8192-n), 0, int64(n))))
		record := &corev1.ConfigMap{}
		Expect(k8sClient.Get(suiteCtx, client.ObjectKey{Namespace: framework.RecordNamespace, Name: nodeipamctrl.RecordName}, record)).To(Succeed())
		Expect(record.BinaryData).To(HaveKey(nodeipamctrl.RecordDataKey))
		expectInvariants(history)
	})
})

// inParallel runs fn for every name, 32 at a time: thousands of requests
// at once break the test client's connection.
func inParallel(names []string, fn func(name string)) {
	GinkgoHelper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for _, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer GinkgoRecover()
			defer wg.Done()
			defer func() { <-sem }()
			fn(name)
		}()
	}
	wg.Wait()
}

// createManyNodes creates count nodes named prefix-0 ... and returns their
// names.
func createManyNodes(prefix string, count int) []string {
	GinkgoHelper()
	names := make([]string, count)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	inParallel(names, func(name string) {
		Expect(k8sClient.Create(suiteCtx, framework.Node(name).Obj())).To(Succeed())
	})
	return names
}

// deleteNodes deletes the named nodes and waits until they are gone.
func deleteNodes(names []string) {
	GinkgoHelper()
	inParallel(names, deleteNode)
	Eventually(func() map[string][]string { return podCIDRsByNode(names) }).WithTimeout(2 * time.Minute).Should(BeEmpty())
}

// podCIDRsByNode lists the nodes and returns the podCIDRs of those named
// that have some, in one LIST instead of a GET per node.
func podCIDRsByNode(names []string) map[string][]string {
	GinkgoHelper()
	want := make(map[string]bool, len(names))
	for _, name := range names {
		want[name] = true
	}
	var nodes corev1.NodeList
	Expect(k8sClient.List(suiteCtx, &nodes)).To(Succeed())
	out := map[string][]string{}
	for _, node := range nodes.Items {
		if want[node.Name] && len(node.Spec.PodCIDRs) > 0 {
			out[node.Name] = node.Spec.PodCIDRs
		}
	}
	return out
}
