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

package netnode

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NodeOptions describe a node to register.
type NodeOptions struct {
	// PodCIDRs are the node's spec.podCIDRs (set at creation, as NodeIPAM
	// or kube-controller-manager would before the programs start).
	PodCIDRs []string
	// Labels are added to the usual kubernetes.io/os and hostname labels.
	Labels map[string]string
	// Interface names the node's interface on the bridge (default eth0).
	Interface string
	// IPv6Address registers the node's IPv6 InternalIP even while it has
	// no IPv6 podCIDR: a dual-stack node whose podCIDRs NodeIPAM assigns
	// after it registers.
	IPv6Address bool
}

// AddNode creates the node's namespace and registers the Node as a kubelet
// does: labels, the annotations every kubelet-registered Node carries
// (flanneld crashes on a Node without any), its InternalIP addresses (IPv6
// only when it has an IPv6 podCIDR or opts.IPv6Address, as a single-stack
// node otherwise) and Ready.
func (k *Kubelet) AddNode(ctx context.Context, name string, opts NodeOptions) (*Node, error) {
	node, err := k.Network.AddNode(name, opts.Interface)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	if k.nodes == nil {
		k.nodes = map[string]*Node{}
	}
	k.nodes[name] = node
	k.mu.Unlock()

	labels := map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/hostname": name}
	for key, v := range opts.Labels {
		labels[key] = v
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{
			"node.alpha.kubernetes.io/ttl":                           "0",
			"volumes.kubernetes.io/controller-managed-attach-detach": "true",
		}},
		Spec: corev1.NodeSpec{PodCIDRs: opts.PodCIDRs},
	}
	if len(opts.PodCIDRs) > 0 {
		n.Spec.PodCIDR = opts.PodCIDRs[0]
	}
	if err := k.Client.Create(ctx, n); err != nil {
		return nil, errors.Join(fmt.Errorf("registering node %s: %w", name, err), k.Network.RemoveNode(name))
	}
	addresses := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: node.IPv4.String()}}
	ipv6 := opts.IPv6Address
	for _, c := range opts.PodCIDRs {
		if p, err := netip.ParsePrefix(c); err == nil && p.Addr().Is6() {
			ipv6 = true
		}
	}
	if ipv6 {
		addresses = append(addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: node.IPv6.String()})
	}
	addresses = append(addresses, corev1.NodeAddress{Type: corev1.NodeHostName, Address: name})
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k.Client.Get(ctx, client.ObjectKeyFromObject(n), n); err != nil {
			return err
		}
		n.Status.Addresses = addresses
		// The scheduler fits pods against allocatable, "pods" included.
		n.Status.Capacity = corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110"),
		}
		n.Status.Allocatable = n.Status.Capacity
		n.Status.Conditions = []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "netnode kubelet stand-in is posting ready status", LastHeartbeatTime: now(), LastTransitionTime: now(),
		}}
		return k.Client.Status().Update(ctx, n)
	})
	if err != nil {
		return nil, fmt.Errorf("writing the status of node %s: %w", name, err)
	}
	return node, nil
}

// RemoveNode deletes the Node, stops the programs of its pods and deletes
// the pods (no pod garbage collector runs in tests), then removes the
// namespace.
func (k *Kubelet) RemoveNode(ctx context.Context, name string) error {
	if err := client.IgnoreNotFound(k.Client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})); err != nil {
		return fmt.Errorf("deleting node %s: %w", name, err)
	}
	k.mu.Lock()
	delete(k.nodes, name)
	var stop []*container
	for uid, c := range k.containers {
		if c.node.Name == name {
			stop = append(stop, c)
			delete(k.containers, uid)
		}
	}
	k.mu.Unlock()
	for _, c := range stop {
		c.stop()
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: c.key.Namespace, Name: c.key.Name}}
		if err := client.IgnoreNotFound(k.Client.Delete(ctx, pod, client.GracePeriodSeconds(0))); err != nil {
			return fmt.Errorf("deleting pod %s: %w", c.key, err)
		}
	}
	return k.Network.RemoveNode(name)
}
