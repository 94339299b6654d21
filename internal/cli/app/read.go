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

package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/internal/cli"
)

// PageSize is how many objects one list request asks for: nodes, pods and
// the other lists come in pages (limit and continue), as kubectl reads
// them, so a cluster of many thousands of nodes is read in bounded
// responses.
const PageSize = 500

// AdapterTarget says where one of the operator's adapters finds the
// component it manages (the operator's --<name>-configmap,
// --<name>-configmap-key and --<name>-daemonset flags).
type AdapterTarget struct {
	// Adapter describes the adapter: its consumer name, planner and
	// coverage check.
	Adapter      adapters.Descriptor
	ConfigMap    client.ObjectKey
	ConfigMapKey string
	DaemonSet    client.ObjectKey
	Limits       adapters.Limits
}

// Read reads everything the plugin shows from the API server. An adapter
// counts only when its PodNetworkConsumer exists, that is when the
// operator runs it.
//
// What the user is not allowed to read (the API server's authorization
// refuses it) is left out and named in Cluster.Unreadable, so the commands
// show what they can; Read fails only when it could read nothing at all,
// or on any other error.
func Read(ctx context.Context, c client.Reader, nodeIPAM string, targets []AdapterTarget) (*cli.Cluster, error) {
	out := &cli.Cluster{NodeIPAM: nodeIPAM}
	// denied records a permission error and swallows it; other errors are
	// returned.
	var firstDenial error
	denied := func(err error, resource string, key client.ObjectKey) error {
		if !isAuthorizationDenial(err) {
			return err
		}
		if firstDenial == nil {
			firstDenial = err
		}
		out.Unreadable = append(out.Unreadable, cli.Unreadable{Resource: resource, Namespace: key.Namespace, Name: key.Name, Message: statusMessage(err)})
		return nil
	}
	all := client.ObjectKey{}

	pn := &v1alpha1.PodNetwork{}
	switch err := c.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); {
	case err == nil:
		out.PodNetwork = pn
	case apierrors.IsNotFound(err):
	case denied(err, cli.ResourcePodNetworks, all) != nil:
		return nil, fmt.Errorf("reading PodNetwork %s: %w", v1alpha1.PodNetworkName, err)
	}
	set := &v1alpha1.AutoscaledRangeSet{}
	switch err := c.Get(ctx, client.ObjectKey{Name: v1alpha1.AutoscaledRangeSetName}, set); {
	case err == nil:
		out.AutoscaledRangeSet = set
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		// No autoscaler ranges, or an operator too old to have any.
	case denied(err, cli.ResourceAutoscaledRangeSets, all) != nil:
		return nil, fmt.Errorf("reading AutoscaledRangeSet %s: %w", v1alpha1.AutoscaledRangeSetName, err)
	}
	var err error
	if out.Consumers, err = listAll(ctx, consumersPage(c), PageSize); denied(err, cli.ResourceConsumers, all) != nil {
		return nil, fmt.Errorf("listing PodNetworkConsumers: %w", err)
	}
	if out.Nodes, err = listAll(ctx, nodesPage(c), PageSize); denied(err, cli.ResourceNodes, all) != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	if out.ServiceCIDRs, err = listAll(ctx, serviceCIDRsPage(c), PageSize); denied(err, cli.ResourceServiceCIDRs, all) != nil {
		return nil, fmt.Errorf("listing ServiceCIDRs: %w", err)
	}
	if len(out.Unreadable) == 5 {
		// Nothing at all: no report to show.
		return nil, fmt.Errorf("reading the PodNetwork, its consumers and the nodes: %w", firstDenial)
	}
	for _, t := range targets {
		if !hasConsumer(out.Consumers, t.Adapter.Name) {
			continue
		}
		a, err := readAdapter(ctx, c, t, denied)
		if err != nil {
			return nil, err
		}
		out.Adapters = append(out.Adapters, a)
	}
	return out, nil
}

func hasConsumer(cs []v1alpha1.PodNetworkConsumer, name string) bool {
	for i := range cs {
		if cs[i].Name == name {
			return true
		}
	}
	return false
}

func readAdapter(ctx context.Context, c client.Reader, t AdapterTarget, denied func(err error, resource string, key client.ObjectKey) error) (cli.Adapter, error) {
	a := cli.Adapter{
		Consumer:  t.Adapter.Name,
		ConfigMap: fmt.Sprintf("%s[%s]", t.ConfigMap, t.ConfigMapKey),
		Limits:    t.Limits, Plan: t.Adapter.Plan, Covered: t.Adapter.Covered,
	}
	// unreadable records what of the adapter could not be read.
	unreadable := func(err error, resource string, key client.ObjectKey, what string) error {
		if err := denied(err, resource, key); err != nil {
			return err
		}
		if a.Unreadable == "" {
			a.Unreadable = what
		}
		return nil
	}
	cm := &corev1.ConfigMap{}
	switch err := c.Get(ctx, t.ConfigMap, cm); {
	case err == nil:
		a.Config, a.Found = cm.Data[t.ConfigMapKey]
	case apierrors.IsNotFound(err):
	case unreadable(err, "configmaps", t.ConfigMap, "ConfigMap "+t.ConfigMap.String()) != nil:
		return a, fmt.Errorf("reading ConfigMap %s: %w", t.ConfigMap, err)
	}
	ds := &appsv1.DaemonSet{}
	switch err := c.Get(ctx, t.DaemonSet, ds); {
	case err == nil:
	case apierrors.IsNotFound(err):
		return a, nil
	case unreadable(err, "daemonsets", t.DaemonSet, "DaemonSet "+t.DaemonSet.String()) != nil:
		return a, fmt.Errorf("reading DaemonSet %s: %w", t.DaemonSet, err)
	default:
		return a, nil
	}
	a.DaemonSet = ds
	selector, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return a, fmt.Errorf("reading the selector of DaemonSet %s: %w", t.DaemonSet, err)
	}
	pods, err := listAll(ctx, podsPage(c), PageSize, client.InNamespace(ds.Namespace), client.MatchingLabelsSelector{Selector: selector})
	if unreadable(err, "pods", client.ObjectKey{Namespace: ds.Namespace}, "the pods of DaemonSet "+t.DaemonSet.String()) != nil {
		return a, fmt.Errorf("listing the pods of DaemonSet %s: %w", t.DaemonSet, err)
	}
	a.Pods = rollout.OwnedPods(ds, pods)
	return a, nil
}

