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

package rollout_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"podnetwork.io/operator/internal/adapters/rollout"
)

var changedAt = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// daemonSet is a DaemonSet whose template carries hash, with the given
// generation/status.
func daemonSet(hash string, gen, observed int64, desired, updated, available int32) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy", UID: "ds-uid", Generation: gen}}
	if hash != "" {
		rollout.Start(ds, hash, changedAt)
	}
	ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: observed, DesiredNumberScheduled: desired, UpdatedNumberScheduled: updated, NumberAvailable: available}
	return ds
}

func pod(name, hash string, created time.Time) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: name, CreationTimestamp: metav1.NewTime(created),
		OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "kube-proxy", UID: "ds-uid", Controller: ptr.To(true)}},
	}, Spec: corev1.PodSpec{NodeName: "node-" + name}}
	if hash != "" {
		p.Annotations = map[string]string{rollout.ConfigHashAnnotation: hash}
	}
	return p
}

func TestCheck(t *testing.T) {
	after := changedAt.Add(time.Second)
	terminating := pod("c", "h1", after)
	terminating.DeletionTimestamp = ptr.To(metav1.NewTime(after))
	tests := []struct {
		name    string
		ds      *appsv1.DaemonSet
		pods    []corev1.Pod
		done    bool
		message string
	}{
		{"complete", daemonSet("h1", 2, 2, 2, 2, 2), []corev1.Pod{pod("a", "h1", after), pod("b", "h1", changedAt)}, true, ""},
		{"no pods, no nodes", daemonSet("h1", 2, 2, 0, 0, 0), nil, true, ""},
		{"template not annotated yet", daemonSet("h0", 2, 2, 2, 2, 2), nil, false, "does not carry the configuration hash"},
		{"generation not observed", daemonSet("h1", 3, 2, 2, 2, 2), nil, false, "generation 3 not observed"},
		{"pods not all updated", daemonSet("h1", 2, 2, 3, 1, 3), nil, false, "1 of 3 pods updated"},
		{"pods not all available", daemonSet("h1", 2, 2, 3, 3, 2), nil, false, "2 available"},
		{"a pod with an older hash", daemonSet("h1", 2, 2, 2, 2, 2), []corev1.Pod{pod("a", "h1", after), pod("b", "h0", after)}, false, "b on node-b"},
		{"a pod created before the change", daemonSet("h1", 2, 2, 2, 2, 2), []corev1.Pod{pod("a", "h1", changedAt.Add(-time.Second))}, false, "a on node-a"},
		{"a terminating pod", daemonSet("h1", 2, 2, 2, 2, 2), []corev1.Pod{pod("a", "h1", after), terminating}, false, "c on node-c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rollout.Check(tt.ds, tt.pods, "h1", rollout.ChangedAt(tt.ds))
			if got.Done != tt.done || !strings.Contains(got.Message, tt.message) {
				t.Errorf("Check = %+v, want done %v with a message containing %q", got, tt.done, tt.message)
			}
		})
	}
}

func TestSettled(t *testing.T) {
	if !rollout.Settled(daemonSet("", 1, 1, 3, 3, 3)) {
		t.Error("a DaemonSet with everything updated and available is settled")
	}
	if rollout.Settled(daemonSet("", 2, 1, 3, 3, 3)) {
		t.Error("an unobserved generation is a rollout in progress")
	}
}

func TestChangedAtRoundTrip(t *testing.T) {
	ds := daemonSet("h1", 1, 1, 0, 0, 0)
	if got := rollout.ChangedAt(ds); !got.Equal(changedAt) {
		t.Errorf("ChangedAt = %v, want %v", got, changedAt)
	}
	if got := rollout.ChangedAt(&appsv1.DaemonSet{}); !got.IsZero() {
		t.Errorf("ChangedAt without annotation = %v, want zero", got)
	}
}

func TestTrustedChangedAt(t *testing.T) {
	with := func(v string) *appsv1.DaemonSet {
		ds := daemonSet("h1", 1, 1, 0, 0, 0)
		ds.Annotations[rollout.ConfigChangedAtAnnotation] = v
		return ds
	}
	lastChange := changedAt.Add(time.Minute)
	tests := []struct {
		name    string
		ds      *appsv1.DaemonSet
		want    time.Time
		problem string
	}{
		{"as recorded", daemonSet("h1", 1, 1, 0, 0, 0), changedAt, ""},
		{"none", &appsv1.DaemonSet{}, time.Time{}, ""},
		{"garbage", with("yesterday"), time.Time{}, "not an RFC 3339 time"},
		{"in the future", with("2999-01-01T00:00:00Z"), time.Time{}, "later than the last change of the ConfigMap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problem := rollout.TrustedChangedAt(tt.ds, lastChange)
			if !got.Equal(tt.want) || !strings.Contains(problem, tt.problem) || (tt.problem == "") != (problem == "") {
				t.Errorf("TrustedChangedAt = %v, %q; want %v, %q", got, problem, tt.want, tt.problem)
			}
		})
	}
}

func TestLastChange(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		CreationTimestamp: metav1.NewTime(changedAt.Add(-time.Hour)),
		ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "kubeadm", Time: ptr.To(metav1.NewTime(changedAt.Add(-time.Minute)))},
			{Manager: "podnetwork-operator/kube-proxy", Time: ptr.To(metav1.NewTime(changedAt))},
			{Manager: "no-time"},
		},
	}}
	if got := rollout.LastChange(cm); !got.Equal(changedAt) {
		t.Errorf("LastChange = %v, want %v", got, changedAt)
	}
	cm.ManagedFields = nil
	if got := rollout.LastChange(cm); !got.Equal(changedAt.Add(-time.Hour)) {
		t.Errorf("LastChange without managedFields = %v, want the creation time", got)
	}
}

func TestOwnedPods(t *testing.T) {
	ds := daemonSet("", 1, 1, 0, 0, 0)
	mine := pod("a", "", changedAt)
	other := pod("b", "", changedAt)
	other.OwnerReferences[0].UID = types.UID("other")
	if got := rollout.OwnedPods(ds, []corev1.Pod{mine, other}); len(got) != 1 || got[0].Name != "a" {
		t.Errorf("OwnedPods = %v", got)
	}
}

func TestList(t *testing.T) {
	if got := rollout.List([]string{"c", "a", "b"}); got != "a, b, c" {
		t.Errorf("List = %q", got)
	}
	if got := rollout.List([]string{"g", "f", "e", "d", "c", "b", "a"}); got != "a, b, c, d, e and 2 more" {
		t.Errorf("List = %q", got)
	}
}

func TestDescribeNamesPodsNotReady(t *testing.T) {
	ds := daemonSet("h", 2, 2, 3, 3, 2)
	ready := func(name, node string, status corev1.ConditionStatus) corev1.Pod {
		p := pod(name, "h", changedAt)
		p.Spec.NodeName = node
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
		return p
	}
	pods := []corev1.Pod{ready("a", "node-1", corev1.ConditionTrue), ready("b", "node-2", corev1.ConditionFalse), pod("c", "h", changedAt)}
	got := rollout.Describe(ds, pods)
	want := "DaemonSet kube-system/kube-proxy has 3 of 3 pods updated and 2 available; not ready: b on node-2, c on node-c"
	if got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
