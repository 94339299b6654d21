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

package drain

import (
	"maps"
	"regexp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/slimnode"
)

// doNotDisruptAnnotations are the annotations that keep drain assist away
// from a node or a pod, when "true".
var doNotDisruptAnnotations = []string{v1alpha1.DoNotDisruptAnnotation, v1alpha1.KarpenterDoNotDisruptAnnotation}

// doNotDisrupt returns the first do-not-disrupt annotation set to "true".
func doNotDisrupt(annotations map[string]string) string {
	for _, k := range doNotDisruptAnnotations {
		if annotations[k] == "true" {
			return k
		}
	}
	return ""
}

// NodeFrom converts a node of the operator's node cache: its podCIDRs,
// read the way Kubernetes reads them (cidr.ObservePrefixes), the marker
// label and whether it is being deleted. It copies out what it reads.
func NodeFrom(n *slimnode.Node) Node {
	obs := n.ObservedPodCIDRs()
	_, marked := n.Labels[v1alpha1.DrainAssistNodeLabel]
	return Node{Name: n.Name, PodCIDRs: obs.Prefixes, Unreadable: len(obs.Unreadable) > 0,
		Marked: marked, Deleting: !n.DeletionTimestamp.IsZero(), Labels: maps.Clone(n.Labels)}
}

// FullNodeFrom converts a node read whole from the API server, with its
// pods when podsRead.
func FullNodeFrom(n *corev1.Node, pods []corev1.Pod, podsRead bool) Node {
	obs := cidr.ObservePrefixes(n.Spec.PodCIDRs)
	_, marked := n.Labels[v1alpha1.DrainAssistNodeLabel]
	d := &Detail{
		CordonedByUs:  n.Annotations[v1alpha1.DrainAssistCordonedAnnotation] == "true",
		Unschedulable: n.Spec.Unschedulable,
		DoNotDisrupt:  doNotDisrupt(n.Annotations),
		KarpenterManaged: n.Labels[v1alpha1.KarpenterNodePoolLabel] != "" ||
			slices.Contains(n.Finalizers, v1alpha1.KarpenterTerminationFinalizer),
		PodsRead: podsRead,
	}
	if t, err := time.Parse(time.RFC3339, n.Annotations[v1alpha1.DrainAssistStartedAnnotation]); err == nil {
		d.StartedAt = t
	}
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		if c.Type == v1alpha1.PodCIDRReplacementNeededCondition && c.Status == corev1.ConditionTrue {
			d.ReplacementRequested, d.HandedOverAt = true, c.LastTransitionTime.Time
		}
	}
	if !n.DeletionTimestamp.IsZero() {
		d.HandedOverAt = n.DeletionTimestamp.Time
	}
	for i := range pods {
		d.Pods = append(d.Pods, PodFrom(&pods[i]))
	}
	return Node{Name: n.Name, PodCIDRs: obs.Prefixes, Unreadable: len(obs.Unreadable) > 0,
		Marked: marked, Deleting: !n.DeletionTimestamp.IsZero(), Labels: n.Labels, Detail: d}
}

// PodFrom converts a pod.
func PodFrom(p *corev1.Pod) Pod {
	owner := metav1.GetControllerOf(p)
	_, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]
	return Pod{
		Namespace: p.Namespace, Name: p.Name,
		DaemonSet:    owner != nil && owner.Kind == "DaemonSet" && (owner.APIVersion == "apps/v1" || owner.APIVersion == "extensions/v1beta1"),
		Mirror:       mirror,
		DoNotDisrupt: doNotDisrupt(p.Annotations),
		Terminating:  !p.DeletionTimestamp.IsZero(),
		Finished:     p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed,
	}
}

// budgetCause reads the PodDisruptionBudget's name out of the cause the
// Eviction API gives when it refuses an eviction for one (kube-apiserver's
// pkg/registry/core/pod/storage/eviction.go: "The disruption budget <name>
// needs ...", "... is still being processed by the server", ...).
var budgetCause = regexp.MustCompile(`^The disruption budget (\S+) `)

// BudgetFromCauses returns the name of the PodDisruptionBudget the causes
// of a refused eviction name, "" when none does.
func BudgetFromCauses(causes []metav1.StatusCause) string {
	for _, c := range causes {
		if c.Type != policyv1.DisruptionBudgetCause {
			continue
		}
		if m := budgetCause.FindStringSubmatch(c.Message); m != nil {
			return m[1]
		}
	}
	return ""
}

// HasBudgetCause reports whether the causes of a refused eviction say a
// PodDisruptionBudget refused it.
func HasBudgetCause(causes []metav1.StatusCause) bool {
	return slices.ContainsFunc(causes, func(c metav1.StatusCause) bool { return c.Type == policyv1.DisruptionBudgetCause })
}

// BlockingBudget returns the name of the first PodDisruptionBudget of the
// pod's namespace whose selector selects the pod and that allows no
// disruption, or of the first one that selects it at all; "" when none
// does. It names the budget when the Eviction API's answer does not.
func BlockingBudget(pod *corev1.Pod, pdbs []policyv1.PodDisruptionBudget) string {
	first := ""
	for i := range pdbs {
		pdb := &pdbs[i]
		if pdb.Namespace != pod.Namespace || pdb.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		// In policy/v1 an empty selector selects every pod of the namespace.
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if pdb.Status.DisruptionsAllowed <= 0 {
			return pdb.Name
		}
		if first == "" {
			first = pdb.Name
		}
	}
	return first
}
