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

// Package programs sets up what a kubeadm cluster running flannel has for
// kube-proxy and flanneld (ServiceAccounts, RBAC, ConfigMaps and DaemonSets
// shaped like kubeadm's and flannel's upstream manifests), runs them with
// the netnode kubelet stand-in on real binaries in network namespaces, and
// reads back what the programs did there (flanneld's subnet.env, iptables,
// ip6tables and nftables rules). The adapters suite and the dual-stack
// conversion suite share it.
package programs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/test/framework/cluster"
)

const (
	KubeProxyNamespace = "kube-system"
	KubeProxyName      = "kube-proxy"
	KubeProxyKey       = "config.conf"

	FlannelNamespace = "kube-flannel"
	FlannelConfigMap = "kube-flannel-cfg"
	FlannelDaemonSet = "kube-flannel-ds"
	FlannelKey       = "net-conf.json"

	// Container names, which the kubelet stand-in maps to the binaries
	// built from the programs' Go modules.
	FlannelContainer   = "kube-flannel"
	KubeProxyContainer = "kube-proxy"
)

// KubeProxyConfig is kubeadm's default kube-proxy configuration with
// clusterCIDR 10.244.0.0/16 and conntrack.maxPerCore 0, so kube-proxy
// leaves the host's conntrack table size alone (the kernel's setting is
// global, not per network namespace).
func KubeProxyConfig() (string, error) {
	text, err := testdata("kubeproxy", "kubeadm.yaml")
	return strings.Replace(text, "  maxPerCore: null\n", "  maxPerCore: 0\n", 1), err
}

// FlannelConfig is flannel's upstream net-conf.json (Network 10.244.0.0/16,
// vxlan).
func FlannelConfig() (string, error) { return testdata("flannel", "upstream.json") }

// testdata reads a file of an adapter's testdata directory.
func testdata(pkg, file string) (string, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(root, "internal", "adapters", pkg, "testdata", file))
	return string(b), err
}

// Create creates what a kubeadm cluster running flannel has: kube-proxy's
// and flannel's ServiceAccounts, RBAC, ConfigMaps (with the given
// configuration texts) and DaemonSets. apiServer is the host:port kube-proxy's
// kubeconfig points at.
func Create(ctx context.Context, c client.Client, apiServer, kubeProxyConfig, flannelConfig string) error {
	objects := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: FlannelNamespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: KubeProxyNamespace, Name: KubeProxyName}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: FlannelNamespace, Name: "flannel"}},
	}
	objects = append(objects, rbac()...)
	objects = append(objects,
		&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: KubeProxyNamespace, Name: KubeProxyName, Labels: map[string]string{"app": "kube-proxy"}},
			Data:       map[string]string{KubeProxyKey: kubeProxyConfig, "kubeconfig.conf": KubeProxyKubeconfig(apiServer)},
		},
		&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: FlannelNamespace, Name: FlannelConfigMap, Labels: map[string]string{"app": "flannel"}},
			Data:       map[string]string{FlannelKey: flannelConfig, "cni-conf.json": `{"name": "cbr0", "cniVersion": "0.3.1"}`},
		},
		KubeProxyDaemonSet(),
		FlannelDaemonSetObject(),
	)
	for _, o := range objects {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("creating %T %s: %w", o, client.ObjectKeyFromObject(o), err)
		}
	}
	return nil
}

// KubeProxyKubeconfig is kubeadm's kubeconfig.conf for kube-proxy: the
// ServiceAccount token and CA the kubelet mounts.
func KubeProxyKubeconfig(apiServer string) string {
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

func rbac() []client.Object {
	return []client.Object{
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "flannel"},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}},
				{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}},
				{APIGroups: []string{""}, Resources: []string{"nodes/status"}, Verbs: []string{"patch"}},
			},
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "flannel"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "flannel"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: FlannelNamespace, Name: "flannel"}},
		},
		&rbacv1.ClusterRoleBinding{
			// kubeadm binds kube-proxy to the bootstrap role system:node-proxier.
			ObjectMeta: metav1.ObjectMeta{Name: "kubeadm:node-proxier"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:node-proxier"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: KubeProxyNamespace, Name: KubeProxyName}},
		},
	}
}

// KubeProxyDaemonSet is kubeadm's kube-proxy DaemonSet, with a readiness
// probe on kube-proxy's healthz (kubeadm has none, so the kubelet would mark
// the pod Ready as soon as the process runs).
func KubeProxyDaemonSet() *appsv1.DaemonSet {
	ds := daemonSet(KubeProxyNamespace, KubeProxyName, "k8s-app", "kube-proxy")
	ds.Spec.Template.Spec.ServiceAccountName = KubeProxyName
	ds.Spec.Template.Spec.Containers = []corev1.Container{{
		Name:    KubeProxyContainer,
		Image:   "kube-proxy:v1.37.2",
		Command: []string{"/usr/local/bin/kube-proxy", "--config=/var/lib/kube-proxy/config.conf", "--hostname-override=$(NODE_NAME)"},
		Env: []corev1.EnvVar{{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
			HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(10256)}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "kube-proxy", MountPath: "/var/lib/kube-proxy"}},
	}}
	ds.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "kube-proxy", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: KubeProxyName}}}}}
	return ds
}

// FlannelDaemonSetObject is flannel's upstream DaemonSet (kube subnet
// manager, --ip-masq), with a readiness probe on the subnet file flanneld
// writes once its rules are in place.
func FlannelDaemonSetObject() *appsv1.DaemonSet {
	ds := daemonSet(FlannelNamespace, FlannelDaemonSet, "app", "flannel")
	ds.Spec.Template.Spec.ServiceAccountName = "flannel"
	fieldEnv := func(name, path string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
	}
	ds.Spec.Template.Spec.Containers = []corev1.Container{{
		Name:    FlannelContainer,
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
			LocalObjectReference: corev1.LocalObjectReference{Name: FlannelConfigMap}}}},
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
