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

package framework

import (
	"fmt"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// CreateNodes, in a spec, creates count nodes named prefix-0 ... at once,
// as a burst of joining nodes would arrive, and returns their names.
func (a API) CreateNodes(prefix string, count int) []string {
	ginkgo.GinkgoHelper()
	names := make([]string, count)
	errs := make(chan error, count)
	var wg sync.WaitGroup
	for i := range count {
		names[i] = fmt.Sprintf("%s-%d", prefix, i)
		wg.Go(func() { errs <- a.Create(a.Ctx, Node(names[i]).Obj()) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	}
	return names
}

// ResetCluster, in a spec, removes what the specs of an integration suite
// create: every node, the PodNetwork (its drain finalizer stripped: the
// operator is stopped by then), every consumer, the events in the default
// namespace and the given objects; then it waits until no node, PodNetwork
// or consumer is left and none of the given objects exists.
func (a API) ResetCluster(also ...client.Object) {
	ginkgo.GinkgoHelper()
	gomega.Expect(a.DeleteAllOf(a.Ctx, &corev1.Node{})).To(gomega.Succeed())
	a.deletePodNetwork()
	gomega.Expect(a.DeleteAllOf(a.Ctx, &v1alpha1.PodNetworkConsumer{})).To(gomega.Succeed())
	gomega.Expect(a.DeleteAllOf(a.Ctx, &eventsv1.Event{}, client.InNamespace(metav1.NamespaceDefault))).To(gomega.Succeed())
	for _, obj := range also {
		gomega.Expect(client.IgnoreNotFound(a.Delete(a.Ctx, obj))).To(gomega.Succeed())
	}
	gomega.Eventually(func() int {
		left := 0
		for _, list := range []client.ObjectList{&corev1.NodeList{}, &v1alpha1.PodNetworkList{}, &v1alpha1.PodNetworkConsumerList{}} {
			gomega.Expect(a.List(a.Ctx, list)).To(gomega.Succeed())
			left += meta.LenList(list)
		}
		for _, obj := range also {
			err := a.Get(a.Ctx, client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object))
			gomega.Expect(client.IgnoreNotFound(err)).To(gomega.Succeed())
			if err == nil {
				left++
			}
		}
		return left
	}).Should(gomega.BeZero())
}

// deletePodNetwork deletes the PodNetwork singleton, if there is one, after
// removing its finalizers.
func (a API) deletePodNetwork() {
	ginkgo.GinkgoHelper()
	pn := &v1alpha1.PodNetwork{}
	err := a.Get(a.Ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn)
	if apierrors.IsNotFound(err) {
		return
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading the PodNetwork")
	if len(pn.Finalizers) > 0 {
		patch := client.MergeFrom(pn.DeepCopy())
		pn.Finalizers = nil
		gomega.Expect(a.Patch(a.Ctx, pn, patch)).To(gomega.Succeed())
	}
	gomega.Expect(client.IgnoreNotFound(a.Delete(a.Ctx, pn))).To(gomega.Succeed())
}
