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

package cli

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/internal/declared"
	"podnetwork.io/operator/internal/lifecycle"
	"podnetwork.io/operator/internal/slimnode"
)

// Cluster is everything the plugin reads, at one moment.
type Cluster struct {
	// PodNetwork is PodNetwork "default", nil when there is none.
	PodNetwork *v1alpha1.PodNetwork
	// AutoscaledRangeSet is AutoscaledRangeSet "default", the ranges the
	// autoscaler added; nil when there is none.
	AutoscaledRangeSet *v1alpha1.AutoscaledRangeSet
	// Consumers are every PodNetworkConsumer.
	Consumers []v1alpha1.PodNetworkConsumer
	// Nodes are every Node.
	Nodes []corev1.Node
	// ServiceCIDRs are every ServiceCIDR.
	ServiceCIDRs []networkingv1.ServiceCIDR
	// Adapters are the operator's adapters whose PodNetworkConsumer exists,
	// with the configuration they manage.
	Adapters []Adapter
	// NodeIPAM names NodeIPAM's PodNetworkConsumer.
	NodeIPAM string
	// Operator is the operator's Deployment and leader-election Lease; nil
	// when they were not read (plan does not read them).
	Operator *Operator
	// Unreadable is what the plugin was not allowed to read (an RBAC
	// denial): the reports leave out what depends on it and say so. Empty
	// when everything was read.
	Unreadable []Unreadable
}

// Unreadable is a kind of object, or one object, the plugin was not
// allowed to read.
type Unreadable struct {
	// Resource is the API resource: one of the Resource* constants, or
	// "configmaps", "daemonsets", "pods" for an adapter's objects.
	Resource string `json:"resource"`
	// Namespace and Name name the one object; a list has no name, and no
	// namespace unless it was of one namespace.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// Message is the API server's reason.
	Message string `json:"message"`
}

// String names what could not be read: "nodes", "configmaps
// kube-system/kube-proxy", "pods in namespace kube-system".
func (u Unreadable) String() string {
	switch {
	case u.Name != "" && u.Namespace != "":
		return u.Resource + " " + u.Namespace + "/" + u.Name
	case u.Name != "":
		return u.Resource + " " + u.Name
	case u.Namespace != "":
		return u.Resource + " in namespace " + u.Namespace
	}
	return u.Resource
}

// The resources every command reads, by the name Unreadable carries.
const (
	ResourcePodNetworks         = "podnetworks"
	ResourceAutoscaledRangeSets = "autoscaledrangesets"
	ResourceConsumers           = "podnetworkconsumers"
	ResourceNodes               = "nodes"
	ResourceServiceCIDRs        = "servicecidrs"
)

// Readable reports whether the plugin was allowed to read the resource (any
// object of it, for the adapters' resources).
func (c *Cluster) Readable(resource string) bool { return readable(c.Unreadable, resource) }

// unreadable lists what could not be read, for the reports; nil when
// everything was read.
func (c *Cluster) unreadable() []Unreadable {
	if len(c.Unreadable) == 0 {
		return nil
	}
	return append([]Unreadable(nil), c.Unreadable...)
}

// Adapter is one of the operator's adapters (kube-proxy, flannel) and the
// component configuration it manages, as read from the cluster.
type Adapter struct {
	// Consumer is the adapter's PodNetworkConsumer name.
	Consumer string
	// ConfigMap names the ConfigMap key, "namespace/name[key]".
	ConfigMap string
	// Config is the content of that key; Found is false when the ConfigMap
	// or the key is missing.
	Config string
	Found  bool
	// DaemonSet is the component's DaemonSet, nil when it is missing, and
	// Pods its pods.
	DaemonSet *appsv1.DaemonSet
	Pods      []corev1.Pod
	// Unreadable says which of the ConfigMap, the DaemonSet and its pods
	// the plugin was not allowed to read ("" when it read them all); check
	// then skips the adapter.
	Unreadable string
	// Limits are the adapter's shortest covering prefixes.
	Limits adapters.Limits
	// Plan is the adapter's pure planner (kubeproxy.Plan, flannel.Plan).
	Plan func(current string, in adapters.Input) (adapters.Plan, error)
	// Covered reads what the configuration covers (kubeproxy.Covered,
	// flannel.Covered).
	Covered func(text string) (adapters.Covered, error)
}

// Ranges returns the declared ranges of c now: Declared of spec.ranges.
func (c *Cluster) Ranges() []v1alpha1.PodCIDRRange {
	if c.PodNetwork == nil {
		return nil
	}
	return c.Declared(c.PodNetwork.Spec.Ranges).Ranges
}

// Declared returns the ranges the lifecycle tracks for the given
// spec.ranges: declared.Union of them and the autoscaler's ranges, as the
// operator computes it. Every reader of the range list in this package
// (status, check, and plan for the current and the proposed spec) goes
// through it.
func (c *Cluster) Declared(spec []v1alpha1.PodCIDRRange) declared.Result {
	return declared.Union(spec, c.AutoscaledRangeSet)
}

// consumer returns the PodNetworkConsumer of the given name, or nil.
func (c *Cluster) consumer(name string) *v1alpha1.PodNetworkConsumer {
	for i := range c.Consumers {
		if c.Consumers[i].Name == name {
			return &c.Consumers[i]
		}
	}
	return nil
}

// lifecycleInput is what the operator's lifecycle controller would compute
// from, with d as the declared ranges.
func (c *Cluster) lifecycleInput(pn *v1alpha1.PodNetwork, d declared.Result, consumers []v1alpha1.PodNetworkConsumer, now time.Time, stallAfter time.Duration) lifecycle.Input {
	return lifecycle.InputFrom(lifecycle.Objects{
		PodNetwork:   pn,
		Declared:     d,
		Consumers:    consumers,
		Nodes:        slimNodes(c.Nodes),
		ServiceCIDRs: c.ServiceCIDRs,
	}, now, stallAfter)
}

// adapterInput is what the adapter would decide from for pn.
func (c *Cluster) adapterInput(a *Adapter, pn *v1alpha1.PodNetwork, previous []v1alpha1.ConsumerRangeStatus) adapters.Input {
	in := adapters.InputFrom(pn, previous, slimNodes(c.Nodes), c.ServiceCIDRs, a.Limits)
	in.RunningOn = rollout.NodesOf(a.Pods)
	return in
}

// slimNodes returns nodes as the operator's cache holds them, so the
// plugin computes from what the controllers see.
func slimNodes(nodes []corev1.Node) []*slimnode.Node {
	out := make([]*slimnode.Node, len(nodes))
	for i := range nodes {
		out[i] = slimnode.From(&nodes[i])
	}
	return out
}
