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

// Package driftguard_test installs the chart's drift guards (the
// ValidatingAdmissionPolicies of templates/driftguard.yaml, rendered with
// bin/helm) into a real kube-apiserver and re-applies flannel's upstream
// net-conf.json and kubeadm's kube-proxy configuration over a network the
// operator grew.
package driftguard_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/chart"
	"podnetwork.io/operator/test/framework/cluster"
)

var (
	suite     = framework.NewSuite("Drift guard Suite", framework.ControlPlaneOptions{})
	ctx       = suite.Ctx
	k8sClient = suite.API
)

func TestDriftGuard(t *testing.T) { suite.Run(t, 30*time.Second, 100*time.Millisecond) }

const (
	flannelNamespace = "kube-flannel"
	flannelConfigMap = "kube-flannel-cfg"
	flannelKey       = "net-conf.json"
	kubeProxyKey     = "config.conf"
	hatch            = "podnetwork.io/allow-network-change"
)

var (
	flannelKeyRef   = client.ObjectKey{Namespace: flannelNamespace, Name: flannelConfigMap}
	kubeProxyKeyRef = client.ObjectKey{Namespace: "kube-system", Name: "kube-proxy"}
)

func testdata(pkg, file string) string {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "internal", "adapters", pkg, "testdata", file))
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// upstream returns the ConfigMaps as flannel's upstream manifest and
// kubeadm ship them: one range, 10.244.0.0/16.
func upstream(key client.ObjectKey) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
	}
	if key == flannelKeyRef {
		cm.Labels = map[string]string{"app": "flannel", "tier": "node"}
		cm.Data = map[string]string{flannelKey: testdata("flannel", "upstream.json"), "cni-conf.json": `{"name": "cbr0", "cniVersion": "0.3.1"}`}
	} else {
		cm.Labels = map[string]string{"app": "kube-proxy"}
		cm.Data = map[string]string{kubeProxyKey: testdata("kubeproxy", "kubeadm.yaml")}
	}
	return cm
}

// reapply applies the upstream ConfigMap as `kubectl apply --server-side
// --force-conflicts` does, as user c.
func reapply(c client.Client, cm *corev1.ConfigMap) error {
	return c.Patch(ctx, cm, client.Apply, client.FieldOwner("kubectl"), client.ForceOwnership) //nolint:staticcheck // client.Apply is what kubectl apply --server-side sends
}

func current(key client.ObjectKey) *corev1.ConfigMap {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	Expect(k8sClient.Get(ctx, key, cm)).To(Succeed())
	return cm
}

