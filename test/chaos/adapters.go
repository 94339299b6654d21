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

package chaos

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/slimnode"
)

// The components the adapters configure, at the operator's default
// namespaces and names (kubeadm's kube-proxy, flannel's upstream manifest).
const (
	kubeProxyNamespace = "kube-system"
	kubeProxyName      = "kube-proxy"
	kubeProxyKey       = "config.conf"

	flannelNamespace = "kube-flannel"
	flannelConfigMap = "kube-flannel-cfg"
	flannelDaemonSet = "kube-flannel-ds"
	flannelKey       = "net-conf.json"
)

// adapterConsumers are the PodNetworkConsumers the adapters register, both
// required.
var adapterConsumers = []string{kubeproxy.Name, flannel.Name}

// adapterFlags turn both adapters on, at their default objects.
var adapterFlags = []string{"--enable-" + kubeproxy.Name + "-adapter=true", "--enable-" + flannel.Name + "-adapter=true"}

// kubeProxyConfig is kubeadm's KubeProxyConfiguration, cut to the fields
// that matter to the adapter: clusterCIDR (which it rewrites) and the
// detect-local mode that makes kube-proxy depend on it.
const kubeProxyConfig = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
bindAddress: 0.0.0.0
clientConnection:
  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf
clusterCIDR: 10.244.0.0/16
detectLocalMode: ""
mode: ""
`

// flannelNetConf is flannel's upstream net-conf.json for a run with IPv4
// ranges (a dual-stack run's IPv6 ranges are accepted, not carried: the
// adapter turns EnableIPv6 on only under familyPolicy AllOrWait once every
// node holds an IPv6 podCIDR, docs/protocol.md); an IPv6-only run needs
// EnableIPv4 off, which only an admin sets.
func flannelNetConf(families Families) string {
	if families == IPv6 {
		return `{
  "EnableIPv4": false,
  "EnableIPv6": true,
  "IPv6Network": "fd00:ffff::/48",
  "Backend": {
    "Type": "vxlan"
  }
}
`
	}
	return `{
  "Network": "10.244.0.0/16",
  "EnableNFTables": false,
  "Backend": {
    "Type": "vxlan"
  }
}
`
}

// createAdapterFixtures creates what the adapters configure: flannel's
// namespace, both components' ServiceAccounts, ConfigMaps and DaemonSets.
// The DaemonSets select the nodes labelled adapterLabel; their pods are
// kwok's.
func createAdapterFixtures(ctx context.Context, c client.Client, families Families) error {
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: flannelNamespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: kubeProxyNamespace, Name: kubeProxyName}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: flannelNamespace, Name: "flannel"}},
		&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: kubeProxyNamespace, Name: kubeProxyName, Labels: map[string]string{"app": "kube-proxy"}},
			Data:       map[string]string{kubeProxyKey: kubeProxyConfig},
		},
		&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: flannelNamespace, Name: flannelConfigMap, Labels: map[string]string{"app": "flannel"}},
			Data:       map[string]string{flannelKey: flannelNetConf(families), "cni-conf.json": `{"name": "cbr0", "cniVersion": "0.3.1"}`},
		},
		daemonSet(kubeProxyNamespace, kubeProxyName, kubeProxyName, "k8s-app", "kube-proxy"),
		daemonSet(flannelNamespace, flannelDaemonSet, "flannel", "app", "flannel"),
	}
	for _, o := range objs {
		if err := retry(ctx, func() error { return client.IgnoreAlreadyExists(c.Create(ctx, o)) }); err != nil {
			return fmt.Errorf("creating %T %s: %w", o, client.ObjectKeyFromObject(o), err)
		}
	}
	return nil
}

// daemonSet is shaped like kubeadm's kube-proxy and upstream flannel
// DaemonSets (rolling update, host network, tolerate everything), on the
// nodes labelled adapterLabel only, with half the pods replaced at once.
func daemonSet(namespace, name, serviceAccount, labelKey, labelValue string) *appsv1.DaemonSet {
	labels := map[string]string{labelKey: labelValue}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type:          appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromString("50%"))},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					HostNetwork:                   true,
					ServiceAccountName:            serviceAccount,
					AutomountServiceAccountToken:  ptr.To(false),
					NodeSelector:                  map[string]string{adapterLabel: "true"},
					Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					TerminationGracePeriodSeconds: ptr.To[int64](1),
					Containers:                    []corev1.Container{{Name: name, Image: "chaos/" + name + ":test"}},
				},
			},
		},
	}
}

// deletePodsOn deletes, at once, the adapters' pods bound to node.
func deletePodsOn(ctx context.Context, c client.Client, node string) error {
	var errs []error
	for _, ns := range []string{kubeProxyNamespace, flannelNamespace} {
		err := c.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(ns), client.MatchingFields{"spec.nodeName": node}, client.GracePeriodSeconds(0))
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting the pods on %s in %s: %w", node, ns, err))
		}
	}
	return errors.Join(errs...)
}

// adapterKubelet plays, for the adapters' pods, what kwok does not:
//
//   - flanneld's start: when a flannel pod runs, it annotates the pod's
//     node with flanneld's public-IP annotations of both families (the
//     flannel adapter carries IPv6 only once every node announces its
//     address and flanneld restarted after that, docs/consumers/flannel.md),
//     then stamps the node with NetworkUnavailable=False, reason
//     FlannelIsUp, as flanneld does at every start (the flannel adapter
//     accepts a range only once every node of a rollout shows that stamp
//     from after the change);
//   - the kubelet's readiness: a running pod that kube-controller-manager
//     marked not ready while its node missed heartbeats (an apiserver or
//     etcd restart) is Ready again once the node is back, as its kubelet
//     would report (kwok only readies Pending pods);
//   - the pod garbage collector: a pod bound to a node that no longer
//     exists is deleted at once (podgc waits 40s), or it would hold every
//     rollout.
//
// It polls every half second until ctx ends; what fails (the apiserver
// restarting) is tried again at the next poll.
func adapterKubelet(ctx context.Context, c client.Client) {
	stamped := map[types.UID]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
		var nodes corev1.NodeList
		if err := c.List(ctx, &nodes, client.HasLabels{adapterLabel}); err != nil {
			continue
		}
		exists := map[string]bool{}
		for _, n := range nodes.Items {
			exists[n.Name] = true
		}
		live := map[types.UID]bool{}
		for _, ns := range []string{kubeProxyNamespace, flannelNamespace} {
			var pods corev1.PodList
			if err := c.List(ctx, &pods, client.InNamespace(ns)); err != nil {
				continue
			}
			for i := range pods.Items {
				p := &pods.Items[i]
				live[p.UID] = true
				switch {
				case p.Spec.NodeName == "":
					continue // not scheduled yet
				case !exists[p.Spec.NodeName]:
					_ = client.IgnoreNotFound(c.Delete(ctx, p, client.GracePeriodSeconds(0)))
					continue
				case p.DeletionTimestamp != nil:
					continue // kwok deletes it
				case p.Status.Phase == corev1.PodRunning && !podReady(p):
					if !patchStatus(ctx, c, p, fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":"True","lastTransitionTime":%q}]}}`,
						corev1.PodReady, time.Now().UTC().Format(time.RFC3339))) {
						continue
					}
				case !podReady(p):
					continue
				}
				if ns != flannelNamespace || stamped[p.UID] {
					continue
				}
				now := time.Now().UTC().Format(time.RFC3339)
				node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: p.Spec.NodeName}}
				announce := fmt.Sprintf(`{"metadata":{"annotations":{%q:"192.0.2.1",%q:"2001:db8::1"}}}`,
					slimnode.FlannelPublicIPAnnotation, slimnode.FlannelPublicIPv6Annotation)
				if err := c.Patch(ctx, node, client.RawPatch(types.MergePatchType, []byte(announce))); client.IgnoreNotFound(err) != nil {
					continue
				}
				if patchStatus(ctx, c, node, fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":"False","reason":%q,"message":"Flannel is running on this node (chaos stand-in)","lastTransitionTime":%q,"lastHeartbeatTime":%q}]}}`,
					corev1.NodeNetworkUnavailable, flannel.FlannelIsUpReason, now, now)) {
					stamped[p.UID] = true
				}
			}
		}
		for uid := range stamped {
			if !live[uid] {
				delete(stamped, uid)
			}
		}
	}
}

// patchStatus applies a strategic merge patch to obj's status, which
// merges conditions by type; true when it landed or obj is gone.
func patchStatus(ctx context.Context, c client.Client, obj client.Object, patch string) bool {
	err := c.Status().Patch(ctx, obj, client.RawPatch(types.StrategicMergePatchType, []byte(patch)))
	log := logf.Log.WithName("adapter-kubelet").WithValues("object", fmt.Sprintf("%T %s", obj, client.ObjectKeyFromObject(obj)))
	if err != nil {
		log.Info("patching the status failed", "error", err.Error())
	} else {
		log.Info("patched the status", "patch", patch)
	}
	return err == nil || apierrors.IsNotFound(err)
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
