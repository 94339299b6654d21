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

package dualstack_test

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	flannelcfg "podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/slimnode"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/netnode"
	"podnetwork.io/operator/test/framework/programs"
	"podnetwork.io/operator/test/framework/refconsumer"
)

const (
	// notCarried starts flannel's acknowledgement of a range of a family
	// it does not carry yet.
	notCarried = "Accepted, not carried yet:"
	// flannelPublicIPv6 is the annotation with which flanneld announces
	// its node's IPv6 address (with EnableIPv6).
	flannelPublicIPv6 = slimnode.FlannelPublicIPv6Annotation
)

// karpenter is the label Karpenter puts on its nodes; with the handover
// Delete, drain assist deletes only such nodes.
var karpenter = map[string]string{v1alpha1.KarpenterNodePoolLabel: "default"}

// hold keeps the late consumer from acknowledging the IPv6 range's Pending
// phase until released.
type hold struct{ released atomic.Bool }

func newHold() *hold { return &hold{} }

func (h *hold) holds(rs v1alpha1.RangeStatus) bool {
	return rs.Name == "v6" && rs.Phase == v1alpha1.RangePhasePending && !h.released.Load()
}

func (h *hold) release() { h.released.Store(true) }

// startLateConsumer runs a required plugin (the reference consumer) that
// acknowledges every phase at once, except the IPv6 range's Pending
// phase while lateHold holds it.
func startLateConsumer() *framework.Process {
	GinkgoHelper()
	mgr, err := framework.NewManager(controlPlane.Config)
	Expect(err).NotTo(HaveOccurred())
	c := &refconsumer.Consumer{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Name: late, Required: true, Hold: lateHold.holds}
	Expect(c.Register(ctx)).To(Succeed())
	Expect(c.SetupWithManager(mgr)).To(Succeed())
	return framework.StartManager(ctx, "the late consumer", mgr)
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

// ackOf returns "<phase>/<result>" of a consumer's acknowledgement of a
// range, "" when there is none.
func ackOf(consumerName, rangeName string) func() string {
	return func() string {
		if a := k8sClient.Ack(consumerName, rangeName); a != nil {
			return string(a.Phase) + "/" + string(a.Result)
		}
		return ""
	}
}

// machines are the nodes the test brought up (namespace, kubelet stand-in,
// Node) and has not taken down: the replacement provider watches them.
var machines = struct {
	sync.Mutex
	names []string
}{}

// addNode brings up a machine: a network namespace whose kubelet registers
// the Node, labelled as Karpenter's, without podCIDRs (NodeIPAM assigns
// them), with an IPv6 InternalIP when dualStack.
func addNode(name string, dualStack bool) {
	GinkgoHelper()
	_, err := kubelet.AddNode(ctx, name, netnode.NodeOptions{Labels: karpenter, IPv6Address: dualStack})
	Expect(err).NotTo(HaveOccurred())
	machines.Lock()
	machines.names = append(machines.names, name)
	machines.Unlock()
}

// startProvider plays Karpenter for the rest of the suite: when a Node of
// one of the machines is deleted, it terminates the machine (its programs
// stop, its pods go, its namespace is removed) and brings up a new one
// with a new name and dual-stack addresses, as a NodePool whose nodes have
// IPv6 addresses would. It returns the names of the nodes it replaced.
func startProvider() func() []string {
	pctx, cancel := context.WithCancel(ctx)
	var mu sync.Mutex
	var replaced []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer GinkgoRecover()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-pctx.Done():
				return
			case <-tick.C:
			}
			machines.Lock()
			names := append([]string(nil), machines.names...)
			machines.Unlock()
			for _, name := range names {
				err := k8sClient.Get(pctx, client.ObjectKey{Name: name}, &corev1.Node{})
				if !apierrors.IsNotFound(err) {
					continue
				}
				Expect(kubelet.RemoveNode(pctx, name)).To(Succeed())
				machines.Lock()
				machines.names = removeName(machines.names, name)
				machines.Unlock()
				mu.Lock()
				replaced = append(replaced, name)
				next := fmt.Sprintf("node-r%d", len(replaced))
				mu.Unlock()
				addNode(next, true)
			}
		}
	}()
	DeferCleanup(func() { cancel(); <-done })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), replaced...)
	}
}

