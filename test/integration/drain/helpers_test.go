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

package drain_test

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/framework"
)

// startOperator runs the operator (lifecycle, NodeIPAM, drain assist)
// until the end of the spec, drain assist polling every 200ms.
func startOperator() {
	op := framework.StartOperator(suiteCtx, suite.ControlPlane.Config, func(o *controllers.Options) {
		o.KubeAPIQPS, o.KubeAPIBurst = 500, 1000
		o.NodeIPAM.StatusInterval = 200 * time.Millisecond
		o.DrainAssist.PollInterval = 200 * time.Millisecond
	})
	DeferCleanup(op.Stop)
}

// namespace creates a namespace for the spec's pods; its pods and
// PodDisruptionBudgets are deleted at the end (no namespace controller
// runs here to do it).
func namespace() string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "drain-"}}
	Expect(k8sClient.Create(suiteCtx, ns)).To(Succeed())
	DeferCleanup(func() {
		Expect(k8sClient.DeleteAllOf(suiteCtx, &corev1.Pod{}, client.InNamespace(ns.Name), client.GracePeriodSeconds(0))).To(Succeed())
		Expect(k8sClient.DeleteAllOf(suiteCtx, &policyv1.PodDisruptionBudget{}, client.InNamespace(ns.Name))).To(Succeed())
	})
	return ns.Name
}

// activeNetwork creates PodNetwork "default" with ranges, blocks recycled
// at once, and waits until they are Active.
func activeNetwork(ranges ...v1alpha1.PodCIDRRange) {
	GinkgoHelper()
	Expect(k8sClient.Create(suiteCtx, framework.PodNetwork().RecycleDelaySeconds(0).Ranges(ranges...).Obj())).To(Succeed())
	for _, r := range ranges {
		Eventually(k8sClient.Phase).WithArguments(r.Name).Should(Equal(v1alpha1.RangePhaseActive))
	}
}

// editSpec changes the PodNetwork's spec as an admin would.
func editSpec(edit func(*v1alpha1.PodNetworkSpec)) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pn, err := k8sClient.PodNetwork()
		if err != nil {
			return err
		}
		edit(&pn.Spec)
		return k8sClient.Update(suiteCtx, pn)
	})).To(Succeed())
}

// retire replaces the spec's ranges with keep, so that every other range
// drains, and turns drain assist on with da.
func retire(keep v1alpha1.PodCIDRRange, da v1alpha1.DrainAssist) {
	GinkgoHelper()
	editSpec(func(s *v1alpha1.PodNetworkSpec) {
		s.Ranges = []v1alpha1.PodCIDRRange{keep}
		s.DrainAssist = da
	})
}

// createNodes creates the named nodes with labels and annotations and
// waits until NodeIPAM gave each a podCIDR inside prefix.
func createNodes(prefix string, labels, annotations map[string]string, names ...string) {
	GinkgoHelper()
	for _, name := range names {
		n := framework.Node(name).Labels(labels).Obj()
		n.Annotations = annotations
		Expect(k8sClient.Create(suiteCtx, n)).To(Succeed())
	}
	Eventually(func() []string { return k8sClient.Holders(prefix) }).Should(ContainElements(names))
}

// createPod creates a running, ready pod bound to node; a DaemonSet controls it
// when daemonSet. Its grace period is 0: no kubelet runs here, and an
// eviction then deletes it at once.
func createPod(ns, name, node string, labels map[string]string, daemonSet bool) {
	GinkgoHelper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: corev1.PodSpec{NodeName: node, TerminationGracePeriodSeconds: ptr.To(int64(0)),
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
	}
	if daemonSet {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "3a7c1f7e-0000-4000-8000-000000000001", Controller: ptr.To(true)}}
	}
	Expect(k8sClient.Create(suiteCtx, p)).To(Succeed())
	// Ready: the Eviction API lets an unready pod go whatever its budget.
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	Expect(k8sClient.Status().Update(suiteCtx, p)).To(Succeed())
}

// budget creates a PodDisruptionBudget for the pods labelled app=name and
// sets its status as the disruption controller would, allowing allowed
// disruptions.
func budget(ns, name string, allowed int32) {
	GinkgoHelper()
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}},
	}
	Expect(k8sClient.Create(suiteCtx, pdb)).To(Succeed())
	allow(ns, name, allowed)
}

