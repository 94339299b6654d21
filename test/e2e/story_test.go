//go:build e2e

package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/invariants"
	"podnetwork.io/operator/test/refconsumer"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

const (
	firstCIDR  = "10.100.0.0/19"  // 32 node blocks of /24
	secondCIDR = "10.100.64.0/18" // 64 node blocks of /24
)

var _ = Describe("The admin's story", Ordered, func() {
	checker := &invariants.Checker{}

	BeforeAll(func() {
		watchRanges(checker)
		By("starting the plugin as its own ServiceAccount")
		mgr, err := ctrl.NewManager(testEnv.ImpersonateServiceAccount(pluginNamespace, pluginName), ctrl.Options{
			Scheme:                 controllers.Scheme(),
			Metrics:                metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress: "0",
		})
		Expect(err).NotTo(HaveOccurred())
		plugin := &refconsumer.Consumer{Client: mgr.GetClient(), Name: pluginName, Required: true, Delay: time.Second}
		Expect(plugin.SetupWithManager(mgr)).To(Succeed())
		go func() {
			defer GinkgoRecover()
			Expect(mgr.Start(ctx)).To(Or(Succeed(), MatchError(ContainSubstring("context canceled"))))
		}()
	})

	AfterEach(func() {
		Expect(checker.CheckCluster(ctx, admin)).To(Succeed(), "no overlapping podCIDRs, none outside a range that was Active")
	})

	It("activates a range only after every consumer acknowledged it, then allocates from it", func() {
		Expect(admin.Create(ctx, &v1alpha1.PodNetwork{
			ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
			Spec: v1alpha1.PodNetworkSpec{
				Ranges:     []v1alpha1.PodCIDRRange{{Name: "first", CIDR: firstCIDR}},
				Allocation: v1alpha1.AllocationPolicy{RecycleDelaySeconds: ptr.To[int32](2)},
			},
		})).To(Succeed())
		Eventually(rangePhase("first")).Should(Equal(v1alpha1.RangePhaseActive))
		for _, name := range []string{"node-ipam", pluginName} {
			c := &v1alpha1.PodNetworkConsumer{}
			Expect(admin.Get(ctx, client.ObjectKey{Name: name}, c)).To(Succeed())
			Expect(c.Status.Ranges).To(ContainElement(And(HaveField("Name", "first"), HaveField("Result", v1alpha1.AckAccepted))))
		}

		addNodes("node", 0, 20)
		Eventually(allocatedNodes).Should(Equal(20))
	})

	It("lets new nodes wait with an event when the range is full, and serves them from a second range", func() {
		addNodes("node", 20, 16)
		Eventually(allocatedNodes).Should(Equal(32))
		Eventually(func() []string {
			var list eventsv1.EventList
			Expect(admin.List(ctx, &list)).To(Succeed())
			var reasons []string
			for _, ev := range list.Items {
				if ev.Regarding.Kind == "Node" {
					reasons = append(reasons, ev.Type+"/"+ev.Reason)
				}
			}
			return reasons
		}).Should(ContainElement("Warning/CIDRNotAvailable"))
		Consistently(allocatedNodes, 2*time.Second).Should(Equal(32))

		editRanges(func(r []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
			return append(r, v1alpha1.PodCIDRRange{Name: "second", CIDR: secondCIDR})
		})
		Eventually(rangePhase("second")).Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(allocatedNodes).Should(Equal(36))
	})

	It("drains a removed range until its nodes are replaced, then releases and purges it", func() {
		editRanges(func(r []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
			return []v1alpha1.PodCIDRRange{r[1]}
		})
		Eventually(rangePhase("first")).Should(Equal(v1alpha1.RangePhaseDraining))
		Eventually(func() int32 { return rangeStatus("first").HolderCount }).Should(Equal(int32(32)))
		Expect(rangeStatus("first").Holders).To(HaveLen(20), "the first 20 holders are named")

		for i, name := range holdersOf(firstCIDR) {
			Expect(admin.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
			Expect(admin.Create(ctx, newNode(name+"-new", 100+i))).To(Succeed())
		}
		Eventually(rangePhase("first")).Should(BeEmpty(), "Released, then purged")
		Eventually(allocatedNodes).Should(Equal(36))
		Expect(holdersOf(firstCIDR)).To(BeEmpty())
		Eventually(func() bool {
			return meta.IsStatusConditionTrue(getPodNetwork().Status.Conditions, v1alpha1.ReadyCondition)
		}).Should(BeTrue())
	})

	It("lets the plugin write its own consumer status and nothing else", func() {
		plugin, err := client.New(testEnv.ImpersonateServiceAccount(pluginNamespace, pluginName), client.Options{Scheme: controllers.Scheme()})
		Expect(err).NotTo(HaveOccurred())

		own := &v1alpha1.PodNetworkConsumer{}
		Expect(plugin.Get(ctx, client.ObjectKey{Name: pluginName}, own)).To(Succeed())
		own.Status.Conditions = append(own.Status.Conditions[:0:0], own.Status.Conditions...)
		Expect(plugin.Status().Update(ctx, own)).To(Succeed(), "its own status")

		other := &v1alpha1.PodNetworkConsumer{}
		Expect(plugin.Get(ctx, client.ObjectKey{Name: "node-ipam"}, other)).To(Succeed())
		other.Status.Ranges = nil
		Expect(apierrors.IsForbidden(plugin.Status().Update(ctx, other))).To(BeTrue(), "another consumer's status")

		pn := &v1alpha1.PodNetwork{}
		Expect(plugin.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn)).To(Succeed())
		pn.Spec.Ranges = nil
		Expect(apierrors.IsForbidden(plugin.Update(ctx, pn))).To(BeTrue(), "the PodNetwork spec")
		Expect(apierrors.IsForbidden(plugin.Status().Update(ctx, pn))).To(BeTrue(), "the PodNetwork status")
	})

	It("fails over: only the leader writes, and the other replica takes over after a SIGKILL", func() {
		var lead, other *operatorProcess
		Eventually(func() error {
			lead, other = leader(), follower()
			if lead == nil || other == nil {
				return errors.New("no leader and follower yet")
			}
			return nil
		}).Should(Succeed())
		Expect(other.writes()).To(Equal(0), "the follower never wrote to the apiserver")

		By("killing the leader")
		Expect(lead.proc.Kill()).To(Succeed())
		killedAt := time.Now()
		addNodes("after-failover", 0, 3)
		Eventually(other.isLeader, 30*time.Second).Should(BeTrue())
		Expect(time.Since(killedAt)).To(BeNumerically("<", 30*time.Second), "within the lease duration (15s) plus a retry")
		Eventually(allocatedNodes).Should(Equal(39))
	})

	It("upgrades with changed values and uninstalls without touching the pod network", func() {
		values := filepath.Join(testEnv.WorkDir, "upgrade-values.yaml")
		Expect(os.WriteFile(values, []byte(`plugins:
  - name: `+pluginName+`
    serviceAccount: {name: `+pluginName+`, namespace: `+pluginNamespace+`}
  - name: second-plugin
    required: false
    serviceAccount: {name: second-plugin, namespace: `+pluginNamespace+`}
`), 0o600)).To(Succeed())
		helm("upgrade", releaseName, filepath.Join(root, "charts", "podnetwork-operator"), "--namespace", releaseNamespace,
			"--reuse-values", "-f", values)
		second := &v1alpha1.PodNetworkConsumer{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: "second-plugin"}, second)).To(Succeed())
		Expect(second.Spec.Required).To(Equal(ptr.To(false)))
		Eventually(func() []string {
			var names []string
			for _, c := range getPodNetwork().Status.Consumers {
				names = append(names, c.Name)
			}
			return names
		}).Should(ContainElement("second-plugin"))
		Expect(meta.IsStatusConditionTrue(getPodNetwork().Status.Conditions, v1alpha1.ReadyCondition)).To(BeTrue(),
			"a consumer that is not required never holds anything up")

		helm("uninstall", releaseName, "--namespace", releaseNamespace)
		Eventually(func() bool {
			return apierrors.IsNotFound(admin.Get(ctx, client.ObjectKey{Name: "second-plugin"}, &v1alpha1.PodNetworkConsumer{}))
		}).Should(BeTrue(), "the chart's consumers go with the release")
		Expect(getPodNetwork().Spec.Ranges).To(HaveLen(1), "the PodNetwork stays")
		Expect(allocatedNodes()).To(Equal(39), "every node keeps its podCIDR")
	})
})
