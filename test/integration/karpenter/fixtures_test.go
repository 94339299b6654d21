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

package karpenter_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// nodePoolYAML is the NodePool and its KWOKNodeClass. Its template
// carries kwok's label (cluster.KwokNodeLabel), so kwok plays the kubelets
// of the nodes Karpenter creates.
//
// Karpenter's own disruption is off, so that every eviction not the
// operator's comes from Karpenter terminating a Node the operator deleted:
// consolidateAfter: Never is what turns consolidation off in v1.15
// (ConsolidateAfter becomes nil, and both its Emptiness and its
// Consolidation methods, and the Consolidatable condition, then skip the
// NodePool as "consolidation disabled"; a long duration would only
// postpone it); the budget of 0 nodes also stops drift, Karpenter's other
// voluntary disruption (budgets govern Karpenter's own decisions, not the
// termination of a Node someone else deleted); expireAfter: Never keeps
// nodes from expiring.
const nodePoolYAML = `
apiVersion: karpenter.kwok.sh/v1alpha1
kind: KWOKNodeClass
metadata:
  name: default
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    metadata:
      labels:
        type: kwok
    spec:
      nodeClassRef:
        group: karpenter.kwok.sh
        kind: KWOKNodeClass
        name: default
      expireAfter: Never
      requirements:
        - key: kubernetes.io/os
          operator: In
          values: ["linux"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: Never
    budgets:
      - nodes: "0"
`

// createNodePool creates the KWOKNodeClass and the NodePool.
func createNodePool() {
	GinkgoHelper()
	for _, doc := range splitYAML(nodePoolYAML) {
		u := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal([]byte(doc), &u.Object)).To(Succeed())
		Expect(k8sClient.Create(ctx, u)).To(Succeed(), "%s %s", u.GetKind(), u.GetName())
	}
}

// splitYAML splits a multi-document YAML string, dropping empty documents.
func splitYAML(s string) []string {
	var docs []string
	for _, d := range strings.Split(s, "\n---\n") {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

// The workload: replicas of app=web, one per node (required anti-affinity
// on the hostname, so each node Karpenter provisions holds one), only on
// kwok's nodes, ended at once when evicted (no kubelet waits out a grace
// period), behind a PodDisruptionBudget that lets one go at a time.
const (
	workload = "web"
	replicas = 3
)

// createWorkload creates the Deployment and its PodDisruptionBudget in ns.
func createWorkload(ns string) {
	GinkgoHelper()
	labels := map[string]string{"app": workload}
	Expect(k8sClient.Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: workload},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: ptr.To(intstr.FromInt32(1)),
			Selector:       &metav1.LabelSelector{MatchLabels: labels},
		},
	})).To(Succeed())
	Expect(k8sClient.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: workload},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector:                  map[string]string{"type": "kwok"},
					TerminationGracePeriodSeconds: ptr.To(int64(0)),
					AutomountServiceAccountToken:  ptr.To(false),
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
							LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
							TopologyKey:   corev1.LabelHostname,
						}},
					}},
					Containers: []corev1.Container{{
						// kwok runs no container: the image is never pulled.
						Name: "web", Image: "pause",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("100m"),
							corev1.ResourceMemory: resource.MustParse("64Mi"),
						}},
					}},
				},
			},
		},
	})).To(Succeed())
}
