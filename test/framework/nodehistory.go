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

package framework

import (
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// MostNodesAtOnce replays the recorded node changes in order and returns
// the most nodes that satisfied pred at the same time, and their names
// then: how the drain assist suites check maxUnavailable over the whole
// history rather than at the moments they happened to look.
func MostNodesAtOnce(events []Event, pred func(*corev1.Node) bool) (int, []string) {
	now := map[string]bool{}
	most, names := 0, []string(nil)
	for _, ev := range events {
		n, ok := ev.Object.(*corev1.Node)
		if !ok {
			continue
		}
		if ev.Deleted || !pred(n) {
			delete(now, n.Name)
			continue
		}
		now[n.Name] = true
		if len(now) > most {
			most, names = len(now), nil
			for name := range now {
				names = append(names, name)
			}
		}
	}
	return most, names
}

// StartedByDrainAssist reports whether drain assist works on the node: it
// carries drain assist's label, or is cordoned with its annotation (a node
// being deleted still counts: drain assist holds its place in
// maxUnavailable until it is gone).
func StartedByDrainAssist(n *corev1.Node) bool {
	_, labelled := n.Labels[v1alpha1.DrainAssistNodeLabel]
	return labelled || (n.Spec.Unschedulable && n.Annotations[v1alpha1.DrainAssistCordonedAnnotation] == "true")
}