// operatorWrite writes what the adapter's planner decides for the current
// ranges, with the merge patch the adapter sends, as c.
func operatorWrite(c client.Client, key client.ObjectKey, dataKey string, plan func(string, adapters.Input) (adapters.Plan, error)) (string, error) {
	cm := current(key)
	in := adapters.InputFrom(k8sClient.GetPodNetwork(), nil, nil, nil, adapters.DefaultLimits)
	// As the operator with its NodeIPAM under familyPolicy AllOrWait (no
	// node here), so that flannel's adapter may turn EnableIPv6 on.
	in.NodeIPAM = true
	if in.PodNetwork.Spec.Allocation == nil {
		in.PodNetwork.Spec.Allocation = &v1alpha1.AllocationPolicy{}
	}
	in.PodNetwork.Spec.Allocation.FamilyPolicy = v1alpha1.FamilyPolicyAllOrWait
	p, err := plan(cm.Data[dataKey], in)
	Expect(err).NotTo(HaveOccurred())
	base := cm.DeepCopy()
	cm.Data[dataKey] = p.Config
	return p.Summary, c.Patch(ctx, cm, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
}

func refused(err error) bool { return apierrors.IsForbidden(err) || apierrors.IsInvalid(err) }

var _ = Describe("The drift guards", Ordered, func() {
	var operatorSA client.Client

	BeforeAll(func() {
		root, err := cluster.RepoRoot()
		Expect(err).NotTo(HaveOccurred())
		objs, err := chart.Render(root, "--set", "adapters.flannel.enabled=true", "--set", "adapters.kubeProxy.enabled=true")
		Expect(err).NotTo(HaveOccurred())
		for _, ns := range []string{chart.Namespace, flannelNamespace} {
			Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		}
		// The chart's objects: its RBAC (the operator's ServiceAccount may
		// write the adapters' ConfigMaps) and the drift guards; not the
		// operator's Deployment, nor the consumers it registers for the
		// adapters, which no adapter answers here.
		guards := 0
		for _, o := range objs {
			u := &unstructured.Unstructured{Object: o}
			if u.GetKind() == "Deployment" || u.GetKind() == "PodNetworkConsumer" {
				continue
			}
			if strings.HasPrefix(u.GetKind(), "ValidatingAdmissionPolicy") {
				guards++
			}
			Expect(k8sClient.Create(ctx, u)).To(Succeed(), "%s %s", u.GetKind(), u.GetName())
		}
		Expect(guards).To(Equal(4), "a policy and a binding per adapter")
		for _, key := range []client.ObjectKey{flannelKeyRef, kubeProxyKeyRef} {
			Expect(k8sClient.Create(ctx, upstream(key))).To(Succeed())
		}
		operatorSA, err = client.New(suite.ControlPlane.Cluster.ImpersonateServiceAccount(chart.Namespace, chart.Release), client.Options{Scheme: controllers.Scheme()})
		Expect(err).NotTo(HaveOccurred())

		// The lifecycle controller makes ranges Active at once: no consumer
		// is registered.
		framework.StartOperator(ctx, suite.ControlPlane.Config, framework.WithoutNodeIPAM)
		Expect(k8sClient.Create(ctx, framework.PodNetwork().Range("a", "10.244.0.0/16").Obj())).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("a").Should(Equal(v1alpha1.RangePhaseActive))
	})

	It("lets the upstream manifests be re-applied over a network with one range", func() {
		// The apiserver loads policies asynchronously: wait until a value
		// that leaves range a out is refused, so the guard is known to run.
		outside := map[client.ObjectKey]string{
			flannelKeyRef:   strings.Replace(testdata("flannel", "upstream.json"), "10.244.0.0/16", "10.99.0.0/16", 1),
			kubeProxyKeyRef: strings.Replace(testdata("kubeproxy", "kubeadm.yaml"), "clusterCIDR: 10.244.0.0/16", "clusterCIDR: 10.99.0.0/16", 1),
		}
		for key, text := range outside {
			cm := upstream(key)
			for k := range cm.Data {
				if k == flannelKey || k == kubeProxyKey {
					cm.Data[k] = text
				}
			}
			Eventually(func() error { return reapply(k8sClient, cm) }).Should(Satisfy(refused), "%s", key)
			Expect(reapply(k8sClient, cm).Error()).To(ContainSubstring("leaves out the pod CIDR ranges in use a (10.244.0.0/16, Active)"))
		}
		for _, key := range []client.ObjectKey{flannelKeyRef, kubeProxyKeyRef} {
			cm := upstream(key)
			cm.Labels["reapplied"] = "1"
			Expect(reapply(k8sClient, cm)).To(Succeed(), "%s", key)
			Expect(current(key).Labels).To(HaveKeyWithValue("reapplied", "1"))
		}
	})

	It("lets the operator write the covering prefixes of a grown network", func() {
		Expect(k8sClient.EditRanges(func(rs []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
			return append(rs, framework.Range("b", "10.245.0.0/16").Obj())
		})).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("b").Should(Equal(v1alpha1.RangePhaseActive))

		summary, err := operatorWrite(operatorSA, flannelKeyRef, flannelKey, flannel.Plan)
		Expect(err).NotTo(HaveOccurred())
		Expect(summary).To(Equal("Network 10.244.0.0/15"))
		summary, err = operatorWrite(operatorSA, kubeProxyKeyRef, kubeProxyKey, kubeproxy.Plan)
		Expect(err).NotTo(HaveOccurred())
		Expect(summary).To(Equal("clusterCIDR 10.244.0.0/15"))
	})

	It("refuses the upstream re-apply over the grown network, naming the ranges it would leave out", func() {
		for _, tc := range []struct {
			key    client.ObjectKey
			fields string
		}{
			{flannelKeyRef, "Network 10.244.0.0/16, IPv6Network (none), EnableIPv6 false"},
			{kubeProxyKeyRef, "clusterCIDR 10.244.0.0/16"},
		} {
			Eventually(func() error { return reapply(k8sClient, upstream(tc.key)) }).Should(Satisfy(refused), "%s", tc.key)
			err := reapply(k8sClient, upstream(tc.key))
			Expect(err.Error()).To(ContainSubstring(tc.fields + " leaves out the pod CIDR ranges in use b (10.245.0.0/16, Active)"))
			Expect(err.Error()).To(ContainSubstring(hatch))
			Expect(current(tc.key).Data).NotTo(Equal(upstream(tc.key).Data), "nothing was written")
		}
	})

	It("refuses turning IPv6 off under an IPv6 range in use", func() {
		Expect(k8sClient.EditRanges(func(rs []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
			return append(rs, framework.Range("v6", "fd99::/56").Obj())
		})).To(Succeed())
		Eventually(k8sClient.Phase).WithArguments("v6").Should(Equal(v1alpha1.RangePhaseActive))
		summary, err := operatorWrite(operatorSA, flannelKeyRef, flannelKey, flannel.Plan)
		Expect(err).NotTo(HaveOccurred())
		Expect(summary).To(Equal("Network 10.244.0.0/15, IPv6Network fd99::/56"))

		cm := current(flannelKeyRef)
		cm.Data[flannelKey] = strings.Replace(cm.Data[flannelKey], `"EnableIPv6": true`, `"EnableIPv6": false`, 1)
		err = k8sClient.Update(ctx, cm)
		Expect(err).To(Satisfy(refused))
		Expect(err.Error()).To(ContainSubstring("EnableIPv6 false leaves out the pod CIDR ranges in use v6 (fd99::/56, Active)"))
	})

	It("lets other edits of a ConfigMap through, and an admin force a change with the annotation", func() {
		cm := current(kubeProxyKeyRef)
		cm.Data["notes"] = "edited by hand"
		Expect(k8sClient.Update(ctx, cm)).To(Succeed(), "the managed fields are unchanged")

		forced := upstream(kubeProxyKeyRef)
		forced.Annotations = map[string]string{hatch: "true"}
		Expect(reapply(k8sClient, forced)).To(Succeed())
		Expect(current(kubeProxyKeyRef).Data[kubeProxyKey]).To(Equal(forced.Data[kubeProxyKey]))
	})
})
