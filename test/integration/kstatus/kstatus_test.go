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

// Package kstatus_test reads PodNetwork and PodNetworkConsumer objects with
// the real kstatus library (sigs.k8s.io/cli-utils/pkg/kstatus), as Flux,
// Argo CD and kpt do, in every situation the operator can leave them in, on
// a real kube-apiserver with the lifecycle controller running.
package kstatus_test

import (
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/refconsumer"
)

var (
	suite     = framework.NewSuite("kstatus Suite", framework.ControlPlaneOptions{})
	ctx       = suite.Ctx
	k8sClient = suite.API
)

func TestKstatus(t *testing.T) { suite.Run(t, 60*time.Second, 100*time.Millisecond) }

// kstatusOf computes the kstatus of an object as read from the API.
func kstatusOf(obj client.Object) func() status.Status {
	return func() status.Status {
		// Read as unstructured: kstatus must see what the API serves (the
		// defaulted observedGeneration 0 included), not a typed round trip
		// that drops zero values.
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind(kindOf(obj)))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), u)).To(Succeed())
		res, err := status.Compute(u)
		Expect(err).NotTo(HaveOccurred())
		return res.Status
	}
}

func kindOf(obj client.Object) string {
	if _, ok := obj.(*v1alpha1.PodNetworkConsumer); ok {
		return "PodNetworkConsumer"
	}
	return "PodNetwork"
}

func setRanges(ranges ...v1alpha1.PodCIDRRange) {
	GinkgoHelper()
	Expect(k8sClient.EditRanges(func([]v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange { return ranges })).To(Succeed())
}

var _ = Describe("kstatus reads the operator's status", Ordered, func() {
	pn := framework.PodNetwork().Range("a", "10.244.0.0/16").Obj()
	plugin := framework.Consumer("plugin").Required(true).Obj()
	var rejectNew, hold atomic.Bool

	It("sees a PodNetwork no controller has reconciled yet as InProgress", func() {
		Expect(k8sClient.Create(ctx, pn)).To(Succeed())
		Expect(kstatusOf(pn)()).To(Equal(status.InProgressStatus))
	})

	It("sees a consumer that has not answered yet as InProgress", func() {
		Expect(k8sClient.Create(ctx, plugin)).To(Succeed())
		Expect(kstatusOf(plugin)()).To(Equal(status.InProgressStatus))
	})

	It("sees a PodNetwork whose ranges are in transition as InProgress, then Current once all are Active", func() {
		hold.Store(true)
		mgr, err := framework.NewManager(suite.ControlPlane.Config)
		Expect(err).NotTo(HaveOccurred())
		c := &refconsumer.Consumer{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Name: "plugin", Required: true,
			Reject: func(rs v1alpha1.RangeStatus) string {
				if rejectNew.Load() && rs.Name != "a" {
					return "plugin cannot route " + rs.CIDR
				}
				return ""
			},
			Hold: func(v1alpha1.RangeStatus) bool { return hold.Load() },
		}
		Expect(c.SetupWithManager(mgr)).To(Succeed())
		framework.StartManager(ctx, "the plugin", mgr)
		framework.StartOperator(ctx, suite.ControlPlane.Config, framework.WithoutNodeIPAM)

		Eventually(func() int64 {
			_ = k8sClient.Get(ctx, client.ObjectKeyFromObject(pn), pn)
			return ptr.Deref(pn.Status.ObservedGeneration, 0)
		}).
			Should(Equal(pn.Generation))
		Eventually(kstatusOf(pn)).Should(Equal(status.InProgressStatus))
		Consistently(kstatusOf(pn), "1s").Should(Equal(status.InProgressStatus))

		hold.Store(false)
		Eventually(kstatusOf(pn)).Should(Equal(status.CurrentStatus))
		Eventually(kstatusOf(plugin)).Should(Equal(status.CurrentStatus))
	})

	It("sees a PodNetwork blocked by a consumer's rejection as Failed", func() {
		rejectNew.Store(true)
		setRanges(v1alpha1.PodCIDRRange{Name: "a", CIDR: "10.244.0.0/16"}, v1alpha1.PodCIDRRange{Name: "b", CIDR: "10.245.0.0/16"})
		Eventually(kstatusOf(pn)).Should(Equal(status.FailedStatus))
		rejectNew.Store(false)
		Eventually(kstatusOf(pn)).Should(Equal(status.CurrentStatus))
	})

	It("sees a PodNetwork blocked by an invalid range as Failed", func() {
		setRanges(v1alpha1.PodCIDRRange{Name: "a", CIDR: "10.244.0.0/16"}, v1alpha1.PodCIDRRange{Name: "svc", CIDR: "10.96.0.0/16"})
		Eventually(kstatusOf(pn)).Should(Equal(status.FailedStatus))
		setRanges(v1alpha1.PodCIDRRange{Name: "a", CIDR: "10.244.0.0/16"})
		Eventually(kstatusOf(pn)).Should(Equal(status.CurrentStatus))
	})

	It("sees a PodNetwork being deleted as Terminating", func() {
		// kstatus gives every object with a deletionTimestamp the status
		// Terminating, before it looks at conditions; the finalizer keeps
		// the object until its ranges are released.
		hold.Store(true)
		Expect(k8sClient.Delete(ctx, pn)).To(Succeed())
		Eventually(kstatusOf(pn)).Should(Equal(status.TerminatingStatus))
		hold.Store(false)
		Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(pn), pn) }).ShouldNot(Succeed())
	})
})