// page lists one page with opts and returns its items and the continue
// token of the next page ("" after the last).
type page[T any] func(ctx context.Context, opts ...client.ListOption) ([]T, string, error)

// listAll lists every object with pages of size, as kubectl and client-go's
// pager do: when the snapshot the pages come from expires on the way (410
// Gone), it lists everything again in one request rather than mix
// snapshots. A page of a nil list is empty, never nil.
func listAll[T any](ctx context.Context, list page[T], size int64, opts ...client.ListOption) ([]T, error) {
	var out []T
	next := ""
	for {
		items, cont, err := list(ctx, append(slices.Clone(opts), client.Limit(size), client.Continue(next))...)
		switch {
		case apierrors.IsResourceExpired(err) && next != "":
			items, _, err = list(ctx, opts...)
			return items, err
		case err != nil:
			return nil, err
		}
		out = append(out, items...)
		if cont == "" {
			return out, nil
		}
		next = cont
	}
}

func nodesPage(c client.Reader) page[corev1.Node] {
	return func(ctx context.Context, opts ...client.ListOption) ([]corev1.Node, string, error) {
		var l corev1.NodeList
		err := c.List(ctx, &l, opts...)
		return l.Items, l.Continue, err
	}
}

func podsPage(c client.Reader) page[corev1.Pod] {
	return func(ctx context.Context, opts ...client.ListOption) ([]corev1.Pod, string, error) {
		var l corev1.PodList
		err := c.List(ctx, &l, opts...)
		return l.Items, l.Continue, err
	}
}

func consumersPage(c client.Reader) page[v1alpha1.PodNetworkConsumer] {
	return func(ctx context.Context, opts ...client.ListOption) ([]v1alpha1.PodNetworkConsumer, string, error) {
		var l v1alpha1.PodNetworkConsumerList
		err := c.List(ctx, &l, opts...)
		return l.Items, l.Continue, err
	}
}

func serviceCIDRsPage(c client.Reader) page[networkingv1.ServiceCIDR] {
	return func(ctx context.Context, opts ...client.ListOption) ([]networkingv1.ServiceCIDR, string, error) {
		var l networkingv1.ServiceCIDRList
		err := c.List(ctx, &l, opts...)
		return l.Items, l.Continue, err
	}
}

// ReadOperator reads the operator's Deployments (labelled
// cli.OperatorLabel=cli.OperatorName, in namespace or, when it is empty,
// in every namespace) and the leader-election Lease of each one's
// namespace into out.Operator. What the user may not read is named in
// out.Unreadable, as Read does.
func ReadOperator(ctx context.Context, c client.Reader, out *cli.Cluster, namespace string) error {
	op := &cli.Operator{Namespace: namespace, Leases: map[string]*coordinationv1.Lease{}}
	out.Operator = op
	denied := func(err error, resource string, key client.ObjectKey) error {
		if !isAuthorizationDenial(err) {
			return err
		}
		out.Unreadable = append(out.Unreadable, cli.Unreadable{Resource: resource, Namespace: key.Namespace, Name: key.Name, Message: statusMessage(err)})
		return nil
	}
	opts := []client.ListOption{client.MatchingLabels{cli.OperatorLabel: cli.OperatorName}}
	if namespace != "" {
		opts = append(opts, client.InNamespace(namespace))
	}
	var err error
	if op.Deployments, err = listAll(ctx, deploymentsPage(c), PageSize, opts...); denied(err, cli.ResourceDeployments, client.ObjectKey{Namespace: namespace}) != nil {
		return fmt.Errorf("listing the operator's Deployments: %w", err)
	}
	slices.SortFunc(op.Deployments, func(a, b appsv1.Deployment) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	namespaces := []string{}
	for i := range op.Deployments {
		if !slices.Contains(namespaces, op.Deployments[i].Namespace) {
			namespaces = append(namespaces, op.Deployments[i].Namespace)
		}
	}
	for _, ns := range namespaces {
		key := client.ObjectKey{Namespace: ns, Name: cli.LeaseName}
		lease := &coordinationv1.Lease{}
		switch err := c.Get(ctx, key, lease); {
		case err == nil:
			op.Leases[ns] = lease
		case apierrors.IsNotFound(err):
			op.Leases[ns] = nil
		case denied(err, cli.ResourceLeases, key) != nil:
			return fmt.Errorf("reading Lease %s: %w", key, err)
		}
	}
	return nil
}

func deploymentsPage(c client.Reader) page[appsv1.Deployment] {
	return func(ctx context.Context, opts ...client.ListOption) ([]appsv1.Deployment, string, error) {
		var l appsv1.DeploymentList
		err := c.List(ctx, &l, opts...)
		return l.Items, l.Continue, err
	}
}
