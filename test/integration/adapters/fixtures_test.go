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
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/test/framework/netnode"
)

const (
	kubeProxyNamespace = "kube-system"
	kubeProxyName      = "kube-proxy"
	kubeProxyKey       = "config.conf"

	flannelNamespace = "kube-flannel"
	flannelConfigMap = "kube-flannel-cfg"
	flannelDaemonSet = "kube-flannel-ds"
	flannelKey       = "net-conf.json"

	// Container names, which the kubelet stand-in maps to the binaries
	// built from the programs' Go modules.
	flannelContainer   = "kube-flannel"
	kubeProxyContainer = "kube-proxy"
)

var (
	// kubeProxyConfig is kubeadm's default kube-proxy configuration with
	// clusterCIDR 10.244.0.0/16 and conntrack.maxPerCore 0, so kube-proxy
	// leaves the host's conntrack table size alone (the kernel's setting is
	// global, not per network namespace). flannelConfig is the upstream
	// net-conf.json.
	kubeProxyConfig = strings.Replace(testdata("kubeproxy", "kubeadm.yaml"), "  maxPerCore: null\n", "  maxPerCore: 0\n", 1)
	flannelConfig   = testdata("flannel", "upstream.json")
)

func testdata(pkg, file string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "internal", "adapters", pkg, "testdata", file))
	if err != nil {
		panic(err)
	}
	return string(b)
}

func nodeName(i int) string { return fmt.Sprintf("node-%02d", i) }

// addNode registers a node in its own network namespace with podCIDRs.
func addNode(name string, podCIDRs ...string) *netnode.Node {
	n, err := kubelet.AddNode(ctx, name, netnode.NodeOptions{PodCIDRs: podCIDRs})
	Expect(err).NotTo(HaveOccurred())
	return n
}

func removeNode(name string) { Expect(kubelet.RemoveNode(ctx, name)).To(Succeed()) }

// createFixtures creates what a kubeadm cluster running flannel has:
// kube-proxy's and flannel's ServiceAccounts, RBAC, ConfigMaps and
// DaemonSets shaped like kubeadm's and flannel's upstream manifests, and a
// Service with an endpoint, so kube-proxy writes the per-Service
// masquerade rule that carries clusterCIDR.
func createFixtures(apiServer string) {
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: flannelNamespace}})).To(Succeed())
	for _, sa := range []client.ObjectKey{{Namespace: kubeProxyNamespace, Name: kubeProxyName}, {Namespace: flannelNamespace, Name: "flannel"}} {
		Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: sa.Namespace, Name: sa.Name}})).To(Succeed())
	}
	createRBAC()

	Expect(k8sClient.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: kubeProxyNamespace, Name: kubeProxyName, Labels: map[string]string{"app": "kube-proxy"}},
		Data:       map[string]string{kubeProxyKey: kubeProxyConfig, "kubeconfig.conf": kubeProxyKubeconfig(apiServer)},
	})).To(Succeed())
	Expect(k8sClient.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: flannelNamespace, Name: flannelConfigMap, Labels: map[string]string{"app": "flannel"}},
		Data:       map[string]string{flannelKey: flannelConfig, "cni-conf.json": `{"name": "cbr0", "cniVersion": "0.3.1"}`},
	})).To(Succeed())
	Expect(k8sClient.Create(ctx, kubeProxyDaemonSet())).To(Succeed())
	Expect(k8sClient.Create(ctx, flannelDaemonSetObject())).To(Succeed())
	createProbeService()
}

