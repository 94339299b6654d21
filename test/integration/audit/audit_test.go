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

package audit_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/internal/audit"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/chart"
	"podnetwork.io/operator/test/framework/cluster"
)

// startOperator runs the operator with the audit on, auditing every
// 300ms in pages of two objects (so every list of the specs takes several
// pages), and NodeIPAM off: the nodes get their podCIDRs from the specs,
// and without a consumer every range turns Active at once. It runs with
// the suite's administrator credentials, or with cfg.
func startOperator(cfg ...*rest.Config) {
	GinkgoHelper()
	config := suite.ControlPlane.Config
	if len(cfg) > 0 {
		config = cfg[0]
	}
	op := framework.StartOperator(ctx, config, framework.WithoutNodeIPAM, func(o *controllers.Options) {
		o.Audit.Enabled = true
		o.Audit.Interval = 300 * time.Millisecond
		o.Audit.PageSize = 2
		o.Audit.PagesPerSecond = 100
	})
	DeferCleanup(op.Stop)
}

// resetCluster removes what a spec created, once the operator stopped:
// the pods (at once: no kubelet confirms their end), NetworkPolicies,
// the kube-proxy ConfigMap and the audit's events, then
// framework.API.ResetCluster.
func resetCluster() {
	GinkgoHelper()
	Expect(k8sClient.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(metav1.NamespaceDefault), client.GracePeriodSeconds(0))).To(Succeed())
	Expect(k8sClient.DeleteAllOf(ctx, &networkingv1.NetworkPolicy{}, client.InNamespace(metav1.NamespaceDefault))).To(Succeed())
	Expect(k8sClient.DeleteAllOf(ctx, &eventsv1.Event{}, client.InNamespace(metav1.NamespaceSystem))).To(Succeed())
	k8sClient.ResetCluster(kubeProxyConfigMap(""))
	Eventually(func() int {
		var pods corev1.PodList
		Expect(k8sClient.List(ctx, &pods)).To(Succeed())
		return len(pods.Items)
	}).Should(BeZero())
}

// createPod creates a running pod on node n1 with ip, as a kubelet would
// report it.
func createPod(name, ip string, mutate ...func(*corev1.Pod)) {
	GinkgoHelper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name},
		Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
	}
	for _, m := range mutate {
		m(pod)
	}
	Expect(k8sClient.Create(ctx, pod)).To(Succeed())
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}
	if pod.Spec.HostNetwork {
		pod.Status.HostIP, pod.Status.HostIPs = ip, []corev1.HostIP{{IP: ip}}
	}
	Expect(k8sClient.Status().Update(ctx, pod)).To(Succeed())
}

func hostNetwork(p *corev1.Pod) { p.Spec.HostNetwork = true }

// createNetworkPolicy creates a policy allowing ingress from cidr.
func createNetworkPolicy(name, cidr string, annotations map[string]string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name, Annotations: annotations},
		Spec: networkingv1.NetworkPolicySpec{Ingress: []networkingv1.NetworkPolicyIngressRule{{
			From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: cidr}}},
		}}},
	})).To(Succeed())
}

// kubeProxyConfigMap is kube-proxy's ConfigMap as kubeadm writes it, with
// clusterCIDR.
func kubeProxyConfigMap(clusterCIDR string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "kube-proxy"},
		Data: map[string]string{"config.conf": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: " +
			clusterCIDR + "\n"},
	}
}

// createRange starts the PodNetwork with one range, or adds one, and
// waits until it is Active.
func createRange(name, cidr string) {
	GinkgoHelper()
	if _, err := k8sClient.PodNetwork(); err != nil {
		Expect(k8sClient.Create(ctx, framework.PodNetwork().Range(name, cidr).Obj())).To(Succeed())
	} else {
		Expect(k8sClient.EditRanges(func(rs []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
			return append(rs, framework.Range(name, cidr).Obj())
		})).To(Succeed())
	}
	Eventually(k8sClient.Phase).WithArguments(name).Should(Equal(v1alpha1.RangePhaseActive))
}

// metric returns the value of the series of name with labels, or -1 when
// there is none.
func metric(name string, labels map[string]string) float64 {
	families, err := crmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
					continue series
				}
			}
			if m.Counter != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return -1
}

