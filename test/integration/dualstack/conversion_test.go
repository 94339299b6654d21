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

package dualstack_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	flannelcfg "podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/programs"
)

// The specs run in order on one cluster, each from the state the previous
// one left, as the steps of docs/operations.md's runbook "Convert an IPv4
// cluster to dual-stack".
var _ = Describe("Converting an IPv4 cluster running flannel to dual-stack", Ordered, func() {
	// The test plays Karpenter from the start to the end of the
	// conversion.
	var replaced func() []string
	BeforeAll(func() { replaced = startProvider() })

	// A failed spec shows what the operator and the programs said, since
	// the work directory goes with the cluster.
	AfterEach(func() {
		if !CurrentSpecReport().Failed() {
			return
		}
		for _, name := range []string{kubeProxy, flannel, late} {
			GinkgoWriter.Printf("consumer %s: %+v\nacks: %+v\n", name, k8sClient.ConsumerReady(name), k8sClient.Consumer(name).Status.Ranges)
		}
		if pn, err := k8sClient.PodNetwork(); err == nil {
			GinkgoWriter.Printf("ranges: %+v\ndrain assist: %+v\n", pn.Status.Ranges, pn.Status.DrainAssist)
		}
		for _, n := range k8sClient.Nodes() {
			GinkgoWriter.Printf("node %s: podCIDRs %v unschedulable %v\n", n.Name, n.Spec.PodCIDRs, n.Spec.Unschedulable)
		}
		GinkgoWriter.Printf("flannel net-conf.json: %s\n", flannelConfigText())
		for pod, tail := range kubelet.LogTails(15) {
			GinkgoWriter.Printf("--- %s\n%s\n", pod, tail)
		}
		GinkgoWriter.Printf("--- kube-apiserver\n%s\n", logTail("kube-apiserver.log", 20))
	})

	It("runs an IPv4 cluster: NodeIPAM gives each node an IPv4 block, flanneld and kube-proxy run it", func() {
		Expect(k8sClient.Create(ctx, framework.PodNetwork().Ranges(framework.Range("v4", podCIDR4).Obj()).Obj())).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("v4").Should(Equal(v1alpha1.RangePhaseActive))
		for _, c := range []string{kubeProxy, flannel, late} {
			Eventually(ackOf(c, "v4")).Should(Equal("Active/Accepted"), c)
		}
		for _, n := range []string{"node-a", "node-b"} {
			addNode(n, false)
		}
		for _, n := range []string{"node-a", "node-b"} {
			Eventually(podCIDRs(n)).Should(inRanges(podCIDR4), n)
			Eventually(subnetEnv(n)).Should(And(
				HaveKeyWithValue("FLANNEL_NETWORK", podCIDR4),
				HaveKeyWithValue("FLANNEL_SUBNET", subnetFor(podCIDRs(n)()[0]))), n)
			Eventually(iptablesSave(n)).Should(programs.FlannelMasquerades(podCIDR4), n)
		}
	})

	It("adds an IPv6 range with familyPolicy AllOrWait: kube-proxy runs both families, flannel acknowledges without enabling IPv6, and the range waits for the late plugin", func() {
		flannelGeneration := flannelDaemonSet().Generation
		editSpec(func(s *v1alpha1.PodNetworkSpec) {
			s.Ranges = append(s.Ranges, framework.Range("v6", podCIDR6).Obj())
			s.Allocation.FamilyPolicy = v1alpha1.FamilyPolicyAllOrWait
			s.DrainAssist = v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverDelete}
		})

		Eventually(ackOf(kubeProxy, "v6")).Should(Equal("Pending/Accepted"))
		Expect(kubeProxyConfigText()).To(ContainSubstring("clusterCIDR: " + podCIDR4 + "," + podCIDR6 + "\n"))
		Eventually(ackOf(flannel, "v6")).Should(Equal("Pending/Accepted"))
		Expect(k8sClient.Ack(flannel, "v6").Message).To(HavePrefix(notCarried + " flannel keeps carrying IPv4 only"))
		Eventually(func() []string { return k8sClient.RangeStatus("v6").Awaiting }).Should(ConsistOf(late))
		Expect(k8sClient.Phase("v6")).To(Equal(v1alpha1.RangePhasePending))
		Expect(flannelConf().IPv6Enabled()).To(BeFalse())
		Expect(flannelDaemonSet().Generation).To(Equal(flannelGeneration), "flannel was not rolled out")
	})

	It("keeps a node that registers while the IPv6 range is Pending waiting, then gives it both families at once", func() {
		addNode("node-w", true)
		Eventually(func() []string {
			var notes []string
			for _, ev := range k8sClient.Events("Node") {
				if ev.Regarding.Name == "node-w" && ev.Reason == "CIDRNotAvailable" {
					notes = append(notes, ev.Note)
				}
			}
			return notes
		}).Should(ContainElement(ContainSubstring("AllOrWait")))
		// The kubelet runs flannel's DaemonSet pod there while the node
		// waits, as a real kubelet would.
		Eventually(func() []string {
			var pods []string
			for pod := range kubelet.Running("node-w") {
				pods = append(pods, pod)
			}
			return pods
		}).Should(ContainElement(HavePrefix(programs.FlannelNamespace + "/" + programs.FlannelDaemonSet)))
		Expect(podCIDRs("node-w")()).To(BeEmpty())
		Expect(k8sClient.Phase("v6")).To(Equal(v1alpha1.RangePhasePending))

		lateHold.release()
		Eventually(k8sClient.Phase).WithArguments("v6").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(podCIDRs("node-w")).Should(inRanges(podCIDR4, podCIDR6))
		Eventually(subnetEnv("node-w")).Should(HaveKeyWithValue("FLANNEL_SUBNET", subnetFor(podCIDRs("node-w")()[0])))
	})

	It("replaces the IPv4-only nodes through drain assist; the new nodes get both families", func() {
		Eventually(replaced).Should(ConsistOf("node-a", "node-b"))
		Eventually(nodeNames).Should(ConsistOf("node-w", "node-r1", "node-r2"))
		Eventually(func() []string {
			var notes []string
			for _, ev := range k8sClient.Events("Node") {
				if ev.Reason == v1alpha1.DrainStartedEvent {
					notes = append(notes, ev.Regarding.Name+": "+ev.Note)
				}
			}
			return notes
		}).Should(ConsistOf(
			HavePrefix("node-a: Cordoned to replace it: it lacks an IPv6 podCIDR; familyPolicy AllOrWait"),
			HavePrefix("node-b: Cordoned to replace it: it lacks an IPv6 podCIDR; familyPolicy AllOrWait")))
		for _, n := range []string{"node-w", "node-r1", "node-r2"} {
			Eventually(podCIDRs(n)).Should(inRanges(podCIDR4, podCIDR6), n)
		}
	})

	It("enables IPv6 in flannel once every node holds an IPv6 block: the rollout restarts flanneld, and every node runs an IPv6 subnet", func() {
		Eventually(func() bool { return flannelConf().IPv6Enabled() }).Should(BeTrue())
		Expect(flannelConf().IPv6Network).To(Equal(podCIDR6))
		for _, n := range nodeNames() {
			cidrs := podCIDRs(n)()
			Eventually(subnetEnv(n)).Should(And(
				HaveKeyWithValue("FLANNEL_NETWORK", podCIDR4), HaveKeyWithValue("FLANNEL_SUBNET", subnetFor(cidrs[0])),
				HaveKeyWithValue("FLANNEL_IPV6_NETWORK", podCIDR6), HaveKeyWithValue("FLANNEL_IPV6_SUBNET", subnetFor(cidrs[1]))), n)
			Eventually(iptablesSave(n)).Should(programs.FlannelMasquerades(podCIDR4), n)
			Eventually(ip6tablesSave(n)).Should(programs.FlannelMasquerades(podCIDR6), n)
		}
		Eventually(ackOf(flannel, "v6")).Should(Equal("Active/Accepted"))
		Eventually(programsNotRunning).Should(BeEmpty())
	})

	It("restarts flanneld once more, by itself, after every node announced its IPv6 address, and only then carries IPv6: every node routes pod traffic to every other in both families", func() {
		// flanneld v0.28.10 ignores a Node update that changes only its
		// IPv6 annotations (pkg/subnet/kube: handleUpdateLeaseEvent), so
		// one started by the EnableIPv6 rollout before a peer's new
		// flanneld annotated that peer never learns the peer's IPv6
		// lease. The adapter marks its pod template once every node
		// announces it, which restarts flanneld once more.
		Eventually(func() map[string]string {
			return flannelDaemonSet().Spec.Template.Annotations
		}).Should(HaveKeyWithValue(flannelcfg.PeersAnnotation, flannelcfg.PeersAnnounced))
		for _, n := range k8sClient.Nodes() {
			Expect(n.Annotations).To(HaveKey(flannelPublicIPv6), "node %s announced its IPv6 address before the mark", n.Name)
		}
		Eventually(func() string { return k8sClient.Ack(flannel, "v6").Message }).ShouldNot(HavePrefix(notCarried))
		Expect(ackOf(flannel, "v6")()).To(Equal("Active/Accepted"))
		// The acknowledgement promises that every flanneld runs the
		// marked template, so has learnt its peers' IPv6 leases.
		ds := flannelDaemonSet()
		for _, p := range flannelPods() {
			Expect(p.Annotations).To(HaveKeyWithValue(flannelcfg.PeersAnnotation, flannelcfg.PeersAnnounced), "pod %s", p.Name)
			Expect(p.Annotations).To(HaveKeyWithValue(rollout.ConfigHashAnnotation, rollout.TemplateHash(ds)), "pod %s", p.Name)
		}
		Eventually(missingRoutes).Should(BeEmpty())
		Eventually(programsNotRunning).Should(BeEmpty())
	})

	It("makes Services dual-stack: kube-apiserver and kube-controller-manager restart with the IPv6 service range, and kube-proxy programs a dual-stack Service in both families", func() {
		Expect(controlPlane.Cluster.RestartAPIServerWith(map[string]string{"service-cluster-ip-range": serviceCIDR4 + "," + serviceCIDR6})).To(Succeed())
		kcm = startControllerManager(serviceCIDR4 + "," + serviceCIDR6)
		Eventually(func() []string {
			sc := &networkingv1.ServiceCIDR{}
			if err := k8sClient.Get(ctx, client.ObjectKey{Name: "kubernetes"}, sc); err != nil {
				return nil
			}
			return sc.Spec.CIDRs
		}).Should(Equal([]string{serviceCIDR4, serviceCIDR6}))

		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: corev1.ServiceSpec{
				IPFamilyPolicy: ptr.To(corev1.IPFamilyPolicyRequireDualStack),
				Ports:          []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
			},
		}
		Eventually(func() error { return k8sClient.Create(ctx, svc) }).Should(Succeed())
		Expect(svc.Spec.ClusterIPs).To(HaveLen(2))
		for family, addr := range map[discoveryv1.AddressType]string{
			discoveryv1.AddressTypeIPv4: network.Gateway4.Addr().String(),
			discoveryv1.AddressTypeIPv6: network.Gateway6.Addr().String(),
		} {
			Expect(k8sClient.Create(ctx, &discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-" + strings.ToLower(string(family)),
					Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
				AddressType: family,
				Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{addr}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
				Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](80), Protocol: ptr.To(corev1.ProtocolTCP)}},
			})).To(Succeed())
		}
		for _, n := range nodeNames() {
			Eventually(iptablesSave(n)).Should(programs.KubeProxyMasqueradesTo(podCIDR4, svc.Spec.ClusterIPs[0]), n)
			Eventually(ip6tablesSave(n)).Should(programs.KubeProxyMasqueradesTo(podCIDR6, svc.Spec.ClusterIPs[1]), n)
		}
		Eventually(programsNotRunning).Should(BeEmpty())
	})

	It("over the whole history: flanneld stopped only for the adapter's two rollouts (EnableIPv6, then its peers announced) and on replaced machines, never exited by itself, and never ran IPv6 on an IPv4-only lease", func() {
		Expect(hist.Err()).NotTo(HaveOccurred())
		expectProgramHistory(hist.Events(), kubelet.History(), replaced())
	})
})
