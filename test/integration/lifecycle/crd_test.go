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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

var _ = Describe("The podnetwork.io CRDs on a real apiserver", func() {
	It("round-trips the PodNetwork singleton with its defaults", func() {
		pn := framework.PodNetwork().Range("crd-roundtrip", "10.244.0.0/16").Obj()
		Expect(k8sClient.Create(ctx, pn)).To(Succeed())
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, pn))).To(Succeed())
		})

		got := &podnetworkv1alpha1.PodNetwork{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pn), got)).To(Succeed())
		Expect(got.Spec.Ranges).To(HaveLen(1))
		Expect(got.Spec.Ranges[0].CIDR).To(Equal("10.244.0.0/16"))
		Expect(got.Spec.Allocation).To(Equal(&podnetworkv1alpha1.AllocationPolicy{
			RecycleDelaySeconds: ptr.To[int32](60), WhenExhausted: podnetworkv1alpha1.WhenExhaustedWait,
		}), "the apiserver applies the CRD default")
		Expect(got.Status.ObservedGeneration).To(HaveValue(BeZero()), "status defaults to observedGeneration 0")
	})

	It("defaults a PodNetwork created without spec to the allocation defaults", func() {
		pn := framework.PodNetwork().Obj()
		Expect(k8sClient.Create(ctx, pn)).To(Succeed())
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, pn))).To(Succeed())
		})

		got := &podnetworkv1alpha1.PodNetwork{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pn), got)).To(Succeed())
		Expect(got.Spec.Ranges).To(BeEmpty())
		Expect(got.Spec.Allocation).To(Equal(&podnetworkv1alpha1.AllocationPolicy{
			RecycleDelaySeconds: ptr.To[int32](60), WhenExhausted: podnetworkv1alpha1.WhenExhaustedWait,
		}), "spec defaults to an allocation with its defaults")
	})

	It("rejects a PodNetwork not named default with a message that says why", func() {
		pn := framework.PodNetwork().Name("other").Obj()
		err := k8sClient.Create(ctx, pn)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("default"))
	})

	It("round-trips a PodNetworkConsumer with required defaulting to true", func() {
		c := framework.Consumer("crd-roundtrip").Obj()
		Expect(k8sClient.Create(ctx, c)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, c)).To(Succeed()) })
		got := &podnetworkv1alpha1.PodNetworkConsumer{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(c), got)).To(Succeed())
		Expect(got.Spec.Required).To(Equal(ptr.To(true)))
		Expect(got.Status.ObservedGeneration).To(HaveValue(BeZero()), "status defaults to observedGeneration 0")
	})

	It("refuses an empty message: an optional text is left out, not written empty", func() {
		c := framework.Consumer("crd-empty-message").Obj()
		Expect(k8sClient.Create(ctx, c)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, c)).To(Succeed()) })
		patch := []byte(`{"status":{"ranges":[{"name":"a","cidr":"10.244.0.0/16","phase":"Pending","result":"Accepted","message":""}]}}`)
		err := k8sClient.Status().Patch(ctx, c, client.RawPatch(types.MergePatchType, patch))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("status.ranges[0].message"))
	})
})