func findings(kind audit.Kind) float64 {
	return metric("podnetwork_audit_findings", map[string]string{"kind": string(kind)})
}

func successfulAudits() float64 {
	return metric("podnetwork_audit_runs_total", map[string]string{"result": "success"})
}

// auditsFromNow waits until two more audits succeeded: one that started
// after this call.
func auditsFromNow() {
	GinkgoHelper()
	from := successfulAudits()
	Eventually(successfulAudits).Should(BeNumerically(">=", from+2))
}

// auditEvents returns "<reason> <kind> <namespace>/<name>" of every
// event of the audit, in any namespace, and fails when one repeats
// (a series).
func auditEvents() []string {
	var list eventsv1.EventList
	Expect(k8sClient.List(ctx, &list)).To(Succeed())
	var out []string
	for _, ev := range list.Items {
		if ev.ReportingController != "podnetwork-audit" {
			continue
		}
		Expect(ev.Series).To(BeNil(), "event %s repeated", ev.Name)
		Expect(ev.Type).To(Equal(corev1.EventTypeWarning))
		Expect(ev.Action).To(Equal(audit.EventAction))
		out = append(out, fmt.Sprintf("%s %s %s/%s", ev.Reason, ev.Regarding.Kind, ev.Regarding.Namespace, ev.Regarding.Name))
	}
	return out
}

// eventNote returns the note of the audit's event with reason.
func eventNote(reason string) string {
	var list eventsv1.EventList
	Expect(k8sClient.List(ctx, &list)).To(Succeed())
	for _, ev := range list.Items {
		if ev.Reason == reason {
			return ev.Note
		}
	}
	return ""
}

var _ = Describe("The audit", Serial, func() {
	BeforeEach(func() {
		DeferCleanup(resetCluster)
		startOperator()
		Expect(k8sClient.Create(ctx, framework.Node("n1").PodCIDRs("10.244.1.0/24").Obj())).To(Succeed())
		createRange("a", "10.244.0.0/16")
	})

	It("stays quiet on a cluster that agrees with its pod network", func() {
		for i := range 4 {
			createPod(fmt.Sprintf("app-%d", i), fmt.Sprintf("10.244.1.%d", 10+i))
		}
		createPod("host-agent", "192.168.0.1", hostNetwork)
		createNetworkPolicy("allow-pods", "10.244.0.0/16", nil)
		createNetworkPolicy("allow-private", "10.0.0.0/8", nil)
		Expect(k8sClient.Create(ctx, kubeProxyConfigMap("10.244.0.0/16"))).To(Succeed())

		auditsFromNow()
		for _, kind := range audit.Kinds() {
			Expect(findings(kind)).To(BeZero(), "findings of kind %s", kind)
		}
		Expect(auditEvents()).To(BeEmpty())
	})

	It("finds a pod IP outside every range, a NetworkPolicy that misses a new range and a drifted kube-proxy ConfigMap without its adapter", func() {
		for i := range 3 {
			createPod(fmt.Sprintf("app-%d", i), fmt.Sprintf("10.244.1.%d", 10+i))
		}
		createPod("stray", "192.168.5.5")
		createNetworkPolicy("allow-pods", "10.244.0.0/16", nil)
		createNetworkPolicy("pinned", "10.244.0.0/16", map[string]string{audit.IgnoreAnnotation: "true"})
		Expect(k8sClient.Create(ctx, kubeProxyConfigMap("10.244.0.0/16"))).To(Succeed())

		By("finding the stray pod's IP, outside its node's podCIDRs and every range")
		Eventually(findings).WithArguments(audit.PodIPOutsideRanges).Should(Equal(1.0))
		Expect(findings(audit.PodIPOutsideNodePodCIDRs)).To(Equal(1.0))
		Expect(findings(audit.NetworkPolicyMissingRange)).To(BeZero())
		Expect(findings(audit.AdapterConfigDrift)).To(BeZero())

		By("adding a range the policy and kube-proxy's clusterCIDR were not written for")
		// The range must turn Active in a later second than the policy was
		// written: the API keeps both times to the second.
		time.Sleep(1100 * time.Millisecond)
		createRange("b", "10.250.0.0/16")
		Eventually(findings).WithArguments(audit.NetworkPolicyMissingRange).Should(Equal(1.0))
		Eventually(findings).WithArguments(audit.AdapterConfigDrift).Should(Equal(1.0))
		Expect(findings(audit.PodIPOutsideRanges)).To(Equal(1.0))

		By("announcing each finding once, with an event on the object")
		want := []string{
			"PodIPOutsideNodePodCIDRs Pod default/stray",
			"PodIPOutsideRanges Pod default/stray",
			"NetworkPolicyMissingRange NetworkPolicy default/allow-pods",
			"AdapterConfigDrift ConfigMap kube-system/kube-proxy",
		}
		Eventually(auditEvents).Should(ConsistOf(want))
		auditsFromNow()
		Expect(auditEvents()).To(ConsistOf(want))
		Expect(eventNote(audit.PodIPOutsideRangesReason)).To(ContainSubstring("pod IP 192.168.5.5 lies outside every Active and Draining range"))
		Expect(eventNote(audit.NetworkPolicyMissingRangeReason)).To(ContainSubstring("but not b (10.250.0.0/16"))
		Expect(eventNote(audit.AdapterConfigDriftReason)).To(ContainSubstring("the kube-proxy adapter is off"))

		By("clearing what was fixed")
		cm := kubeProxyConfigMap("10.0.0.0/8")
		Expect(k8sClient.Update(ctx, cm)).To(Succeed())
		Expect(k8sClient.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "stray"}}, client.GracePeriodSeconds(0))).To(Succeed())
		Eventually(findings).WithArguments(audit.AdapterConfigDrift).Should(BeZero())
		Eventually(findings).WithArguments(audit.PodIPOutsideRanges).Should(BeZero())
		Expect(findings(audit.PodIPOutsideNodePodCIDRs)).To(BeZero())
		Expect(findings(audit.NetworkPolicyMissingRange)).To(Equal(1.0))
	})
})

