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

// Package dualstack_test converts a running IPv4 cluster to dual-stack the
// way docs/operations.md tells an admin to, with the real flanneld and
// kube-proxy on every node (test/framework/programs, netnode), the
// operator's NodeIPAM, its kube-proxy and flannel adapters and drain
// assist: an IPv6 range is added with spec.allocation.familyPolicy
// AllOrWait, goes Active once every consumer acknowledged it (flannel
// without enabling IPv6), drain assist replaces the IPv4-only nodes (the
// test plays Karpenter: a deleted Node's machine goes and a new one
// registers), flannel's adapter turns EnableIPv6 on with a rollout once
// every node holds an IPv6 podCIDR, and kube-apiserver and
// kube-controller-manager get the IPv6 service range and restart, so a
// dual-stack Service is programmed by kube-proxy in both families.
//
// Every address lives inside the network namespaces and the bridge the
// suite creates: nodes and the bridge in 198.18.k.0/24 and fd99:0:0:k::/64
// (netnode), pods in 198.19.0.0/17 and fd99:0:0:100::/56, Services in
// 198.19.192.0/20 and fd99:0:0:200::/112. It needs root.
package dualstack_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	flannelcfg "podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/cluster"
	"podnetwork.io/operator/test/framework/netnode"
	"podnetwork.io/operator/test/framework/programs"
)

const (
	kubeProxy = kubeproxy.Name
	flannel   = flannelcfg.Name
	// late is a required consumer that acknowledges the IPv6 range's
	// Pending phase only when the spec lets it, so a node can register
	// while the range is Pending.
	late = "late-plugin"

	podCIDR4     = "198.19.0.0/17"
	podCIDR6     = "fd99:0:0:100::/56"
	serviceCIDR4 = "198.19.192.0/20"
	serviceCIDR6 = "fd99:0:0:200::/112"
)

var (
	controlPlane *framework.ControlPlane
	k8sClient    framework.API
	ctx          context.Context
	processes    []*framework.Process
	hist         *framework.Recorder
	network      *netnode.Network
	kubelet      *netnode.Kubelet
	kcm          *cluster.Process
	lateHold     = newHold()
)

func TestDualStack(t *testing.T) {
	framework.RequireRoot(t, "the dual-stack conversion suite runs flanneld and kube-proxy in network namespaces")
	framework.RunSuite(t, "Dual-stack Conversion Suite", 60*time.Second, 200*time.Millisecond)
}

var _ = BeforeSuite(func() {
	var err error
	network, err = netnode.New(fmt.Sprintf("pnd%d", os.Getpid()%10000))
	Expect(err).NotTo(HaveOccurred())
	// Registered first, so it runs last: after the control plane that
	// serves on the bridge has stopped.
	DeferCleanup(network.Close)
	ctx, controlPlane = framework.StartSuite(framework.ControlPlaneOptions{
		BindAddress: network.Gateway4.Addr().String(),
		ServiceCIDR: serviceCIDR4,
		// kube-apiserver restarts with the IPv6 service range; without a
		// watch cache it serves watches from any revision etcd has, so the
		// recorded history has no gap across the restart.
		Restartable:   true,
		APIServerArgs: map[string]string{"watch-cache": "false"},
		Scheduler:     true,
	})
	GinkgoWriter.Printf("control plane and program logs in %s\n", controlPlane.Cluster.WorkDir)
	k8sClient = framework.NewAPI(ctx, controlPlane.Client)
	kcm = startControllerManager(serviceCIDR4)

	hist, err = framework.RecordHistory(ctx, k8sClient,
		framework.Watched{List: &v1alpha1.PodNetworkList{}}, framework.Watched{List: &v1alpha1.PodNetworkConsumerList{}},
		framework.Watched{List: &corev1.ConfigMapList{}, Namespace: programs.FlannelNamespace},
		framework.Watched{List: &corev1.PodList{}}, framework.Watched{List: &corev1.NodeList{}},
		framework.Watched{List: &appsv1.DaemonSetList{}})
	Expect(err).NotTo(HaveOccurred())

	apiServer, err := programs.APIServerHostPort(controlPlane)
	Expect(err).NotTo(HaveOccurred())
	kubeProxyConfig, err := programs.KubeProxyConfig()
	Expect(err).NotTo(HaveOccurred())
	flannelConfig, err := programs.FlannelConfig()
	Expect(err).NotTo(HaveOccurred())
	// An IPv4 cluster whose pod network is 198.19.0.0/17.
	Expect(programs.Create(ctx, k8sClient, apiServer,
		strings.Replace(kubeProxyConfig, "clusterCIDR: 10.244.0.0/16", "clusterCIDR: "+podCIDR4, 1),
		strings.Replace(flannelConfig, `"10.244.0.0/16"`, `"`+podCIDR4+`"`, 1))).To(Succeed())

	k, p, err := programs.StartKubelet(ctx, controlPlane, network)
	Expect(err).NotTo(HaveOccurred())
	kubelet = k
	processes = append(processes, p, startLateConsumer())
	// The operator: lifecycle, NodeIPAM, both adapters and drain assist.
	processes = append(processes, framework.StartOperator(ctx, controlPlane.Config, func(o *controllers.Options) {
		o.Adapters.Enable(kubeProxy, flannel)
		o.NodeIPAM.StatusInterval = 200 * time.Millisecond
		o.DrainAssist.PollInterval = 200 * time.Millisecond
	}))
})

var _ = AfterSuite(func() {
	if hist != nil {
		hist.Stop()
	}
	for i := len(processes) - 1; i >= 0; i-- {
		Expect(processes[i].Stop()).To(Succeed())
	}
	if kubelet != nil {
		kubelet.StopAll()
	}
})

// startControllerManager runs kube-controller-manager with the DaemonSet
// controller (DaemonSet pods) and the given --service-cluster-ip-range, as
// kubeadm runs it; the conversion restarts it with the IPv6 range added.
func startControllerManager(serviceCIDRs string) *cluster.Process {
	GinkgoHelper()
	name := "kube-controller-manager"
	if kcm != nil {
		Expect(kcm.Stop()).To(Succeed())
		name += "-dual-stack" // a new log: the old one stays for diagnosis
	}
	p, err := controlPlane.Cluster.RunControllerManager(cluster.ControllerManagerOptions{
		Name: name, Controllers: []string{"daemonset"},
		Args: map[string]string{"service-cluster-ip-range": serviceCIDRs},
	})
	Expect(err).NotTo(HaveOccurred())
	return p
}

// logTail returns the last lines of a log in the control plane's work
// directory, for a failed spec.
func logTail(name string, lines int) string {
	b, err := os.ReadFile(filepath.Join(controlPlane.Cluster.WorkDir, name))
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}
