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

package adapters_test

import (
	"fmt"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"podnetwork.io/operator/test/framework/netnode"
	progs "podnetwork.io/operator/test/framework/programs"
)

// The fixtures of a kubeadm cluster running flannel live in
// test/framework/programs, shared with the dual-stack suite.
const (
	kubeProxyNamespace = progs.KubeProxyNamespace
	kubeProxyName      = progs.KubeProxyName
	kubeProxyKey       = progs.KubeProxyKey

	flannelNamespace = progs.FlannelNamespace
	flannelConfigMap = progs.FlannelConfigMap
	flannelDaemonSet = progs.FlannelDaemonSet
	flannelKey       = progs.FlannelKey
)

var (
	// kubeProxyConfig is kubeadm's default kube-proxy configuration with
	// clusterCIDR 10.244.0.0/16 (progs.KubeProxyConfig); flannelConfig
	// is the upstream net-conf.json.
	kubeProxyConfig = must(progs.KubeProxyConfig())
	flannelConfig   = must(progs.FlannelConfig())
)

func must(text string, err error) string {
	if err != nil {
		panic(err)
	}
	return text
}

func nodeName(i int) string { return fmt.Sprintf("node-%02d", i) }

// addNode registers a node in its own network namespace with podCIDRs.
func addNode(name string, podCIDRs ...string) *netnode.Node {
	n, err := kubelet.AddNode(ctx, name, netnode.NodeOptions{PodCIDRs: podCIDRs})
	Expect(err).NotTo(HaveOccurred())
	return n
}

func removeNode(name string) { Expect(kubelet.RemoveNode(ctx, name)).To(Succeed()) }

// createFixtures creates what a kubeadm cluster running flannel has
// (progs.Create) and a Service with an endpoint, so kube-proxy writes
// the per-Service masquerade rule that carries clusterCIDR.
func createFixtures(apiServer string) {
	Expect(progs.Create(ctx, k8sClient, apiServer, kubeProxyConfig, flannelConfig)).To(Succeed())
	createProbeService()
}

func flannelDaemonSetObject() *appsv1.DaemonSet { return progs.FlannelDaemonSetObject() }

// createProbeService creates a ClusterIP Service with one endpoint (the
// bridge address), so kube-proxy programs a Service chain with its
// masquerade rule for traffic from outside clusterCIDR.
func createProbeService() {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "probe"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}},
	}
	Expect(k8sClient.Create(ctx, svc)).To(Succeed())
	Expect(k8sClient.Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "default", Name: "probe-1", Labels: map[string]string{discoveryv1.LabelServiceName: "probe"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{network.Gateway4.Addr().String()},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](80), Protocol: ptr.To(corev1.ProtocolTCP)}},
	})).To(Succeed())
}
