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

package adapters

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/watches"
	adaptercore "podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/internal/slimnode"
)

// scope is everything one reconcile of an adapter reads. A nil
// PodNetwork, ConfigMap or DaemonSet means it does not exist.
type scope struct {
	self  *podnetworkv1alpha1.PodNetworkConsumer
	pn    *podnetworkv1alpha1.PodNetwork
	cm    *corev1.ConfigMap
	ds    *appsv1.DaemonSet
	pods  []corev1.Pod // the DaemonSet's pods
	nodes []*slimnode.Node
	input adaptercore.Input
}

// read fills an scope. Missing objects are not errors: the outcome
// reports them.
func (r *Reconciler) read(ctx context.Context, self *podnetworkv1alpha1.PodNetworkConsumer) (*scope, error) {
	s := &scope{self: self}
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := getOptional(ctx, r.Client, client.ObjectKey{Name: podnetworkv1alpha1.PodNetworkName}, pn, &s.pn); err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{}
	if err := getOptional(ctx, r.Client, r.ConfigMap.NamespacedName, cm, &s.cm); err != nil {
		return nil, err
	}
	ds := &appsv1.DaemonSet{}
	if err := getOptional(ctx, r.Client, r.DaemonSet, ds, &s.ds); err != nil {
		return nil, err
	}
	if s.ds != nil {
		selector, err := metav1.LabelSelectorAsSelector(s.ds.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("reading the selector of DaemonSet %s: %w", r.DaemonSet, err)
		}
		var pods corev1.PodList
		if err := r.Client.List(ctx, &pods, client.InNamespace(s.ds.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
			return nil, fmt.Errorf("listing the pods of DaemonSet %s: %w", r.DaemonSet, err)
		}
		s.pods = rollout.OwnedPods(s.ds, pods.Items)
	}
	nodes, err := watches.CachedNodes(ctx, r.Cache)
	if err != nil {
		return nil, err
	}
	s.nodes = nodes
	var serviceCIDRs networkingv1.ServiceCIDRList
	if err := r.Client.List(ctx, &serviceCIDRs); err != nil {
		return nil, fmt.Errorf("listing ServiceCIDRs: %w", err)
	}
	s.input = adaptercore.InputFrom(s.pn, self.Status.Ranges, s.nodes, serviceCIDRs.Items, r.Limits)
	s.input.RunningOn = rollout.NodesOf(s.pods)
	s.input.NodeIPAM = r.NodeIPAM
	if s.ds != nil {
		s.input.Template = s.ds.Spec.Template.Annotations
		if s.input.Template == nil {
			s.input.Template = map[string]string{} // known to hold no mark
		}
	}
	return s, nil
}

// getOptional gets key into obj and points *found at it, or leaves *found nil
// when the object does not exist.
func getOptional[T client.Object](ctx context.Context, c client.Client, key client.ObjectKey, obj T, found *T) error {
	if err := c.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("reading %T %s: %w", obj, key, err)
	}
	*found = obj
	return nil
}
