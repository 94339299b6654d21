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

package adapters_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	flannelcfg "podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/netnode"
)

const (
	kubeProxy = kubeproxy.Name
	flannel   = flannelcfg.Name

	// initialNodes are IPv4-only nodes with podCIDRs 10.244.<i>.0/24.
	initialNodes = 3
)

// The specs run in order on one cluster; each starts from the state the
// previous one left: range "base" (10.244.0.0/16, holding every node's
// podCIDR) Active and both configurations at 10.244.0.0/16, every node
// running real flanneld and kube-proxy.
var _ = Describe("kube-proxy and flannel adapters with the real programs", Ordered, func() {
	base := framework.Range("base", "10.244.0.0/16").Obj()

	// Every spec ends by checking the adapters' promises on the whole
	// history so far (history_test.go).
	AfterEach(func() { expectAdapterPromises(hist.Events()) })

	// A failed spec shows what the adapters said and what the programs
	// logged last, since the work directory goes with the cluster.
	AfterEach(func() {
		if !CurrentSpecReport().Failed() {
			return
		}
		for _, name := range []string{kubeProxy, flannel} {
			GinkgoWriter.Printf("consumer %s: %+v\nacks: %+v\n", name, k8sClient.ConsumerReady(name), k8sClient.Consumer(name).Status.Ranges)
		}
		GinkgoWriter.Printf("ranges: %+v\n", k8sClient.RangeStatus("base"))
		for pod, tail := range kubelet.LogTails(15) {
			GinkgoWriter.Printf("--- %s\n%s\n", pod, tail)
		}
		if b, err := os.ReadFile(filepath.Join(controlPlane.Cluster.WorkDir, "kube-controller-manager.log")); err == nil {
			lines := strings.Split(string(b), "\n")
			GinkgoWriter.Printf("--- kube-controller-manager\n%s\n", strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
	})

	It("register as required consumers and adopt the existing configuration with one restart", func() {
		for _, name := range []string{kubeProxy, flannel} {
			Eventually(func() string { return k8sClient.Consumer(name).Name }).Should(Equal(name))
			Expect(k8sClient.Consumer(name).IsRequired()).To(BeTrue())
		}

		setRanges(base)
		Eventually(k8sClient.Phase).WithArguments("base").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(ackOf(kubeProxy, "base")).Should(Equal("Active/Accepted"))
		Eventually(ackOf(flannel, "base")).Should(Equal("Active/Accepted"))

		// 10.244.0.0/16 was already configured: the text is unchanged, but
		// nothing proved the pods ran it, so each DaemonSet restarted once.
		Expect(kubeProxyConfigText()).To(Equal(kubeProxyConfig))
		Expect(flannelConfigText()).To(Equal(flannelConfig))
		expectRolledOut(kubeProxyNamespace, kubeProxyName, k8sClient.Ack(kubeProxy, "base").LastTransitionTime)
		expectRolledOut(flannelNamespace, flannelDaemonSet, k8sClient.Ack(flannel, "base").LastTransitionTime)
		Expect(k8sClient.ConsumerReady(kubeProxy)).To(haveReady(adapters.ReasonRunning, "clusterCIDR 10.244.0.0/16 runs on all 3 pods"))
		expectPrograms("10.244.0.0/16")
	})

	It("grows IPv4 by a supernet: rolls out and acks before the range becomes Active, and a node in it runs flannel", func() {
		kpGeneration := getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation
		setRanges(base, framework.Range("more", "10.245.0.0/16").Obj())

		Eventually(k8sClient.Phase).WithArguments("more").Should(Equal(v1alpha1.RangePhaseActive))
		activeSince := k8sClient.RangeStatus("more").PhaseSince
		expectRolledOut(kubeProxyNamespace, kubeProxyName, activeSince)
		expectRolledOut(flannelNamespace, flannelDaemonSet, activeSince)
		Eventually(ackOf(kubeProxy, "more")).Should(Equal("Active/Accepted"))
		Eventually(ackOf(flannel, "more")).Should(Equal("Active/Accepted"))

		Expect(kubeProxyConfigText()).To(Equal(strings.Replace(kubeProxyConfig, "clusterCIDR: 10.244.0.0/16", "clusterCIDR: 10.244.0.0/15", 1)))
		Expect(flannelConfigText()).To(Equal(strings.Replace(flannelConfig, `"10.244.0.0/16"`, `"10.244.0.0/15"`, 1)))
		Expect(getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation).To(Equal(kpGeneration + 1))
		Expect(k8sClient.Ack(kubeProxy, "more").Message).To(Equal("clusterCIDR 10.244.0.0/15 runs on all 3 pods of DaemonSet kube-system/kube-proxy"))
		expectPrograms("10.244.0.0/15")

		// With the original Network, flanneld refuses a node whose podCIDR
		// lies in the new range; with the grown one it runs.
		addNode("node-20", "10.245.0.0/24")
		Eventually(subnetEnv("node-20")).Should(HaveKeyWithValue("FLANNEL_SUBNET", "10.245.0.1/24"))
		Eventually(iptablesSave("node-20")).Should(flannelMasquerades("10.244.0.0/15"))
	})

	It("rejects a range whose covering prefix would swallow the service range, and says what would work", func() {
		kp := getDaemonSet(kubeProxyNamespace, kubeProxyName)
		setRanges(base, framework.Range("more", "10.245.0.0/16").Obj(), framework.Range("far", "10.0.0.0/16").Obj())

		Eventually(ackOf(kubeProxy, "far")).Should(Equal("Pending/Rejected"))
		Eventually(ackOf(flannel, "far")).Should(Equal("Pending/Rejected"))
		msg := k8sClient.Ack(kubeProxy, "far").Message
		Expect(msg).To(ContainSubstring(`with range "far" (10.0.0.0/16) the IPv4 prefix would be 10.0.0.0/8`))
		Expect(msg).To(ContainSubstring(`overlaps ServiceCIDR "kubernetes" (10.96.0.0/16)`))
		Expect(msg).To(ContainSubstring("Choose a range inside 10.128.0.0/9, or expand in place: add the range 10.128.0.0/9"))

		// The operator shows the rejection; the range stays Pending and
		// nothing was written or restarted for it.
		Eventually(func() []v1alpha1.RangeRejection { return k8sClient.RangeStatus("far").Rejections }).Should(ContainElement(
			v1alpha1.RangeRejection{Consumer: kubeProxy, Message: msg}))
		Expect(k8sClient.Phase("far")).To(Equal(v1alpha1.RangePhasePending))
		Expect(kubeProxyConfigText()).To(ContainSubstring("clusterCIDR: 10.244.0.0/15\n"))
		Expect(getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation).To(Equal(kp.Generation))

		// Removing it releases it without touching anything.
		setRanges(base, framework.Range("more", "10.245.0.0/16").Obj())
		Eventually(k8sClient.Phase).WithArguments("far").Should(BeEmpty())
	})

	It("shrinks the configuration only after a removed range is Released, then rolls out, acks and lets it be purged", func() {
		removeNode("node-20") // the last node holding a block of "more"
		setRanges(base)
		Eventually(k8sClient.Phase).WithArguments("more").Should(BeEmpty(), "purged once every consumer acknowledged Released")
		Eventually(ackOf(kubeProxy, "more")).Should(BeEmpty())
		Eventually(ackOf(flannel, "more")).Should(BeEmpty())

		// Back to the original files, byte for byte. The history check
		// proves the order: shrunk only once Released, acknowledged only
		// once every pod ran the shrunk configuration.
		Expect(kubeProxyConfigText()).To(Equal(kubeProxyConfig))
		Expect(flannelConfigText()).To(Equal(flannelConfig))
		expectPrograms("10.244.0.0/16")
	})

	It("widens to the covering prefix of a second, disjoint IPv4 range and back", func() {
		setRanges(base, framework.Range("disjoint", "10.250.0.0/16").Obj())
		Eventually(k8sClient.Phase).WithArguments("disjoint").Should(Equal(v1alpha1.RangePhaseActive))
		Expect(flannelConfigText()).To(Equal(strings.Replace(flannelConfig, `"10.244.0.0/16"`, `"10.240.0.0/12"`, 1)))
		expectPrograms("10.240.0.0/12")

		setRanges(base)
		Eventually(k8sClient.Phase).WithArguments("disjoint").Should(BeEmpty())
		expectPrograms("10.244.0.0/16")
	})

	It("does not ack while flanneld cannot start on a node, and names the node", func() {
		broken := addNode("node-21", "10.244.21.0/24")
		Expect(broken.RenameInterface("ens5")).To(Succeed()) // flanneld runs with --iface=eth0
		setRanges(base, framework.Range("wait", "10.246.0.0/16").Obj())

		Eventually(ackOf(kubeProxy, "wait")).Should(Equal("Pending/Accepted"))
		Eventually(k8sClient.ConsumerReady).WithArguments(flannel).Should(WithTransform(func(c metav1.Condition) string { return c.Message }, ContainSubstring("node-21")))
		Expect(ackOf(flannel, "wait")()).To(BeEmpty())
		Expect(k8sClient.Phase("wait")).To(Equal(v1alpha1.RangePhasePending))
		// The real flanneld exits there ("failed to find interface") and
		// is restarted with a back-off, as the kubelet would.
		Eventually(func() map[string]netnode.ContainerState { return kubelet.Running("node-21") }).Should(
			HaveKeyWithValue(ContainSubstring(flannelDaemonSet), HaveField("Restarts", BeNumerically(">=", 1))))

		Expect(broken.RenameInterface("eth0")).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("wait").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(k8sClient.ConsumerReady).WithArguments(flannel).Should(haveReady(adapters.ReasonRunning, "Network 10.244.0.0/14 runs on all 4 pods"))
		Eventually(subnetEnv("node-21")).Should(HaveKeyWithValue("FLANNEL_NETWORK", "10.244.0.0/14"))

		removeNode("node-21")
		setRanges(base)
		Eventually(k8sClient.Phase).WithArguments("wait").Should(BeEmpty())
	})

	It("drives kube-proxy in nftables mode", func() {
		setConfigData(kubeProxyNamespace, kubeProxyName, kubeProxyKey, strings.Replace(kubeProxyConfig, `mode: ""`, "mode: nftables", 1))
		setRanges(base, framework.Range("nft", "10.245.0.0/16").Obj())
		Eventually(k8sClient.Phase).WithArguments("nft").Should(Equal(v1alpha1.RangePhaseActive))
		for _, n := range nodeNames() {
			Eventually(nftRuleset(n)).Should(kubeProxyNftMasquerades("10.244.0.0/15"), "node %s", n)
		}

		setRanges(base)
		Eventually(k8sClient.Phase).WithArguments("nft").Should(BeEmpty())
		setConfigData(kubeProxyNamespace, kubeProxyName, kubeProxyKey, kubeProxyConfig)
		Eventually(k8sClient.ConsumerReady).WithArguments(kubeProxy).Should(haveReady(adapters.ReasonRunning, "clusterCIDR 10.244.0.0/16 runs on all 3 pods"))
		expectPrograms("10.244.0.0/16")
	})

	It("drives kube-proxy in IPVS mode where the kernel has IPVS", func() {
		// IPVS needs CONFIG_IP_VS, which a kernel may lack (and which no
		// namespace can add): the kernel refuses the mode, not the test.
		if _, err := os.Stat("/proc/net/ip_vs"); err != nil {
			Skip("the kernel has no IPVS (CONFIG_IP_VS): /proc/net/ip_vs: " + err.Error())
		}
		setConfigData(kubeProxyNamespace, kubeProxyName, kubeProxyKey, strings.Replace(kubeProxyConfig, `mode: ""`, "mode: ipvs", 1))
		setRanges(base, framework.Range("ipvs", "10.245.0.0/16").Obj())
		Eventually(k8sClient.Phase).WithArguments("ipvs").Should(Equal(v1alpha1.RangePhaseActive))
		for _, n := range nodeNames() {
			Eventually(iptablesSave(n)).Should(MatchRegexp(`! -s 10\.244\.0\.0/15 .*KUBE-CLUSTER-IP.*-j KUBE-MARK-MASQ`), "node %s", n)
		}
		setRanges(base)
		Eventually(k8sClient.Phase).WithArguments("ipvs").Should(BeEmpty())
		setConfigData(kubeProxyNamespace, kubeProxyName, kubeProxyKey, kubeProxyConfig)
		expectPrograms("10.244.0.0/16")
	})

	It("acks at once in kube-proxy's NodeCIDR mode and restarts nothing", func() {
		setConfigData(kubeProxyNamespace, kubeProxyName, kubeProxyKey,
			strings.Replace(kubeProxyConfig, `detectLocalMode: ""`, "detectLocalMode: NodeCIDR", 1))
		Eventually(k8sClient.ConsumerReady).WithArguments(kubeProxy).Should(haveReady(adapters.ReasonRangeIndependent, "detectLocalMode is NodeCIDR"))
		kp := getDaemonSet(kubeProxyNamespace, kubeProxyName)

		setRanges(base, framework.Range("nodecidr", "10.247.0.0/16").Obj())
		Eventually(k8sClient.Phase).WithArguments("nodecidr").Should(Equal(v1alpha1.RangePhaseActive), "after flannel's rollout")
		Eventually(ackOf(kubeProxy, "nodecidr")).Should(Equal("Active/Accepted"))
		Expect(k8sClient.Ack(kubeProxy, "nodecidr").Message).To(ContainSubstring("range changes need no kube-proxy change"))
		Expect(getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation).To(Equal(kp.Generation), "kube-proxy was not restarted")
		Expect(kubeProxyConfigText()).To(ContainSubstring("clusterCIDR: 10.244.0.0/16\n"))
	})

	It("blocks without acking or overwriting anything while flannel's DaemonSet is missing or its configuration unparseable", func() {
		Expect(k8sClient.Delete(ctx, getDaemonSet(flannelNamespace, flannelDaemonSet))).To(Succeed())
		// No garbage collector runs here: delete the orphans as it would.
		Expect(k8sClient.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(flannelNamespace), client.MatchingLabels{"app": "flannel"})).To(Succeed())
		Eventually(k8sClient.ConsumerReady).WithArguments(flannel).Should(haveReady(adapters.ReasonDaemonSetNotFound, "DaemonSet kube-flannel/kube-flannel-ds not found"))
		Expect(k8sClient.ConsumerReady(flannel).Status).To(Equal(metav1.ConditionFalse))

		working := flannelConfigText()
		broken := `{"Network": "10.244.0.0/14", "Backend": {"Type": "vxlan"}` // no closing brace
		setConfigData(flannelNamespace, flannelConfigMap, flannelKey, broken)
		setRanges(base, framework.Range("nodecidr", "10.247.0.0/16").Obj(), framework.Range("late", "10.248.0.0/16").Obj())
		Eventually(ackOf(kubeProxy, "late")).Should(Equal("Pending/Accepted"))
		Expect(k8sClient.RangeStatus("late").Awaiting).To(ContainElement(flannel))

		Expect(k8sClient.Create(ctx, flannelDaemonSetObject())).To(Succeed())
		Eventually(k8sClient.ConsumerReady).WithArguments(flannel).Should(haveReady(adapters.ReasonInvalidConfig, "net-conf.json of ConfigMap kube-flannel/kube-flannel-cfg cannot be managed"))
		Expect(flannelConfigText()).To(Equal(broken))
		Expect(rollout.TemplateHash(getDaemonSet(flannelNamespace, flannelDaemonSet))).To(BeEmpty())
		Expect(ackOf(flannel, "late")()).To(BeEmpty())

		setConfigData(flannelNamespace, flannelConfigMap, flannelKey, working)
		Eventually(k8sClient.Phase).WithArguments("late").Should(Equal(v1alpha1.RangePhaseActive))
		Expect(flannelConfigText()).To(Equal(strings.Replace(flannelConfig, `"10.244.0.0/16"`, `"10.240.0.0/12"`, 1)))
		expectRolledOut(flannelNamespace, flannelDaemonSet, rangePhaseSince("late"))
		for _, n := range nodeNames() {
			Eventually(subnetEnv(n)).Should(HaveKeyWithValue("FLANNEL_NETWORK", "10.240.0.0/12"), "node %s", n)
		}

		setRanges(base)
		Eventually(k8sClient.Phase).WithArguments("late").Should(BeEmpty())
		Eventually(k8sClient.Phase).WithArguments("nodecidr").Should(BeEmpty())
		setConfigData(kubeProxyNamespace, kubeProxyName, kubeProxyKey, kubeProxyConfig)
		expectPrograms("10.244.0.0/16")
	})

	It("accepts an IPv6 range for flannel without carrying it while its nodes are IPv4-only, and restarts no flanneld", func() {
		before := programs()
		ds := getDaemonSet(flannelNamespace, flannelDaemonSet)
		setRanges(base, framework.Range("v6", "fd00:10:244::/56").Obj())

		// Accepted, not rejected: a rejection would keep the range
		// Pending, and no node could ever get the IPv6 block that lets
		// flannel turn IPv6 on.
		Eventually(k8sClient.Phase).WithArguments("v6").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(ackOf(flannel, "v6")).Should(Equal("Active/Accepted"))
		msg := k8sClient.Ack(flannel, "v6").Message
		Expect(adapters.IsNotCarried(msg)).To(BeTrue(), msg)
		Expect(msg).To(ContainSubstring("flannel keeps carrying IPv4 only"))
		Expect(msg).To(ContainSubstring(fmt.Sprintf("%d nodes hold podCIDRs without an IPv6 one", initialNodes)))
		Expect(msg).To(ContainSubstring("node-00, node-01, node-02"))
		Expect(msg).To(ContainSubstring("--enable-node-ipam=false"), "this suite's nodes get their podCIDRs from fixtures")
		Expect(k8sClient.RangeStatus("v6").Rejections).To(BeEmpty())
		Expect(flannelConfigText()).To(Equal(flannelConfig))
		Expect(getDaemonSet(flannelNamespace, flannelDaemonSet).Generation).To(Equal(ds.Generation), "flannel was not rolled out")
		expectRunningWithoutRestart(before)
		for _, n := range nodeNames() {
			Expect(subnetEnv(n)()).NotTo(HaveKey("FLANNEL_IPV6_NETWORK"), "node %s", n)
		}
		// kube-proxy runs a dual-stack clusterCIDR on IPv4-only nodes, so
		// its adapter accepts the range once kube-proxy runs it everywhere.
		Eventually(ackOf(kubeProxy, "v6")).Should(Equal("Active/Accepted"))
		Expect(kubeProxyConfigText()).To(ContainSubstring("clusterCIDR: 10.244.0.0/16,fd00:10:244::/56\n"))
		expectRunningWithoutRestart(before)
	})

	It("keeps IPv6 off without NodeIPAM even once every node is dual-stack; a dual-stack flannel takes a second IPv6 range", func() {
		// podCIDRs never change: the IPv4-only nodes are replaced by
		// dual-stack ones.
		for i := range initialNodes {
			removeNode(nodeName(i))
		}
		for i := 10; i < 12; i++ {
			addNode(nodeName(i), fmt.Sprintf("10.244.%d.0/24", i), fmt.Sprintf("fd00:10:244:%x::/64", i))
		}
		// Nothing guarantees that a node joining gets an IPv6 podCIDR: the
		// fixtures, not the operator's NodeIPAM, give them out here.
		Eventually(func() string { return k8sClient.Ack(flannel, "v6").Message }).ShouldNot(ContainSubstring("nodes hold podCIDRs without"))
		Expect(k8sClient.Ack(flannel, "v6").Message).To(ContainSubstring("--enable-node-ipam=false"))
		Consistently(flannelConfigText, "3s").ShouldNot(ContainSubstring("IPv6Network"))

		// The admin, who knows how nodes get their podCIDRs, turns IPv6 on
		// by hand; the adapter rolls it out and keeps it.
		text, err := flannelcfg.SetNetworks(flannelConfigText(), flannelcfg.Networks{IPv6Network: "fd00:10:244::/56", EnableIPv6: true})
		Expect(err).NotTo(HaveOccurred())
		setConfigData(flannelNamespace, flannelConfigMap, flannelKey, text)
		Eventually(func() string { return k8sClient.Ack(flannel, "v6").Message }).ShouldNot(HavePrefix(adapters.NotCarriedPrefix))
		for i := 10; i < 12; i++ {
			Eventually(subnetEnv(nodeName(i))).Should(And(
				HaveKeyWithValue("FLANNEL_IPV6_NETWORK", "fd00:10:244::/56"),
				HaveKeyWithValue("FLANNEL_IPV6_SUBNET", fmt.Sprintf("fd00:10:244:%x::1/64", i))))
		}

		before := programs()
		setRanges(base, framework.Range("v6", "fd00:10:244::/56").Obj(), framework.Range("v6b", "fd00:10:244:100::/56").Obj())
		Eventually(k8sClient.Phase).WithArguments("v6b").Should(Equal(v1alpha1.RangePhaseActive))
		// The range turns Active on the Pending acks; the Active ack follows.
		Eventually(ackOf(flannel, "v6b")).Should(Equal("Active/Accepted"))
		Expect(flannelConfigText()).To(ContainSubstring(`"IPv6Network": "fd00:10:244::/55"`))
		Expect(kubeProxyConfigText()).To(ContainSubstring("clusterCIDR: 10.244.0.0/16,fd00:10:244::/55\n"))
		for i := 10; i < 12; i++ {
			n := nodeName(i)
			Eventually(subnetEnv(n)).Should(HaveKeyWithValue("FLANNEL_IPV6_NETWORK", "fd00:10:244::/55"), "node %s", n)
			Eventually(ip6tablesSave(n)).Should(flannelMasquerades("fd00:10:244::/55"), "node %s", n)
		}
		Expect(programs()).To(HaveLen(len(before)))
	})

	It("flags a clusterCIDR kube-proxy refuses, a space after the comma, and rolls kube-proxy out with it repaired", func() {
		kp := types.NamespacedName{Namespace: kubeProxyNamespace, Name: kubeProxyName}
		generation := getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation
		what, err := framework.KubeProxyClusterCIDRWithSpace(ctx, k8sClient, kp, kubeProxyKey, "10.244.0.0/16", "fd00:10:244::/55")
		Expect(err).NotTo(HaveOccurred())
		GinkgoWriter.Println("wrote", what)

		Eventually(func() []string {
			var notes []string
			for _, ev := range k8sClient.Events("ConfigMap") {
				if ev.Reason == adapters.EventInvalidValue && ev.Regarding.Name == kubeProxyName {
					notes = append(notes, ev.Note)
				}
			}
			return notes
		}).Should(ContainElement(And(
			ContainSubstring(`clusterCIDR "10.244.0.0/16, fd00:10:244::/55" is refused by kube-proxy, which exits at start: " fd00:10:244::/55" is not a CIDR: kube-proxy does not trim spaces`),
			ContainSubstring("the kube-proxy adapter replaced it (clusterCIDR 10.244.0.0/16,fd00:10:244::/55)"))))
		Eventually(kubeProxyConfigText).Should(ContainSubstring("clusterCIDR: \"10.244.0.0/16,fd00:10:244::/55\"\n"))
		Eventually(func() int64 { return getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation }).Should(BeNumerically(">", generation))
		// Every kube-proxy pod restarted with the repaired file and runs.
		Eventually(func() []string {
			ds := getDaemonSet(kubeProxyNamespace, kubeProxyName)
			var stale []string
			for _, p := range daemonSetPods(ds) {
				if p.Annotations[rollout.ConfigHashAnnotation] != adapters.ConfigHash(kubeProxyConfigText()) {
					stale = append(stale, p.Name)
				}
			}
			return stale
		}).Should(BeEmpty())
		Eventually(func() []string {
			var down []string
			for pod, s := range programs() {
				if strings.HasPrefix(pod, kubeProxyName) && !s.Running {
					down = append(down, pod+": "+s.LastExit)
				}
			}
			return down
		}).Should(BeEmpty())
		Expect(ackOf(kubeProxy, "v6b")()).To(Equal("Active/Accepted"))
	})
})

// expectPrograms asserts that on every node the real flanneld runs Network
// and masquerades by it, and the real kube-proxy masquerades ClusterIP
// traffic from outside it.
func expectPrograms(network string) {
	for _, n := range nodeNames() {
		Eventually(subnetEnv(n)).Should(HaveKeyWithValue("FLANNEL_NETWORK", network), "node %s", n)
		Eventually(iptablesSave(n)).Should(And(flannelMasquerades(network), kubeProxyMasquerades(network)), "node %s", n)
	}
	for pod, s := range programs() {
		Expect(s.Running).To(BeTrue(), "%s: %s", pod, s.LastExit)
	}
}

func rangePhaseSince(name string) *metav1.Time { return k8sClient.RangeStatus(name).PhaseSince }

// haveReady matches a Ready condition by reason and message prefix.
func haveReady(reason, messagePrefix string) OmegaMatcher {
	return SatisfyAll(
		WithTransform(func(c metav1.Condition) string { return c.Reason }, Equal(reason)),
		WithTransform(func(c metav1.Condition) string { return c.Message }, HavePrefix(messagePrefix)),
	)
}
