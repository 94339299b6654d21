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

	appsv1 "k8s.io/api/apps/v1"
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
func Read(ctx context.Context, c client.Reader, nodeIPAM string, targets []AdapterTarget) (*cli.Cluster, error) {
	out := &cli.Cluster{NodeIPAM: nodeIPAM}
	pn := &v1alpha1.PodNetwork{}
	switch err := c.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); {
	case err == nil:
		out.PodNetwork = pn
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading PodNetwork %s: %w", v1alpha1.PodNetworkName, err)
	}
	set := &v1alpha1.AutoscaledRangeSet{}
	switch err := c.Get(ctx, client.ObjectKey{Name: v1alpha1.AutoscaledRangeSetName}, set); {
	case err == nil:
		out.AutoscaledRangeSet = set
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		// No autoscaler ranges, or an operator too old to have any.
	default:
		return nil, fmt.Errorf("reading AutoscaledRangeSet %s: %w", v1alpha1.AutoscaledRangeSetName, err)
	}
	var consumers v1alpha1.PodNetworkConsumerList
	if err := c.List(ctx, &consumers); err != nil {
		return nil, fmt.Errorf("listing PodNetworkConsumers: %w", err)
	}
	out.Consumers = consumers.Items
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	out.Nodes = nodes.Items
	var serviceCIDRs networkingv1.ServiceCIDRList
	if err := c.List(ctx, &serviceCIDRs); err != nil {
		return nil, fmt.Errorf("listing ServiceCIDRs: %w", err)
	}
	out.ServiceCIDRs = serviceCIDRs.Items
	for _, t := range targets {
		if !hasConsumer(out.Consumers, t.Adapter.Name) {
			continue
		}
		a, err := readAdapter(ctx, c, t)
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

func readAdapter(ctx context.Context, c client.Reader, t AdapterTarget) (cli.Adapter, error) {
	a := cli.Adapter{
		Consumer:  t.Adapter.Name,
		ConfigMap: fmt.Sprintf("%s[%s]", t.ConfigMap, t.ConfigMapKey),
		Limits:    t.Limits, Plan: t.Adapter.Plan, Covered: t.Adapter.Covered,
	}
	cm := &corev1.ConfigMap{}
	switch err := c.Get(ctx, t.ConfigMap, cm); {
	case err == nil:
		a.Config, a.Found = cm.Data[t.ConfigMapKey]
	case !apierrors.IsNotFound(err):
		return a, fmt.Errorf("reading ConfigMap %s: %w", t.ConfigMap, err)
	}
	ds := &appsv1.DaemonSet{}
	switch err := c.Get(ctx, t.DaemonSet, ds); {
	case apierrors.IsNotFound(err):
		return a, nil
	case err != nil:
		return a, fmt.Errorf("reading DaemonSet %s: %w", t.DaemonSet, err)
	}
	a.DaemonSet = ds
	selector, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return a, fmt.Errorf("reading the selector of DaemonSet %s: %w", t.DaemonSet, err)
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods, client.InNamespace(ds.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return a, fmt.Errorf("listing the pods of DaemonSet %s: %w", t.DaemonSet, err)
	}
	a.Pods = rollout.OwnedPods(ds, pods.Items)
	return a, nil
}