var _ = Describe("The audit with the chart's RBAC", Serial, func() {
	BeforeEach(func() {
		DeferCleanup(resetCluster)
		root, err := cluster.RepoRoot()
		Expect(err).NotTo(HaveOccurred())
		objs, err := chart.Render(root, "--set", "audit.enabled=true")
		Expect(err).NotTo(HaveOccurred())
		Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chart.Namespace}})).To(Succeed())
		// The chart's ServiceAccount and RBAC, nothing else: the operator
		// runs in-process as that ServiceAccount.
		var created []client.Object
		for _, o := range objs {
			u := &unstructured.Unstructured{Object: o}
			switch u.GetKind() {
			case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
				Expect(k8sClient.Create(ctx, u)).To(Succeed(), "%s %s", u.GetKind(), u.GetName())
				created = append(created, u)
			}
		}
		DeferCleanup(func() {
			for _, obj := range created {
				Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, obj))).To(Succeed())
			}
			Expect(k8sClient.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chart.Namespace}})).To(Succeed())
		})
		startOperator(suite.ControlPlane.Cluster.ImpersonateServiceAccount(chart.Namespace, chart.Release))
		Expect(k8sClient.Create(ctx, framework.Node("n1").PodCIDRs("10.244.1.0/24").Obj())).To(Succeed())
		createRange("a", "10.244.0.0/16")
	})

	It("lists the pods and NetworkPolicies and reads kube-proxy's ConfigMap, and needs nothing more", func() {
		failed := metric("podnetwork_audit_runs_total", map[string]string{"result": "error"})
		createPod("stray", "192.168.5.5")
		createNetworkPolicy("allow-pods", "10.244.0.0/16", nil)
		Expect(k8sClient.Create(ctx, kubeProxyConfigMap("10.99.0.0/16"))).To(Succeed())
		Eventually(findings).WithArguments(audit.PodIPOutsideRanges).Should(Equal(1.0))
		Eventually(findings).WithArguments(audit.AdapterConfigDrift).Should(Equal(1.0))
		Eventually(auditEvents).Should(ConsistOf(
			"PodIPOutsideNodePodCIDRs Pod default/stray",
			"PodIPOutsideRanges Pod default/stray",
			"AdapterConfigDrift ConfigMap kube-system/kube-proxy",
		))
		auditsFromNow()
		Expect(metric("podnetwork_audit_runs_total", map[string]string{"result": "error"})).To(Equal(failed), "audits that failed")
	})
})