func removeName(names []string, name string) []string {
	out := names[:0]
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// nodeNames lists the nodes registered now.
func nodeNames() []string {
	var out []string
	for _, n := range k8sClient.Nodes() {
		out = append(out, n.Name)
	}
	return out
}

// podCIDRs returns a node's spec.podCIDRs.
func podCIDRs(name string) func() []string {
	return func() []string {
		n := &corev1.Node{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
			return nil
		}
		return n.Spec.PodCIDRs
	}
}

// inRanges matches podCIDRs that are exactly one block of each prefix, in
// that order.
func inRanges(prefixes ...string) OmegaMatcher {
	var elems []any
	for _, p := range prefixes {
		outer := netip.MustParsePrefix(p)
		elems = append(elems, WithTransform(func(s string) bool {
			q, err := netip.ParsePrefix(s)
			return err == nil && outer.Bits() <= q.Bits() && outer.Contains(q.Addr())
		}, BeTrue()))
	}
	return HaveExactElements(elems...)
}

// subnetFor is what flanneld writes as its subnet for a node's podCIDR:
// the block's first address, with the block's length.
func subnetFor(podCIDR string) string {
	p := netip.MustParsePrefix(podCIDR)
	return netip.PrefixFrom(p.Addr().Next(), p.Bits()).String()
}

func subnetEnv(node string) func() map[string]string {
	return func() map[string]string { return programs.SubnetEnv(kubelet, node) }
}

func rules(node string, command ...string) func() string {
	return func() string {
		out, err := programs.Rules(ctx, network, node, command...)
		Expect(err).NotTo(HaveOccurred())
		return out
	}
}

func iptablesSave(node string) func() string  { return rules(node, "iptables-save") }
func ip6tablesSave(node string) func() string { return rules(node, "ip6tables-save") }

func configData(namespace, name, key string) string {
	cm := &corev1.ConfigMap{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm)).To(Succeed())
	return cm.Data[key]
}

func kubeProxyConfigText() string {
	return configData(programs.KubeProxyNamespace, programs.KubeProxyName, programs.KubeProxyKey)
}

func flannelConfigText() string {
	return configData(programs.FlannelNamespace, programs.FlannelConfigMap, programs.FlannelKey)
}

// flannelConf parses the net-conf.json flannel's ConfigMap holds now.
func flannelConf() *flannelcfg.NetConf {
	c, err := flannelcfg.Parse(flannelConfigText())
	Expect(err).NotTo(HaveOccurred())
	return c
}

// flannelDaemonSet reads flannel's DaemonSet.
func flannelDaemonSet() *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: programs.FlannelNamespace, Name: programs.FlannelDaemonSet}, ds)).To(Succeed())
	return ds
}

// programsRunning returns the pods whose program is not running, with why.
func programsNotRunning() []string {
	var out []string
	for _, n := range nodeNames() {
		for pod, s := range kubelet.Running(n) {
			if !s.Running {
				out = append(out, pod+": "+s.LastExit)
			}
		}
	}
	return out
}

// missingRoutes returns, for every two nodes, the route flanneld should
// have programmed on the first to the second's block of each family (via
// flannel.1 and flannel-v6.1) and has not.
func missingRoutes() []string {
	var missing []string
	nodes := k8sClient.Nodes()
	for _, n := range nodes {
		table := map[string]string{"IPv4": rules(n.Name, "ip", "route")(), "IPv6": rules(n.Name, "ip", "-6", "route")()}
		for _, m := range nodes {
			if m.Name == n.Name {
				continue
			}
			for _, c := range m.Spec.PodCIDRs {
				family, dev := "IPv4", "flannel.1"
				if netip.MustParsePrefix(c).Addr().Is6() {
					family, dev = "IPv6", "flannel-v6.1"
				}
				if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c) + ` via \S+ dev ` + regexp.QuoteMeta(dev) + ` `).MatchString(table[family]) {
					missing = append(missing, fmt.Sprintf("%s has no %s route to %s's block %s", n.Name, family, m.Name, c))
				}
			}
		}
	}
	return missing
}

// flannelPods lists the pods of flannel's DaemonSet.
func flannelPods() []corev1.Pod {
	GinkgoHelper()
	ds := flannelDaemonSet()
	var pods corev1.PodList
	Expect(k8sClient.List(ctx, &pods, client.InNamespace(ds.Namespace), client.MatchingLabels(ds.Spec.Selector.MatchLabels))).To(Succeed())
	return pods.Items
}
