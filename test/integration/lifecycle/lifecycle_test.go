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

package lifecycle_test

import (
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/refconsumer"
)

// lifecycleFixture is one spec's operator, two reference consumers and the
// recorded history.
type lifecycleFixture struct {
	op        *framework.Process
	consumers *framework.Process
	hist      *framework.Recorder
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

func newLifecycleFixture() *lifecycleFixture { return newLifecycleFixtureWith(startOperator) }

// newLifecycleFixtureWith is newLifecycleFixture with the operator that
// start runs.
func newLifecycleFixtureWith(start func() *framework.Process) *lifecycleFixture {
	f := &lifecycleFixture{required: []string{"alpha", "beta"}}
	f.reject.Store("")
	f.hint.Store("use a range inside 10.64.0.0/10")
	var err error
	f.hist, err = framework.Record(ctx, k8sClient, &v1alpha1.PodNetworkList{}, &v1alpha1.PodNetworkConsumerList{}, &corev1.NodeList{})
	Expect(err).NotTo(HaveOccurred())
	f.op = start()
	mgr, err := framework.NewManager(suite.ControlPlane.Config)
	Expect(err).NotTo(HaveOccurred())
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
		Expect(c.Register(ctx)).To(Succeed())
		Expect(c.SetupWithManager(mgr)).To(Succeed())
	}
	// The consumers run in their own manager, as a plugin runs in its own
	// process.
	f.consumers = framework.StartManager(ctx, "the reference consumers", mgr)
	DeferCleanup(f.cleanup)
	return f
}

// startOperator runs the operator with only the lifecycle controller
// (NodeIPAM off: these specs use reference consumers).
func startOperator() *framework.Process {
	return framework.StartOperator(ctx, suite.ControlPlane.Config, framework.WithoutNodeIPAM)
}

// cleanup deletes the PodNetwork through the finalizer while everything
// still runs, then stops the processes and checks the invariants.
func (f *lifecycleFixture) cleanup() {
	f.hold.Store(false)
	f.reject.Store("")
	pn := framework.PodNetwork().Obj()
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, pn))).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(pn), pn))
	}).Should(BeTrue(), "the PodNetwork is released and deleted")
	Expect(f.consumers.Stop()).To(Succeed())
	Expect(f.op.Stop()).To(Succeed())
	for _, name := range []string{"alpha", "beta"} {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, framework.Consumer(name).Obj()))).To(Succeed())
	}
	f.hist.Stop()
	expectLifecycleInvariants(f.hist.Events(), f.required...)
}

func createPodNetwork(name, cidr string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, framework.PodNetwork().Range(name, cidr).Obj())).To(Succeed())
}

