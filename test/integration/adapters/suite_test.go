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
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/cluster"
	"podnetwork.io/operator/test/framework/netnode"
	progs "podnetwork.io/operator/test/framework/programs"
)

// The suite runs the adapters against the real programs they configure:
// etcd and kube-apiserver, kube-controller-manager with only the DaemonSet
// controller, kube-scheduler (it binds DaemonSet pods), and, on every node,
// real flanneld and kube-proxy binaries built from their Go modules. Each
// node is a network namespace (test/framework/netnode) on a bridge in
// 198.18.0.0/24, and a kubelet stand-in runs the DaemonSets' pods there with
// their ConfigMaps mounted as files. The apiserver serves on the bridge
// address so the programs reach it from their namespaces. It needs root.
var (
	controlPlane *framework.ControlPlane
	k8sClient    framework.API
	ctx          context.Context
	processes    []*framework.Process
	hist         *framework.Recorder
	network      *netnode.Network
	kubelet      *netnode.Kubelet
)

func TestAdapters(t *testing.T) {
	framework.RequireRoot(t, "the adapters suite runs flanneld and kube-proxy in network namespaces")
	framework.RunSuite(t, "Adapters Suite", 90*time.Second, 200*time.Millisecond)
}

var _ = BeforeSuite(func() {
	var err error
	network, err = netnode.New(fmt.Sprintf("pna%d", os.Getpid()%10000))
	Expect(err).NotTo(HaveOccurred())
	// Registered first, so it runs last: after the control plane that
	// serves on the bridge has stopped.
	DeferCleanup(network.Close)
	ctx, controlPlane = framework.StartSuite(framework.ControlPlaneOptions{
		BindAddress:       network.Gateway4.Addr().String(),
		ControllerManager: &cluster.ControllerManagerOptions{Controllers: []string{"daemonset"}},
		Scheduler:         true,
	})
	GinkgoWriter.Printf("control plane and program logs in %s\n", controlPlane.Cluster.WorkDir)
	k8sClient = framework.NewAPI(ctx, controlPlane.Client)

	hist, err = framework.Record(ctx, k8sClient,
		&v1alpha1.PodNetworkList{}, &v1alpha1.PodNetworkConsumerList{}, &corev1.ConfigMapList{}, &corev1.PodList{})
	Expect(err).NotTo(HaveOccurred())
	apiServer, err := progs.APIServerHostPort(controlPlane)
	Expect(err).NotTo(HaveOccurred())
	createFixtures(apiServer)
	processes = append(processes, startKubelet())
	for i := range initialNodes {
		addNode(nodeName(i), fmt.Sprintf("10.244.%d.0/24", i))
	}
	// The operator runs the lifecycle controller and both adapters at their
	// default namespaces and names (NodeIPAM off: the fixtures give nodes
	// their podCIDRs).
	processes = append(processes, framework.StartOperator(ctx, controlPlane.Config, framework.WithoutNodeIPAM,
		func(o *controllers.Options) { o.Adapters.Enable(kubeProxy, flannel) }))
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

// startKubelet runs the kubelet stand-in of every node in its own manager,
// as kubelets run apart from the control plane.
func startKubelet() *framework.Process {
	k, p, err := progs.StartKubelet(ctx, controlPlane, network)
	Expect(err).NotTo(HaveOccurred())
	kubelet = k
	return p
}
