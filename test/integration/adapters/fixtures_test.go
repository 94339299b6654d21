package adapters_test

import (
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	nodeCount = 12

	kubeProxyNamespace = "kube-system"
	kubeProxyName      = "kube-proxy"
	kubeProxyKey       = "config.conf"

	flannelNamespace = "kube-flannel"
	flannelConfigMap = "kube-flannel-cfg"
	flannelDaemonSet = "kube-flannel-ds"
	flannelKey       = "net-conf.json"
)

var (
	// kubeProxyConfig is kubeadm's default kube-proxy configuration with
	// clusterCIDR 10.244.0.0/16; flannelConfig the upstream net-conf.json.
	kubeProxyConfig = testdata("kubeproxy", "kubeadm.yaml")
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

// createFixtures creates what a kubeadm cluster running flannel has: nodes
// with podCIDRs from 10.244.0.0/16 and addresses in 172.18.0.0/24, kube-proxy's
// and flannel's ConfigMaps and DaemonSets.
func createFixtures() {
	for i := range nodeCount {
		n := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: nodeName(i), Labels: map[string]string{
				"type":             "kwok", // cluster.KwokNodeLabel: kwok manages the node and runs its pods
				"kubernetes.io/os": "linux", "kubernetes.io/hostname": nodeName(i),
			}},
			Spec: corev1.NodeSpec{PodCIDR: fmt.Sprintf("10.244.%d.0/24", i), PodCIDRs: []string{fmt.Sprintf("10.244.%d.0/24", i)}},
		}
		Expect(k8sClient.Create(ctx, n)).To(Succeed())
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(n), n); err != nil {
				return err
			}
			n.Status.Addresses = []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("172.18.0.%d", 10+i)},
				{Type: corev1.NodeHostName, Address: nodeName(i)},
			}
			return k8sClient.Status().Update(ctx, n)
		})).To(Succeed())
	}
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: flannelNamespace}})).To(Succeed())
	Expect(k8sClient.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: kubeProxyNamespace, Name: kubeProxyName, Labels: map[string]string{"app": "kube-proxy"}},
		Data:       map[string]string{kubeProxyKey: kubeProxyConfig, "kubeconfig.conf": "apiVersion: v1\nkind: Config\n"},
	})).To(Succeed())
	Expect(k8sClient.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: flannelNamespace, Name: flannelConfigMap, Labels: map[string]string{"app": "flannel"}},
		Data:       map[string]string{flannelKey: flannelConfig, "cni-conf.json": `{"name": "cbr0", "cniVersion": "0.3.1"}`},
	})).To(Succeed())
	Expect(k8sClient.Create(ctx, daemonSet(kubeProxyNamespace, kubeProxyName, "k8s-app", "kube-proxy"))).To(Succeed())
	Expect(k8sClient.Create(ctx, daemonSet(flannelNamespace, flannelDaemonSet, "app", "flannel"))).To(Succeed())
}

// daemonSet is shaped like kubeadm's kube-proxy and upstream flannel
// DaemonSets (rolling update, Linux nodes, tolerate everything), except that
// maxUnavailable is 50% so a rollout over the fake nodes takes two waves
// instead of one per node.
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
					HostNetwork:  true,
					NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:  []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers:   []corev1.Container{{Name: name, Image: "registry.k8s.io/" + name + ":test"}},
				},
			},
		},
	}
}
