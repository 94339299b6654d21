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
	"slices"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters/rollout"
)

// setRanges makes spec.ranges of PodNetwork "default" exactly ranges
// (name → cidr), creating the PodNetwork if needed.
func setRanges(ranges ...v1alpha1.PodCIDRRange) {
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pn := &v1alpha1.PodNetwork{}
		err := k8sClient.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn)
		if client.IgnoreNotFound(err) != nil {
			return err
		}
		pn.Name = v1alpha1.PodNetworkName
		pn.Spec.Ranges = ranges
		if err != nil {
			return k8sClient.Create(ctx, pn)
		}
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

func configData(namespace, name, key string) func() string {
	return func() string {
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm)).To(Succeed())
		return cm.Data[key]
	}
}

func setConfigData(namespace, name, key, value string) {
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm := &corev1.ConfigMap{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm); err != nil {
			return err
		}
		cm.Data[key] = value
		return k8sClient.Update(ctx, cm)
	})).To(Succeed())
}

func kubeProxyConfigText() string {
	return configData(kubeProxyNamespace, kubeProxyName, kubeProxyKey)()
}
func flannelConfigText() string { return configData(flannelNamespace, flannelConfigMap, flannelKey)() }

func getDaemonSet(namespace, name string) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, ds)).To(Succeed())
	return ds
}

func daemonSetPods(ds *appsv1.DaemonSet) []corev1.Pod {
	var pods corev1.PodList
	Expect(k8sClient.List(ctx, &pods, client.InNamespace(ds.Namespace), client.MatchingLabels(ds.Spec.Selector.MatchLabels))).To(Succeed())
	return rollout.OwnedPods(ds, pods.Items)
}

// expectRolledOut checks what an adapter's acknowledgement promises about
// its DaemonSet: every one of its pods (one per node) carries the template's
// configuration hash, was created at or after the recorded change time, and
// was created no later than the acknowledgement was written.
func expectRolledOut(namespace, name string, ackedAt *metav1.Time) {
	Expect(ackedAt).NotTo(BeNil(), "the time of the acknowledgement of %s/%s", namespace, name)
	ds := getDaemonSet(namespace, name)
	hash := rollout.TemplateHash(ds)
	Expect(hash).NotTo(BeEmpty())
	changedAt := rollout.ChangedAt(ds)
	pods := daemonSetPods(ds)
	var nodes corev1.NodeList
	Expect(k8sClient.List(ctx, &nodes)).To(Succeed())
	Expect(pods).To(HaveLen(len(nodes.Items)))
	var latest time.Time
	for _, p := range pods {
		Expect(p.Annotations).To(HaveKeyWithValue(rollout.ConfigHashAnnotation, hash), "pod %s", p.Name)
		Expect(p.CreationTimestamp.Time).NotTo(BeTemporally("<", changedAt), "pod %s", p.Name)
		latest = slices.MaxFunc([]time.Time{latest, p.CreationTimestamp.Time}, func(a, b time.Time) int { return a.Compare(b) })
	}
	Expect(ackedAt.Time).NotTo(BeTemporally("<", latest), "the acknowledgement was written before the last pod of %s/%s was created", namespace, name)
}
