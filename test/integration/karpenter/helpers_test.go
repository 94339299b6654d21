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

package karpenter_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/chart"
	"podnetwork.io/operator/test/framework/cluster"
)

// operatorUser is who the operator is in the audit log: the chart's
// ServiceAccount, which it impersonates.
var operatorUser = fmt.Sprintf("system:serviceaccount:%s:%s", chart.Namespace, chart.Release)

// startOperator runs the operator in-process until the end of the spec as
// the chart's ServiceAccount, with only the chart's ServiceAccount and
// RBAC installed: lifecycle, NodeIPAM (the only allocator: no
// kube-controller-manager runs its node-ipam-controller here) and drain
// assist, polling every 200ms.
func startOperator() {
	GinkgoHelper()
	installChartRBAC()
	cfg := controlPlane.Cluster.ImpersonateServiceAccount(chart.Namespace, chart.Release)
	cfg.QPS, cfg.Burst = 500, 1000
	op := framework.StartOperator(ctx, cfg, func(o *controllers.Options) {
		o.KubeAPIQPS, o.KubeAPIBurst = 500, 1000
		o.NodeIPAM.RecordNamespace = chart.Namespace
		o.NodeIPAM.StatusInterval = 200 * time.Millisecond
		o.DrainAssist.PollInterval = 200 * time.Millisecond
	})
	DeferCleanup(op.Stop)
}

// installChartRBAC creates the chart's namespace, ServiceAccount and RBAC,
// and nothing else of it.
func installChartRBAC() {
	GinkgoHelper()
	root, err := cluster.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	objs, err := chart.Render(root)
	Expect(err).NotTo(HaveOccurred())
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chart.Namespace}})).To(Succeed())
	for _, o := range objs {
		u := &unstructured.Unstructured{Object: o}
		switch u.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			Expect(k8sClient.Create(ctx, u)).To(Succeed(), "%s %s", u.GetKind(), u.GetName())
		}
	}
}

// recordHistory records, until the end of the spec, every change of what
// the checks judge: nodes, pods, PodDisruptionBudgets, the PodNetwork and
// its consumers.
func recordHistory() *framework.Recorder {
	GinkgoHelper()
	rec, err := framework.RecordHistory(ctx, k8sClient,
		framework.Watched{List: &corev1.NodeList{}}, framework.Watched{List: &corev1.PodList{}},
		framework.Watched{List: &policyv1.PodDisruptionBudgetList{}},
		framework.Watched{List: &v1alpha1.PodNetworkList{}}, framework.Watched{List: &v1alpha1.PodNetworkConsumerList{}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(rec.Stop)
	return rec
}

// namespace creates the workload's namespace.
func namespace() string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "shop-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
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
		return k8sClient.Update(ctx, pn)
	})).To(Succeed())
}

// podReady reports whether the pod is Running with condition Ready: what
// the Eviction API and the disruption controller count as healthy.
func podReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
