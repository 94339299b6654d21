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
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"podnetwork.io/operator/test/framework/netnode"
	progs "podnetwork.io/operator/test/framework/programs"
)

// What the real programs did, read from inside the node namespaces
// (test/framework/programs).

// subnetEnv returns what flanneld wrote to /run/flannel/subnet.env on a
// node, as key → value, empty while there is no file.
func subnetEnv(node string) func() map[string]string {
	return func() map[string]string { return progs.SubnetEnv(kubelet, node) }
}

// rules returns the output of a rule-listing command (iptables-save,
// ip6tables-save, nft list ruleset) in a node's namespace.
func rules(node string, command ...string) func() string {
	return func() string {
		out, err := progs.Rules(ctx, network, node, command...)
		Expect(err).NotTo(HaveOccurred())
		return out
	}
}

func iptablesSave(node string) func() string  { return rules(node, "iptables-save") }
func ip6tablesSave(node string) func() string { return rules(node, "ip6tables-save") }
func nftRuleset(node string) func() string    { return rules(node, "nft", "list", "ruleset") }

var (
	flannelMasquerades      = progs.FlannelMasquerades
	kubeProxyMasquerades    = progs.KubeProxyMasquerades
	kubeProxyNftMasquerades = progs.KubeProxyNftMasquerades
)

// nodeNames lists the nodes registered now.
func nodeNames() []string {
	var nodes corev1.NodeList
	Expect(k8sClient.List(ctx, &nodes)).To(Succeed())
	names := make([]string, len(nodes.Items))
	for i, n := range nodes.Items {
		names[i] = n.Name
	}
	return names
}

// programs returns the state of every program the kubelet stand-in runs,
// by pod.
func programs() map[string]netnode.ContainerState {
	out := map[string]netnode.ContainerState{}
	for _, n := range nodeNames() {
		for pod, s := range kubelet.Running(n) {
			out[pod] = s
		}
	}
	return out
}

// expectRunningWithoutRestart asserts every program runs and none has exited
// since before.
func expectRunningWithoutRestart(before map[string]netnode.ContainerState) {
	for pod, s := range programs() {
		Expect(s.Running).To(BeTrue(), "%s is not running: %s", pod, s.LastExit)
		if b, ok := before[pod]; ok {
			Expect(s.Restarts).To(Equal(b.Restarts), "%s exited: %s", pod, s.LastExit)
		}
	}
}
