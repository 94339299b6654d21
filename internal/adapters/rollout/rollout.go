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

package rollout

import (
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// ConfigHashAnnotation, on the DaemonSet's pod template, holds the hash
	// of the configuration the pods must run. Changing it is what restarts
	// the pods; each pod carries the value it was created with.
	ConfigHashAnnotation = "podnetwork.io/config-hash"

	// ConfigChangedAtAnnotation, on the DaemonSet, records (RFC 3339, by the
	// API server's clock) when the configuration the rollout carries last
	// changed. Every pod must have been created at or after it.
	ConfigChangedAtAnnotation = "podnetwork.io/config-changed-at"
)

// maxListed bounds how many pods or nodes a message names.
const maxListed = 5

// Settled reports whether the DaemonSet controller has finished rolling out
// the DaemonSet's current template: it has observed the current generation,
// and as many pods are updated and available as are desired. Otherwise a
// rollout, the adapter's or someone else's, is in progress.
func Settled(ds *appsv1.DaemonSet) bool {
	s := ds.Status
	return s.ObservedGeneration == ds.Generation &&
		s.UpdatedNumberScheduled == s.DesiredNumberScheduled &&
		s.NumberAvailable == s.DesiredNumberScheduled
}

// Describe says in words where the DaemonSet's rollout stands, naming the
// pods that are not ready (and their nodes): a program that cannot start on
// a node stalls every rollout, and the admin must know where to look.
func Describe(ds *appsv1.DaemonSet, pods []corev1.Pod) string {
	s := ds.Status
	if s.ObservedGeneration != ds.Generation {
		return fmt.Sprintf("DaemonSet %s/%s generation %d not observed yet by the DaemonSet controller", ds.Namespace, ds.Name, ds.Generation)
	}
	out := fmt.Sprintf("DaemonSet %s/%s has %d of %d pods updated and %d available",
		ds.Namespace, ds.Name, s.UpdatedNumberScheduled, s.DesiredNumberScheduled, s.NumberAvailable)
	if notReady := NotReady(pods); len(notReady) > 0 {
		out += fmt.Sprintf("; not ready: %s", List(notReady))
	}
	return out
}

// NotReady labels the pods that are not terminating and not Ready ("pod on
// node").
func NotReady(pods []corev1.Pod) []string {
	var out []string
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp == nil && !podReady(p) {
			out = append(out, podLabel(p))
		}
	}
	return out
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// TemplateHash returns the configuration hash in the DaemonSet's pod
// template.
func TemplateHash(ds *appsv1.DaemonSet) string {
	return ds.Spec.Template.Annotations[ConfigHashAnnotation]
}

// ChangedAt returns the change time recorded on the DaemonSet, or the zero
// time when there is none (then only the hashes are checked).
func ChangedAt(ds *appsv1.DaemonSet) time.Time {
	t, err := time.Parse(time.RFC3339, ds.Annotations[ConfigChangedAtAnnotation])
	if err != nil {
		return time.Time{}
	}
	return t
}

// TrustedChangedAt returns ChangedAt, or the zero time (only the hashes are
// checked) with a sentence saying why, when the annotation cannot be what
// Start recorded: a value that does not parse, or one later than
// lastChange, when the ConfigMap last changed (LastChange), since Start
// records that time and the ConfigMap only gets newer. Such an annotation
// was edited by someone else; trusted, a time in the future would hold every
// rollout forever.
func TrustedChangedAt(ds *appsv1.DaemonSet, lastChange time.Time) (time.Time, string) {
	v, ok := ds.Annotations[ConfigChangedAtAnnotation]
	if !ok {
		return time.Time{}, ""
	}
	t, err := time.Parse(time.RFC3339, v)
	switch {
	case err != nil:
		return time.Time{}, fmt.Sprintf("annotation %s=%q of DaemonSet %s/%s is not an RFC 3339 time; it is ignored",
			ConfigChangedAtAnnotation, v, ds.Namespace, ds.Name)
	case t.After(lastChange):
		return time.Time{}, fmt.Sprintf("annotation %s=%q of DaemonSet %s/%s is later than the last change of the ConfigMap (%s); it is ignored",
			ConfigChangedAtAnnotation, v, ds.Namespace, ds.Name, lastChange.UTC().Format(time.RFC3339))
	}
	return t, ""
}

// Start sets the pod-template hash and the change time on ds, which the
// caller then writes; the DaemonSet controller replaces every pod.
func Start(ds *appsv1.DaemonSet, hash string, changedAt time.Time) {
	if ds.Spec.Template.Annotations == nil {
		ds.Spec.Template.Annotations = map[string]string{}
	}
	ds.Spec.Template.Annotations[ConfigHashAnnotation] = hash
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[ConfigChangedAtAnnotation] = changedAt.UTC().Format(time.RFC3339)
}

// LastChange returns when obj (a ConfigMap) last changed by the API server's
// clock: the latest time in its managedFields, which the server stamps on
// every write by every field manager. Without managedFields it falls back to
// the creation time. Using the server's clock keeps the comparison with pod
// creation times free of clock skew between the operator and the server.
func LastChange(obj metav1.Object) time.Time {
	last := obj.GetCreationTimestamp().Time
	for _, mf := range obj.GetManagedFields() {
		if mf.Time != nil && mf.Time.After(last) {
			last = mf.Time.Time
		}
	}
	return last
}

// OwnedPods returns the pods the DaemonSet controls.
func OwnedPods(ds *appsv1.DaemonSet, pods []corev1.Pod) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == ds.UID {
			out = append(out, p)
		}
	}
	return out
}

// Progress is how far a configuration has reached the pods.
type Progress struct {
	// Done is true when every pod runs the configuration.
	Done bool
	// Message says what the rollout waits for, when not Done.
	Message string
}

// Check reports whether every pod of ds runs the configuration with the
// given hash: the pod template carries the hash, the rollout has settled
// (observedGeneration equals generation; updated, available and desired pod
// counts are equal), and every pod, including any still terminating, carries
// the hash and was created at or after changedAt (TrustedChangedAt).
func Check(ds *appsv1.DaemonSet, pods []corev1.Pod, hash string, changedAt time.Time) Progress {
	if TemplateHash(ds) != hash {
		return Progress{Message: fmt.Sprintf("the pod template of DaemonSet %s/%s does not carry the configuration hash yet", ds.Namespace, ds.Name)}
	}
	if !Settled(ds) {
		return Progress{Message: "rolling out: " + Describe(ds, pods)}
	}
	var stale []string
	for i := range pods {
		p := &pods[i]
		switch {
		case p.DeletionTimestamp != nil,
			p.Annotations[ConfigHashAnnotation] != hash,
			p.CreationTimestamp.Time.Before(changedAt):
			stale = append(stale, podLabel(p))
		}
	}
	if len(stale) > 0 {
		return Progress{Message: fmt.Sprintf("rolling out: %d pods of DaemonSet %s/%s still run an older configuration or are terminating: %s",
			len(stale), ds.Namespace, ds.Name, List(stale))}
	}
	return Progress{Done: true}
}

func podLabel(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Name + " on " + p.Spec.NodeName
	}
	return p.Name
}

// List joins the first names (sorted) and counts the rest.
func List(names []string) string {
	names = append([]string(nil), names...)
	sort.Strings(names)
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}

// NodesOf returns, sorted and without repeats, the nodes the pods are bound
// to. Pods not scheduled yet run nowhere.
func NodesOf(pods []corev1.Pod) []string {
	seen := map[string]bool{}
	var out []string
	for i := range pods {
		n := pods[i].Spec.NodeName
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
