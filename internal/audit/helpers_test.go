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

package audit

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/slimnode"
)

// t0 is when the test's oldest range became Active; policies are written
// at t0 plus some hours, and ranges become Active at such times.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(hours int) time.Time { return t0.Add(time.Duration(hours) * time.Hour) }

// rangeAt is a tracked range in phase since hours after t0.
func rangeAt(name, cidr string, phase v1alpha1.RangePhase, hours int) v1alpha1.RangeStatus {
	return v1alpha1.RangeStatus{Name: name, CIDR: cidr, Phase: phase, PhaseSince: &metav1.Time{Time: at(hours)}}
}

func active(name, cidr string, hours int) v1alpha1.RangeStatus {
	return rangeAt(name, cidr, v1alpha1.RangePhaseActive, hours)
}

func podNetwork(ranges ...v1alpha1.RangeStatus) *v1alpha1.PodNetwork {
	pn := &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName}}
	pn.Status.Ranges = ranges
	return pn
}

func node(name string, podCIDRs ...string) *slimnode.Node {
	return &slimnode.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: slimnode.Spec{PodCIDRs: podCIDRs}}
}

// PodWrapper builds a Pod for the tables.
type PodWrapper struct{ corev1.Pod }

// pod is a Running pod in namespace "default" scheduled on nodeName with
// ips in status.podIPs.
func pod(name, nodeName string, ips ...string) *PodWrapper {
	w := &PodWrapper{corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{NodeName: nodeName}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}}
	for _, ip := range ips {
		w.Status.PodIPs = append(w.Status.PodIPs, corev1.PodIP{IP: ip})
	}
	return w
}

func (w *PodWrapper) hostNetwork() *PodWrapper { w.Spec.HostNetwork = true; return w }

func (w *PodWrapper) phase(p corev1.PodPhase) *PodWrapper { w.Status.Phase = p; return w }

// legacyPodIP moves the pod's first IP to status.podIP alone.
func (w *PodWrapper) legacyPodIP() *PodWrapper {
	w.Status.PodIP, w.Status.PodIPs = w.Status.PodIPs[0].IP, nil
	return w
}

func (w *PodWrapper) obj() corev1.Pod { return *w.DeepCopy() }

// PolicyWrapper builds a NetworkPolicy for the tables.
type PolicyWrapper struct{ networkingv1.NetworkPolicy }

// policy is a NetworkPolicy in namespace "default" created hours after t0
// and not written since.
func policy(name string, hours int) *PolicyWrapper {
	return &PolicyWrapper{networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name),
		CreationTimestamp: metav1.Time{Time: at(hours)}}}}
}

// ipBlock is a peer allowing cidr but except.
func ipBlock(cidr string, except ...string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: cidr, Except: except}}
}

func (w *PolicyWrapper) ingress(peers ...networkingv1.NetworkPolicyPeer) *PolicyWrapper {
	w.Spec.Ingress = append(w.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{From: peers})
	return w
}

func (w *PolicyWrapper) egress(peers ...networkingv1.NetworkPolicyPeer) *PolicyWrapper {
	w.Spec.Egress = append(w.Spec.Egress, networkingv1.NetworkPolicyEgressRule{To: peers})
	return w
}

// writtenAt records a write by a field manager hours after t0.
func (w *PolicyWrapper) writtenAt(hours int) *PolicyWrapper {
	w.ManagedFields = append(w.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate,
		Time: &metav1.Time{Time: at(hours)}})
	return w
}

func (w *PolicyWrapper) annotate(key, value string) *PolicyWrapper {
	metav1.SetMetaDataAnnotation(&w.ObjectMeta, key, value)
	return w
}

func (w *PolicyWrapper) obj() networkingv1.NetworkPolicy { return *w.DeepCopy() }

// found is a finding as the tables compare it: kind, object and message.
type found struct {
	Kind    Kind
	Object  string
	Related string
	Message string
}

func summarize(fs []Finding) []found {
	var out []found
	for _, f := range fs {
		g := found{Kind: f.Kind, Object: f.Regarding.Kind + " " + f.Regarding.Namespace + "/" + f.Regarding.Name, Message: f.Message}
		if f.Related != nil {
			g.Related = f.Related.Kind + " " + f.Related.Name
		}
		out = append(out, g)
	}
	return out
}
