package controllers_test

import (
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/refconsumer"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// lifecycleFixture is one spec's operator, two reference consumers and the
// recorded history.
type lifecycleFixture struct {
	op        *operator
	consumers *consumerProcess
	hist      *history
	// hold keeps consumer "beta" from answering while true.
	hold atomic.Bool
	// reject makes consumer "beta" reject Pending ranges whose cidr starts
	// with this prefix.
	reject atomic.Value
	// hint ends beta's rejection message.
	hint atomic.Value
	// required are the consumers the invariants wait for.
	required []string
}

func newLifecycleFixture() *lifecycleFixture {
	f := &lifecycleFixture{required: []string{"alpha", "beta"}}
	f.reject.Store("")
	f.hint.Store("use a range inside 10.64.0.0/10")
	f.hist = recordHistory()
	f.op = startOperator()
	f.consumers = startConsumers(func(mgr ctrl.Manager) error {
		alpha := &refconsumer.Consumer{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Name: "alpha", Required: true}
		beta := &refconsumer.Consumer{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Name: "beta", Required: true,
			Hold: func(v1alpha1.RangeStatus) bool { return f.hold.Load() },
			Reject: func(rs v1alpha1.RangeStatus) string {
				if p := f.reject.Load().(string); p != "" && strings.HasPrefix(rs.CIDR, p) {
					return "beta cannot route " + rs.CIDR + ": " + f.hint.Load().(string)
				}
				return ""
			},
		}
		for _, c := range []*refconsumer.Consumer{alpha, beta} {
			if err := c.Register(ctx); err != nil {
				return err
			}
			if err := c.SetupWithManager(mgr); err != nil {
				return err
			}
		}
		return nil
	})
	DeferCleanup(f.cleanup)
	return f
}

// cleanup deletes the PodNetwork through the finalizer while everything
// still runs, then stops the processes and checks the invariants.
func (f *lifecycleFixture) cleanup() {
	f.hold.Store(false)
	f.reject.Store("")
	pn := &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, pn))).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(pn), pn))
	}).Should(BeTrue(), "the PodNetwork is released and deleted")
	f.consumers.stop()
	f.op.stop()
	for _, name := range []string{"alpha", "beta"} {
		c := &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: name}}
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, c))).To(Succeed())
	}
	f.hist.check(f.required...)
}

func createPodNetwork(ranges ...v1alpha1.PodCIDRRange) {
	pn := &v1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec:       v1alpha1.PodNetworkSpec{Ranges: ranges},
	}
	Expect(k8sClient.Create(ctx, pn)).To(Succeed())
}

func getPodNetwork() *v1alpha1.PodNetwork {
	pn := &v1alpha1.PodNetwork{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "default"}, pn)).To(Succeed())
	return pn
}

func updateSpec(mutate func(*v1alpha1.PodNetworkSpec)) {
	Eventually(func() error {
		pn := getPodNetwork()
		mutate(&pn.Spec)
		return k8sClient.Update(ctx, pn)
	}).Should(Succeed())
}

// rangePhase returns the phase of a tracked range, or "" when untracked.
func rangePhase(name string) func() v1alpha1.RangePhase {
	return func() v1alpha1.RangePhase {
		pn := &v1alpha1.PodNetwork{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: "default"}, pn); err != nil {
			return ""
		}
		for _, rs := range pn.Status.Ranges {
			if rs.Name == name {
				return rs.Phase
			}
		}
		return ""
	}
}

// rangeStatus returns the status of a tracked range, or a zero status while
// it is not tracked (yet).
func rangeStatus(name string) v1alpha1.RangeStatus {
	for _, rs := range getPodNetwork().Status.Ranges {
		if rs.Name == name {
			return rs
		}
	}
	return v1alpha1.RangeStatus{}
}

func condition(t string) func() *metav1.Condition {
	return func() *metav1.Condition {
		return meta.FindStatusCondition(getPodNetwork().Status.Conditions, t)
	}
}

// eventReasons lists the reasons of the events about the PodNetwork.
func eventReasons() []string {
	var list eventsv1.EventList
	Expect(k8sClient.List(ctx, &list)).To(Succeed())
	var out []string
	for _, ev := range list.Items {
		if ev.Regarding.Kind == "PodNetwork" {
			out = append(out, ev.Type+"/"+ev.Reason)
		}
	}
	return out
}

// eventNotes returns the notes of the events about the PodNetwork with a
// reason.
func eventNotes(reason string) func() []string {
	return func() []string {
		var list eventsv1.EventList
		Expect(k8sClient.List(ctx, &list)).To(Succeed())
		var out []string
		for _, ev := range list.Items {
			if ev.Regarding.Kind == "PodNetwork" && ev.Reason == reason {
				out = append(out, ev.Note)
			}
		}
		return out
	}
}