func removeRanges() {
	GinkgoHelper()
	Expect(k8sClient.EditRanges(func([]v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange { return nil })).To(Succeed())
}

var _ = Describe("The range lifecycle with two reference consumers", Serial, func() {
	It("takes a range through Pending, Active, Draining, Released and purges it", func() {
		f := newLifecycleFixture()
		f.hold.Store(true)
		createPodNetwork("blue", "10.64.0.0/16")

		By("waiting for the held consumer while the other acknowledged")
		Eventually(func() []string { return k8sClient.RangeStatus("blue").Awaiting }).Should(Equal([]string{"beta"}))
		Expect(k8sClient.Phase("blue")).To(Equal(v1alpha1.RangePhasePending))
		Eventually(k8sClient.Condition).WithArguments(v1alpha1.ProgressingCondition).Should(HaveField("Status", metav1.ConditionTrue))
		Expect(k8sClient.Condition(v1alpha1.ProgressingCondition).Message).To(ContainSubstring("beta"))
		Expect(k8sClient.Condition(v1alpha1.ReadyCondition).Status).To(Equal(metav1.ConditionFalse))

		By("activating once the last consumer acknowledges")
		f.hold.Store(false)
		Eventually(k8sClient.Phase).WithArguments("blue").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(k8sClient.Condition).WithArguments(v1alpha1.ReadyCondition).Should(And(
			HaveField("Status", metav1.ConditionTrue),
			HaveField("ObservedGeneration", k8sClient.GetPodNetwork().Generation)))
		Expect(k8sClient.GetPodNetwork().Status.Summary).To(HaveField("ActiveRanges", int32(1)))

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
		removeRanges()
		Eventually(k8sClient.Phase).WithArguments("blue").Should(BeEmpty(), "Draining, Released, then purged")
		// Events are emitted after the status write that they announce, so
		// the purge can be read before its event exists.
		Eventually(k8sClient.EventReasons).WithArguments("PodNetwork").Should(ContainElements(
			"Normal/RangePending", "Normal/RangeActivated", "Normal/RangeDraining", "Normal/RangeReleased", "Normal/RangePurged"))
	})

	It("keeps a rejected range Pending, says who rejected it and why, and is Degraded", func() {
		f := newLifecycleFixture()
		f.reject.Store("10.200.")
		createPodNetwork("far", "10.200.0.0/16")

		Eventually(func() []v1alpha1.RangeRejection { return k8sClient.RangeStatus("far").Rejections }).Should(ConsistOf(
			v1alpha1.RangeRejection{Consumer: "beta", Message: "beta cannot route 10.200.0.0/16: use a range inside 10.64.0.0/10"}))
		Expect(k8sClient.Phase("far")).To(Equal(v1alpha1.RangePhasePending))
		Eventually(k8sClient.Condition).WithArguments(v1alpha1.DegradedCondition).Should(And(
			HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", v1alpha1.ConsumerRejectedReason),
			HaveField("Message", ContainSubstring("beta"))))
		Eventually(k8sClient.EventReasons).WithArguments("PodNetwork").Should(ContainElement("Warning/ConsumerRejected"))

		By("emitting a new event, not a higher count on the old one, when the rejection message changes")
		f.hint.Store("ask the network team for a range inside 10.64.0.0/10")
		Eventually(eventNotes).WithArguments("ConsumerRejected").Should(ContainElement(ContainSubstring("ask the network team")))
		Expect(eventNotes("ConsumerRejected")).To(ContainElement(ContainSubstring(": use a range inside")))

		By("activating once the consumer accepts it")
		f.reject.Store("")
		Eventually(k8sClient.Phase).WithArguments("far").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(k8sClient.Condition).WithArguments(v1alpha1.DegradedCondition).Should(HaveField("Status", metav1.ConditionFalse))
	})

	It("holds a deleted PodNetwork with its finalizer until every range is released", func() {
		f := newLifecycleFixture()
		createPodNetwork("green", "10.65.0.0/16")
		Eventually(k8sClient.Phase).WithArguments("green").Should(Equal(v1alpha1.RangePhaseActive))
		Expect(k8sClient.GetPodNetwork().Finalizers).To(ContainElement(v1alpha1.PodNetworkDrainFinalizer))

		f.hold.Store(true)
		Expect(k8sClient.Delete(ctx, k8sClient.GetPodNetwork())).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("green").Should(Equal(v1alpha1.RangePhaseDraining))
		Eventually(k8sClient.Condition).WithArguments(v1alpha1.ReadyCondition).Should(HaveField("Reason", v1alpha1.DeletingReason))
		Expect(k8sClient.GetPodNetwork().DeletionTimestamp).NotTo(BeNil(), "still held while beta has not acknowledged Draining")

		f.hold.Store(false)
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKey{Name: "default"}, &v1alpha1.PodNetwork{}))
		}).Should(BeTrue())
	})

	It("keeps a Draining range until no node holds a block inside it", func() {
		newLifecycleFixture()
		createPodNetwork("old", "10.66.0.0/16")
		Eventually(k8sClient.Phase).WithArguments("old").Should(Equal(v1alpha1.RangePhaseActive))

		node := framework.Node("holder-1").PodCIDRs("10.66.3.0/24").Obj()
		Expect(k8sClient.Create(ctx, node)).To(Succeed())

		removeRanges()
		Eventually(func() []string { return k8sClient.RangeStatus("old").Holders }).Should(Equal([]string{"holder-1"}))
		Expect(k8sClient.RangeStatus("old").HolderCount).To(Equal(int32(1)))
		Expect(k8sClient.Phase("old")).To(Equal(v1alpha1.RangePhaseDraining))

		By("releasing it once the node is gone")
		Expect(k8sClient.Delete(ctx, node)).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("old").Should(BeEmpty())
	})

	It("resumes a transition after an operator restart with nothing kept in memory", func() {
		f := newLifecycleFixture()
		f.hold.Store(true)
		createPodNetwork("restart", "10.67.0.0/16")
		Eventually(func() []string { return k8sClient.RangeStatus("restart").Awaiting }).Should(Equal([]string{"beta"}))

		By("stopping the operator mid-transition")
		Expect(f.op.Stop()).To(Succeed())
		f.hold.Store(false)
		// beta acknowledges while no operator runs: the range must stay
		// Pending until an operator sees the acknowledgement.
		Eventually(func() bool {
			c := &v1alpha1.PodNetworkConsumer{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "beta"}, c)).To(Succeed())
			acked, _, _ := v1alpha1.IsAcked(c, k8sClient.RangeStatus("restart"))
			return acked
		}).Should(BeTrue())
		Expect(k8sClient.Phase("restart")).To(Equal(v1alpha1.RangePhasePending))

		By("starting a new operator, which finishes the transition")
		f.op = startOperator()
		Eventually(k8sClient.Phase).WithArguments("restart").Should(Equal(v1alpha1.RangePhaseActive))
	})

	It("stops waiting for a consumer that is deleted and waits for one registered later", func() {
		f := newLifecycleFixture()
		f.hold.Store(true)
		createPodNetwork("late", "10.68.0.0/16")
		Eventually(func() []string { return k8sClient.RangeStatus("late").Awaiting }).Should(Equal([]string{"beta"}))

		By("deleting the held consumer")
		f.required = []string{"alpha"}
		Expect(k8sClient.Delete(ctx, framework.Consumer("beta").Obj())).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("late").Should(Equal(v1alpha1.RangePhaseActive))
		Eventually(k8sClient.EventReasons).WithArguments("PodNetwork").Should(ContainElement("Normal/ConsumerRemoved"))

		By("registering a consumer that never answers: Active stays Active, it shows out of sync")
		silent := framework.Consumer("silent").Obj()
		Expect(k8sClient.Create(ctx, silent)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, silent))).To(Succeed()) })
		Eventually(func() []v1alpha1.ConsumerSummary { return k8sClient.GetPodNetwork().Status.Consumers }).Should(
			ContainElement(And(HaveField("Name", "silent"), HaveField("InSync", false))))
		Eventually(func() map[string]string {
			c := &v1alpha1.PodNetworkConsumer{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: "silent"}, c)).To(Succeed())
			return c.Labels
		}).Should(HaveKeyWithValue(v1alpha1.InSyncLabel, "false"), "kubectl get pnc shows it out of sync")
		Consistently(k8sClient.Phase, 2*time.Second).WithArguments("late").Should(Equal(v1alpha1.RangePhaseActive))
		// The cleanup's drain waits for "silent" until the cleanup deletes it.
		Expect(k8sClient.Delete(ctx, silent)).To(Succeed())
	})
})

// eventNotes returns the notes of the events about the PodNetwork with a
// reason.
func eventNotes(reason string) []string {
	var out []string
	for _, ev := range k8sClient.Events("PodNetwork") {
		if ev.Reason == reason {
			out = append(out, ev.Note)
		}
	}
	return out
}