// allow sets the disruptions a PodDisruptionBudget allows.
func allow(ns, name string, allowed int32) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pdb := &policyv1.PodDisruptionBudget{}
		if err := k8sClient.Get(suiteCtx, client.ObjectKey{Namespace: ns, Name: name}, pdb); err != nil {
			return err
		}
		pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: allowed,
			CurrentHealthy: 1 + allowed, DesiredHealthy: 1, ExpectedPods: 1 + allowed}
		return k8sClient.Status().Update(suiteCtx, pdb)
	})).To(Succeed())
}

// drainStatus returns status.drainAssist, empty while there is none.
func drainStatus() v1alpha1.DrainAssistStatus {
	if pn, err := k8sClient.PodNetwork(); err == nil && pn.Status.DrainAssist != nil {
		return *pn.Status.DrainAssist
	}
	return v1alpha1.DrainAssistStatus{}
}

// nodeReport returns drain assist's report on a node, empty if none.
func nodeReport(name string) v1alpha1.DrainNodeStatus {
	for _, n := range drainStatus().Nodes {
		if n.Name == name {
			return n
		}
	}
	return v1alpha1.DrainNodeStatus{}
}

// complete returns the DrainAssistComplete condition of the PodNetwork,
// which kubectl wait --for=condition=DrainAssistComplete reads.
func complete() metav1.Condition {
	if c := k8sClient.Condition(v1alpha1.DrainAssistCompletePodNetworkCondition); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// nodeEvents returns the reasons of the events about a node.
func nodeEvents(name string) []string {
	var out []string
	for _, ev := range k8sClient.Events("Node") {
		if ev.Regarding.Name == name {
			out = append(out, ev.Reason)
		}
	}
	return out
}

// eventNotes returns the notes of the events with reason about objects of
// kind.
func eventNotes(kind, reason string) []string {
	var out []string
	for _, ev := range k8sClient.Events(kind) {
		if ev.Reason == reason {
			out = append(out, ev.Regarding.Name+": "+ev.Note)
		}
	}
	return out
}

// marked returns the nodes that carry drain assist's label now.
func marked() []string {
	var out []string
	for _, n := range k8sClient.Nodes() {
		if _, ok := n.Labels[v1alpha1.DrainAssistNodeLabel]; ok {
			out = append(out, n.Name)
		}
	}
	return out
}

// exists reports whether an object exists and is not being deleted.
func exists(obj client.Object) func() bool {
	return func() bool {
		err := k8sClient.Get(suiteCtx, client.ObjectKeyFromObject(obj), obj)
		return err == nil && obj.GetDeletionTimestamp().IsZero()
	}
}

// gone reports whether an object no longer exists.
func gone(obj client.Object) func() bool {
	return func() bool {
		return apierrors.IsNotFound(k8sClient.Get(suiteCtx, client.ObjectKeyFromObject(obj), obj))
	}
}

// recordNodesAndPods records every change of the nodes and pods for the
// rest of the spec.
func recordNodesAndPods() *framework.Recorder {
	GinkgoHelper()
	rec, err := framework.Record(suiteCtx, k8sClient, &corev1.NodeList{}, &corev1.PodList{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(rec.Stop)
	return rec
}

// replacementNeeded: the node's PodCIDRReplacementNeeded condition is True.
func replacementNeeded(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == v1alpha1.PodCIDRReplacementNeededCondition && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// clusterAPI plays a MachineHealthCheck with its remediation: it deletes
// every node whose PodCIDRReplacementNeeded condition has been True for
// after, until the end of the spec. It returns the nodes it replaced.
func clusterAPI(after time.Duration) func() []string {
	ctx, cancel := context.WithCancel(suiteCtx)
	var mu sync.Mutex
	var replaced []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer GinkgoRecover()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, n := range k8sClient.Nodes() {
				for _, c := range n.Status.Conditions {
					if c.Type == v1alpha1.PodCIDRReplacementNeededCondition && c.Status == corev1.ConditionTrue && time.Since(c.LastTransitionTime.Time) >= after {
						if err := k8sClient.Delete(ctx, &n); err == nil {
							mu.Lock()
							replaced = append(replaced, n.Name)
							mu.Unlock()
						}
					}
				}
			}
		}
	}()
	DeferCleanup(func() { cancel(); <-done })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), replaced...)
	}
}

// condition returns a node's PodCIDRReplacementNeeded condition, empty if
// none.
func nodeCondition(name string) corev1.NodeCondition {
	n := &corev1.Node{}
	if err := k8sClient.Get(suiteCtx, client.ObjectKey{Name: name}, n); err == nil {
		for _, c := range n.Status.Conditions {
			if c.Type == v1alpha1.PodCIDRReplacementNeededCondition {
				return c
			}
		}
	}
	return corev1.NodeCondition{}
}