var _ = Describe("The range lifecycle with two reference consumers", Serial, func() {
	It("takes a range through Pending, Active, Draining, Released and purges it", func() {
		f := newLifecycleFixture()
		f.hold.Store(true)
		createPodNetwork(v1alpha1.PodCIDRRange{Name: "blue", CIDR: "10.64.0.0/16"})

		By("waiting for the held consumer while the other acknowledged")
		Eventually(func() []string { return rangeStatus("blue").Awaiting }).Should(Equal([]string{"beta"}))
		Expect(rangePhase("blue")()).To(Equal(v1alpha1.RangePhasePending))
		Eventually(condition(v1alpha1.ProgressingCondition)).Should(HaveField("Status", metav1.ConditionTrue))
		Expect(condition(v1alpha1.ProgressingCondition)().Message).To(ContainSubstring("beta"))
		Expect(condition(v1alpha1.ReadyCondition)().Status).To(Equal(metav1.ConditionFalse))

		By("activating once the last consumer acknowledges")
		f.hold.Store(false)
		Eventually(rangePhase("blue")).Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(condition(v1alpha1.ReadyCondition)).Should(And(
			HaveField("Status", metav1.ConditionTrue),
			HaveField("ObservedGeneration", getPodNetwork().Generation)))
		Expect(getPodNetwork().Status.Summary).To(HaveField("ActiveRanges", int32(1)))

		By("reporting the phase and the transitions as metrics")
		Eventually(func() *float64 {
			return metricValue("podnetwork_range_phase", map[string]string{"range": "blue", "phase": "Active"})
		}).Should(HaveValue(Equal(1.0)))
		Expect(metricValue("podnetwork_range_transitions_total", map[string]string{"phase": "Active"})).To(HaveValue(BeNumerically(">=", 1)))
		Expect(metricValue("podnetwork_consumer_ack_duration_seconds", map[string]string{"consumer": "beta", "phase": "Pending"})).To(HaveValue(BeNumerically(">=", 1)))
		Expect(metricValue("podnetwork_consumer_in_sync", map[string]string{"consumer": "alpha"})).NotTo(BeNil())

		By("labelling both consumers in sync, which kubectl get pnc shows")
		for _, name := range []string{"alpha", "beta"} {
			Eventually(func() map[string]string {
				c := &v1alpha1.PodNetworkConsumer{}
				Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, c)).To(Succeed())
				return c.Labels
			}).Should(HaveKeyWithValue(v1alpha1.InSyncLabel, "true"))
		}

		By("acknowledging through server-side apply under each consumer's own field manager")
		for _, name := range []string{"alpha", "beta"} {
			c := &v1alpha1.PodNetworkConsumer{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, c)).To(Succeed())
			var managers []string
			for _, mf := range c.ManagedFields {
				if mf.Subresource == "status" {
					managers = append(managers, mf.Manager)
				}
			}
			Expect(managers).To(ConsistOf("podnetwork-consumer/" + name))
		}

		By("draining and releasing it when the admin removes it")
		updateSpec(func(s *v1alpha1.PodNetworkSpec) { s.Ranges = nil })
		Eventually(rangePhase("blue")).Should(BeEmpty(), "Draining, Released, then purged")
		// Events are emitted after the status write that they announce, so
		// the purge can be read before its event exists.
		Eventually(eventReasons).Should(ContainElements(
			"Normal/RangePending", "Normal/RangeActivated", "Normal/RangeDraining", "Normal/RangeReleased", "Normal/RangePurged"))
	})

	It("keeps a rejected range Pending, says who rejected it and why, and is Degraded", func() {
		f := newLifecycleFixture()
		f.reject.Store("10.200.")
		createPodNetwork(v1alpha1.PodCIDRRange{Name: "far", CIDR: "10.200.0.0/16"})

		Eventually(func() []v1alpha1.RangeRejection { return rangeStatus("far").Rejections }).Should(ConsistOf(
			v1alpha1.RangeRejection{Consumer: "beta", Message: "beta cannot route 10.200.0.0/16: use a range inside 10.64.0.0/10"}))
		Expect(rangePhase("far")()).To(Equal(v1alpha1.RangePhasePending))
		Eventually(condition(v1alpha1.DegradedCondition)).Should(And(
			HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", v1alpha1.ConsumerRejectedReason),
			HaveField("Message", ContainSubstring("beta"))))
		Eventually(eventReasons).Should(ContainElement("Warning/ConsumerRejected"))

		By("emitting a new event, not a higher count on the old one, when the rejection message changes")
		f.hint.Store("ask the network team for a range inside 10.64.0.0/10")
		Eventually(eventNotes("ConsumerRejected")).Should(ContainElement(ContainSubstring("ask the network team")))
		Expect(eventNotes("ConsumerRejected")()).To(ContainElement(ContainSubstring(": use a range inside")))

		By("activating once the consumer accepts it")
		f.reject.Store("")
		Eventually(rangePhase("far")).Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(condition(v1alpha1.DegradedCondition)).Should(HaveField("Status", metav1.ConditionFalse))
	})

	It("holds a deleted PodNetwork with its finalizer until every range is released", func() {
		f := newLifecycleFixture()
		createPodNetwork(v1alpha1.PodCIDRRange{Name: "green", CIDR: "10.65.0.0/16"})
		Eventually(rangePhase("green")).Should(Equal(v1alpha1.RangePhaseActive))
		Expect(getPodNetwork().Finalizers).To(ContainElement(v1alpha1.PodNetworkDrainFinalizer))

		f.hold.Store(true)
		Expect(k8sClient.Delete(ctx, getPodNetwork())).To(Succeed())
		Eventually(rangePhase("green")).Should(Equal(v1alpha1.RangePhaseDraining))
		Eventually(condition(v1alpha1.ReadyCondition)).Should(HaveField("Reason", v1alpha1.DeletingReason))
		Expect(getPodNetwork().DeletionTimestamp).NotTo(BeNil(), "still held while beta has not acknowledged Draining")

		f.hold.Store(false)
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKey{Name: "default"}, &v1alpha1.PodNetwork{}))
		}).Should(BeTrue())
	})

	It("keeps a Draining range until no node holds a block inside it", func() {
		newLifecycleFixture()
		createPodNetwork(v1alpha1.PodCIDRRange{Name: "old", CIDR: "10.66.0.0/16"})
		Eventually(rangePhase("old")).Should(Equal(v1alpha1.RangePhaseActive))

		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "holder-1"},
			Spec:       corev1.NodeSpec{PodCIDR: "10.66.3.0/24", PodCIDRs: []string{"10.66.3.0/24"}},
		}
		Expect(k8sClient.Create(ctx, node)).To(Succeed())

		updateSpec(func(s *v1alpha1.PodNetworkSpec) { s.Ranges = nil })
		Eventually(func() []string { return rangeStatus("old").Holders }).Should(Equal([]string{"holder-1"}))
		Expect(rangeStatus("old").HolderCount).To(Equal(int32(1)))
		Expect(rangePhase("old")()).To(Equal(v1alpha1.RangePhaseDraining))

		By("releasing it once the node is gone")
		Expect(k8sClient.Delete(ctx, node)).To(Succeed())
		Eventually(rangePhase("old")).Should(BeEmpty())
	})

	It("resumes a transition after an operator restart with nothing kept in memory", func() {
		f := newLifecycleFixture()
		f.hold.Store(true)
		createPodNetwork(v1alpha1.PodCIDRRange{Name: "restart", CIDR: "10.67.0.0/16"})
		Eventually(func() []string { return rangeStatus("restart").Awaiting }).Should(Equal([]string{"beta"}))

		By("stopping the operator mid-transition")
		f.op.stop()
		f.hold.Store(false)
		// beta acknowledges while no operator runs: the range must stay
		// Pending until an operator sees the acknowledgement.
		Eventually(func() bool {
			c := &v1alpha1.PodNetworkConsumer{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "beta"}, c)).To(Succeed())
			acked, _, _ := v1alpha1.IsAcked(c, rangeStatus("restart"))
			return acked
		}).Should(BeTrue())
		Expect(rangePhase("restart")()).To(Equal(v1alpha1.RangePhasePending))

		By("starting a new operator, which finishes the transition")
		f.op = startOperator()
		Eventually(rangePhase("restart")).Should(Equal(v1alpha1.RangePhaseActive))
	})

	It("stops waiting for a consumer that is deleted and waits for one registered later", func() {
		f := newLifecycleFixture()
		f.hold.Store(true)
		createPodNetwork(v1alpha1.PodCIDRRange{Name: "late", CIDR: "10.68.0.0/16"})
		Eventually(func() []string { return rangeStatus("late").Awaiting }).Should(Equal([]string{"beta"}))

		By("deleting the held consumer")
		f.required = []string{"alpha"}
		Expect(k8sClient.Delete(ctx, &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: "beta"}})).To(Succeed())
		Eventually(rangePhase("late")).Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(eventReasons).Should(ContainElement("Normal/ConsumerRemoved"))

		By("registering a consumer that never answers: Active stays Active, it shows out of sync")
		silent := &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: "silent"}}
		Expect(k8sClient.Create(ctx, silent)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, silent))).To(Succeed()) })
		Eventually(func() []v1alpha1.ConsumerSummary { return getPodNetwork().Status.Consumers }).Should(
			ContainElement(And(HaveField("Name", "silent"), HaveField("InSync", false))))
		Eventually(func() map[string]string {
			c := &v1alpha1.PodNetworkConsumer{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "silent"}, c)).To(Succeed())
			return c.Labels
		}).Should(HaveKeyWithValue(v1alpha1.InSyncLabel, "false"), "kubectl get pnc shows it out of sync")
		Consistently(rangePhase("late"), 2*time.Second).Should(Equal(v1alpha1.RangePhaseActive))
		// The cleanup's drain waits for "silent" until the cleanup deletes it.
		Expect(k8sClient.Delete(ctx, silent)).To(Succeed())
	})
})
