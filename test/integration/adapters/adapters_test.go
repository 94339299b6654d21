package adapters_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/rollout"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	kubeProxy = controllers.KubeProxyConsumerName
	flannel   = controllers.FlannelConsumerName
)

// The specs run in order on one cluster; each starts from the state the
// previous one left: range "base" (10.244.0.0/16, holding every node's
// podCIDR) Active and both configurations at 10.244.0.0/16.
var _ = Describe("kube-proxy and flannel adapters", Ordered, func() {
	base := rng("base", "10.244.0.0/16")

	// Every spec ends by checking the adapters' promises on the whole
	// history so far (history_test.go).
	AfterEach(func() { hist.check() })

	It("register as required consumers and adopt the existing configuration with one restart", func() {
		for _, name := range []string{kubeProxy, flannel} {
			Eventually(func() string { return consumer(name).Name }).Should(Equal(name))
			Expect(consumer(name).IsRequired()).To(BeTrue())
		}

		setRanges(base)
		Eventually(phase("base")).Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(ackOf(kubeProxy, "base")).Should(Equal("Active/Accepted"))
		Eventually(ackOf(flannel, "base")).Should(Equal("Active/Accepted"))

		// 10.244.0.0/16 was already configured: the text is unchanged, but
		// nothing proved the pods ran it, so each DaemonSet restarted once.
		Expect(kubeProxyConfigText()).To(Equal(kubeProxyConfig))
		Expect(flannelConfigText()).To(Equal(flannelConfig))
		expectRolledOut(kubeProxyNamespace, kubeProxyName, ack(kubeProxy, "base").LastTransitionTime)
		expectRolledOut(flannelNamespace, flannelDaemonSet, ack(flannel, "base").LastTransitionTime)
		Expect(ready(kubeProxy)()).To(haveReady(adapters.ReasonRunning, "clusterCIDR 10.244.0.0/16 runs on all 12 pods"))
	})

	It("rewrites only the managed fields, rolls out and acks before a new range becomes Active", func() {
		kpGeneration := getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation
		setRanges(base, rng("more", "10.245.0.0/16"))

		Eventually(phase("more")).Should(Equal(v1alpha1.RangePhaseActive))
		activeSince := rangeStatus("more").PhaseSince
		expectRolledOut(kubeProxyNamespace, kubeProxyName, activeSince)
		expectRolledOut(flannelNamespace, flannelDaemonSet, activeSince)
		Eventually(ackOf(kubeProxy, "more")).Should(Equal("Active/Accepted"))
		Eventually(ackOf(flannel, "more")).Should(Equal("Active/Accepted"))

		Expect(kubeProxyConfigText()).To(Equal(strings.Replace(kubeProxyConfig, "clusterCIDR: 10.244.0.0/16", "clusterCIDR: 10.244.0.0/15", 1)))
		Expect(flannelConfigText()).To(Equal(strings.Replace(flannelConfig, `"10.244.0.0/16"`, `"10.244.0.0/15"`, 1)))
		Expect(getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation).To(Equal(kpGeneration + 1))
		Expect(ack(kubeProxy, "more").Message).To(Equal("clusterCIDR 10.244.0.0/15 runs on all 12 pods of DaemonSet kube-system/kube-proxy"))
	})

	It("rejects a range whose covering prefix would swallow the service range, and says what would work", func() {
		kp := getDaemonSet(kubeProxyNamespace, kubeProxyName)
		setRanges(base, rng("more", "10.245.0.0/16"), rng("far", "10.0.0.0/16"))

		Eventually(ackOf(kubeProxy, "far")).Should(Equal("Pending/Rejected"))
		Eventually(ackOf(flannel, "far")).Should(Equal("Pending/Rejected"))
		msg := ack(kubeProxy, "far").Message
		Expect(msg).To(ContainSubstring(`with range "far" (10.0.0.0/16) the IPv4 prefix would be 10.0.0.0/8`))
		Expect(msg).To(ContainSubstring(`overlaps ServiceCIDR "kubernetes" (10.96.0.0/16)`))
		Expect(msg).To(ContainSubstring("Choose a range inside 10.128.0.0/9, or expand in place: add the range 10.128.0.0/9"))

		// The operator shows the rejection; the range stays Pending and
		// nothing was written or restarted for it.
		Eventually(func() []v1alpha1.RangeRejection { return rangeStatus("far").Rejections }).Should(ContainElement(
			v1alpha1.RangeRejection{Consumer: kubeProxy, Message: msg}))
		Expect(phase("far")()).To(Equal(v1alpha1.RangePhasePending))
		Expect(kubeProxyConfigText()).To(ContainSubstring("clusterCIDR: 10.244.0.0/15\n"))
		Expect(getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation).To(Equal(kp.Generation))

		// Removing it releases it without touching anything.
		setRanges(base, rng("more", "10.245.0.0/16"))
		Eventually(phase("far")).Should(BeEmpty())
	})

	It("shrinks the configuration only after a removed range is Released, then rolls out, acks and lets it be purged", func() {
		setRanges(base)
		Eventually(phase("more")).Should(BeEmpty(), "purged once every consumer acknowledged Released")
		Eventually(ackOf(kubeProxy, "more")).Should(BeEmpty())
		Eventually(ackOf(flannel, "more")).Should(BeEmpty())

		// Back to the original files, byte for byte. The history check
		// proves the order: shrunk only once Released, acknowledged only
		// once every pod ran the shrunk configuration.
		Expect(kubeProxyConfigText()).To(Equal(kubeProxyConfig))
		Expect(flannelConfigText()).To(Equal(flannelConfig))
	})

	It("makes flannel wait for a node that does not report FlannelIsUp, and names it", func() {
		skipNode.Store(nodeName(3))
		setRanges(base, rng("wait", "10.246.0.0/16"))

		Eventually(ackOf(kubeProxy, "wait")).Should(Equal("Pending/Accepted"))
		Eventually(ready(flannel)).Should(haveReady(adapters.ReasonWaitingForNodes,
			"Network 10.244.0.0/14 is rolled out to DaemonSet kube-flannel/kube-flannel-ds; waiting for 1 nodes to report NetworkUnavailable=False (FlannelIsUp)"))
		Expect(ready(flannel)().Message).To(HaveSuffix(": " + nodeName(3)))
		Expect(ackOf(flannel, "wait")()).To(BeEmpty())
		Expect(phase("wait")()).To(Equal(v1alpha1.RangePhasePending))

		skipNode.Store("")
		Eventually(phase("wait")).Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(ready(flannel)).Should(haveReady(adapters.ReasonRunning, "Network 10.244.0.0/14 runs on all 12 pods"))

		setRanges(base)
		Eventually(phase("wait")).Should(BeEmpty())
	})

	It("acks at once in kube-proxy's NodeCIDR mode and restarts nothing", func() {
		setConfigData(kubeProxyNamespace, kubeProxyName, kubeProxyKey,
			strings.Replace(kubeProxyConfig, `detectLocalMode: ""`, "detectLocalMode: NodeCIDR", 1))
		Eventually(ready(kubeProxy)).Should(haveReady(adapters.ReasonRangeIndependent, "detectLocalMode is NodeCIDR"))
		kp := getDaemonSet(kubeProxyNamespace, kubeProxyName)

		setRanges(base, rng("nodecidr", "10.247.0.0/16"))
		Eventually(phase("nodecidr")).Should(Equal(v1alpha1.RangePhaseActive), "after flannel's rollout")
		Eventually(ackOf(kubeProxy, "nodecidr")).Should(Equal("Active/Accepted"))
		Expect(ack(kubeProxy, "nodecidr").Message).To(ContainSubstring("range changes need no kube-proxy change"))
		Expect(getDaemonSet(kubeProxyNamespace, kubeProxyName).Generation).To(Equal(kp.Generation), "kube-proxy was not restarted")
		Expect(kubeProxyConfigText()).To(ContainSubstring("clusterCIDR: 10.244.0.0/16\n"))
	})

	It("blocks without acking or overwriting anything while flannel's DaemonSet is missing or its configuration unparseable", func() {
		ds := getDaemonSet(flannelNamespace, flannelDaemonSet)
		Expect(k8sClient.Delete(ctx, ds)).To(Succeed())
		// No garbage collector runs here: delete the orphans as it would.
		Expect(k8sClient.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(flannelNamespace), client.MatchingLabels{"app": "flannel"})).To(Succeed())
		Eventually(ready(flannel)).Should(haveReady(adapters.ReasonDaemonSetNotFound, "DaemonSet kube-flannel/kube-flannel-ds not found"))
		Expect(ready(flannel)().Status).To(Equal(metav1.ConditionFalse))

		working := flannelConfigText()
		broken := `{"Network": "10.244.0.0/14", "Backend": {"Type": "vxlan"}` // no closing brace
		setConfigData(flannelNamespace, flannelConfigMap, flannelKey, broken)
		setRanges(base, rng("nodecidr", "10.247.0.0/16"), rng("late", "10.248.0.0/16"))
		Eventually(ackOf(kubeProxy, "late")).Should(Equal("Pending/Accepted"))
		Expect(rangeStatus("late").Awaiting).To(ContainElement(flannel))

		recreated := daemonSet(flannelNamespace, flannelDaemonSet, "app", "flannel")
		Expect(k8sClient.Create(ctx, recreated)).To(Succeed())
		Eventually(ready(flannel)).Should(haveReady(adapters.ReasonInvalidConfig, "net-conf.json of ConfigMap kube-flannel/kube-flannel-cfg cannot be managed"))
		Expect(flannelConfigText()).To(Equal(broken))
		Expect(rollout.TemplateHash(getDaemonSet(flannelNamespace, flannelDaemonSet))).To(BeEmpty())
		Expect(ackOf(flannel, "late")()).To(BeEmpty())

		setConfigData(flannelNamespace, flannelConfigMap, flannelKey, working)
		Eventually(phase("late")).Should(Equal(v1alpha1.RangePhaseActive))
		Expect(flannelConfigText()).To(Equal(strings.Replace(flannelConfig, `"10.244.0.0/16"`, `"10.240.0.0/12"`, 1)))
		expectRolledOut(flannelNamespace, flannelDaemonSet, rangeStatus("late").PhaseSince)
	})
})

// haveReady matches a Ready condition by reason and message prefix.
func haveReady(reason, messagePrefix string) OmegaMatcher {
	return SatisfyAll(
		WithTransform(func(c metav1.Condition) string { return c.Reason }, Equal(reason)),
		WithTransform(func(c metav1.Condition) string { return c.Message }, HavePrefix(messagePrefix)),
	)
}