// kubeProxyKubeconfig is kubeadm's kubeconfig.conf for kube-proxy: the
// ServiceAccount token and CA the kubelet mounts.
func kubeProxyKubeconfig(apiServer string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
    server: https://%s
  name: default
contexts:
- context:
    cluster: default
    namespace: default
    user: default
  name: default
current-context: default
users:
- name: default
  user:
    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token
`, apiServer)
}

func createRBAC() {
	flannelRole := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "flannel"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}},
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"nodes/status"}, Verbs: []string{"patch"}},
		},
	}
	Expect(k8sClient.Create(ctx, flannelRole)).To(Succeed())
	bindings := []*rbacv1.ClusterRoleBinding{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "flannel"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "flannel"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: flannelNamespace, Name: "flannel"}},
		},
		{
			// kubeadm binds kube-proxy to the bootstrap role system:node-proxier.
			ObjectMeta: metav1.ObjectMeta{Name: "kubeadm:node-proxier"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:node-proxier"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: kubeProxyNamespace, Name: kubeProxyName}},
		},
	}
	for _, b := range bindings {
		Expect(k8sClient.Create(ctx, b)).To(Succeed())
	}
}

// kubeProxyDaemonSet is kubeadm's kube-proxy DaemonSet, with a readiness
// probe on kube-proxy's healthz (kubeadm has none, so the kubelet would mark
// the pod Ready as soon as the process runs).
func kubeProxyDaemonSet() *appsv1.DaemonSet {
	ds := daemonSet(kubeProxyNamespace, kubeProxyName, "k8s-app", "kube-proxy")
	ds.Spec.Template.Spec.ServiceAccountName = kubeProxyName
	ds.Spec.Template.Spec.Containers = []corev1.Container{{
		Name:    kubeProxyContainer,
		Image:   "kube-proxy:v1.37.2",
		Command: []string{"/usr/local/bin/kube-proxy", "--config=/var/lib/kube-proxy/config.conf", "--hostname-override=$(NODE_NAME)"},
		Env: []corev1.EnvVar{{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
			HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(10256)}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "kube-proxy", MountPath: "/var/lib/kube-proxy"}},
	}}
	ds.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "kube-proxy", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: kubeProxyName}}}}}
	return ds
}

// flannelDaemonSetObject is flannel's upstream DaemonSet (kube subnet
// manager, --ip-masq), with a readiness probe on the subnet file flanneld
// writes once its rules are in place.
func flannelDaemonSetObject() *appsv1.DaemonSet {
	ds := daemonSet(flannelNamespace, flannelDaemonSet, "app", "flannel")
	ds.Spec.Template.Spec.ServiceAccountName = "flannel"
	fieldEnv := func(name, path string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
	}
	ds.Spec.Template.Spec.Containers = []corev1.Container{{
		Name:    flannelContainer,
		Image:   "flannel:v0.28.10",
		Command: []string{"/opt/bin/flanneld"},
		Args:    []string{"--ip-masq", "--kube-subnet-mgr", "--iface=eth0"},
		Env: []corev1.EnvVar{
			fieldEnv("POD_NAME", "metadata.name"), fieldEnv("POD_NAMESPACE", "metadata.namespace"),
			{Name: "EVENT_QUEUE_DEPTH", Value: "5000"}, {Name: "CONT_WHEN_CACHE_NOT_READY", Value: "false"},
		},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
			Exec: &corev1.ExecAction{Command: []string{"test", "-s", "/run/flannel/subnet.env"}}}},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "run", MountPath: "/run/flannel"},
			{Name: "flannel-cfg", MountPath: "/etc/kube-flannel/"},
		},
	}}
	ds.Spec.Template.Spec.Volumes = []corev1.Volume{
		{Name: "run", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/run/flannel"}}},
		{Name: "flannel-cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: flannelConfigMap}}}},
	}
	return ds
}

// daemonSet is shaped like kubeadm's kube-proxy and upstream flannel
// DaemonSets (rolling update, Linux nodes, host network, tolerate
// everything), except that maxUnavailable is 50% so a rollout takes two
// waves instead of one per node.
func daemonSet(namespace, name, labelKey, labelValue string) *appsv1.DaemonSet {
	labels := map[string]string{labelKey: labelValue}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromString("50%"))},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					HostNetwork:                   true,
					NodeSelector:                  map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					TerminationGracePeriodSeconds: ptr.To[int64](5),
					Containers:                    []corev1.Container{{Name: name, Image: name + ":test"}},
				},
			},
		},
	}
}

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
