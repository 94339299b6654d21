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

package flannel

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"podnetwork.io/operator/internal/slimnode"
)

// FlannelIsUpReason is the reason flanneld gives its node's
// NetworkUnavailable=False condition each time it starts, after it has
// written subnet.env and set up its rules.
const FlannelIsUpReason = "FlannelIsUp"

// NodesWithoutProof returns, sorted, the nodes running one of pods whose
// NetworkUnavailable condition does not yet say False/FlannelIsUp with a time
// at or after both since (when the configuration changed) and that pod's
// creation. flanneld stamps the condition only once it runs, so a stamp that
// late can only come from the flanneld of the current pod.
//
// Times are compared at the API's one-second resolution.
func NodesWithoutProof(nodes []*slimnode.Node, pods []corev1.Pod, since time.Time) []string {
	byName := make(map[string]*slimnode.Node, len(nodes))
	for _, n := range nodes {
		byName[n.Name] = n
	}
	var out []string
	for i := range pods {
		pod := &pods[i]
		n := byName[pod.Spec.NodeName]
		if n == nil {
			// Not scheduled yet, or the node is gone: the rollout check
			// covers unscheduled pods and a deleted node's pod goes away.
			continue
		}
		threshold := since.Truncate(time.Second)
		if created := pod.CreationTimestamp.Time; created.After(threshold) {
			threshold = created
		}
		if !upSince(n, threshold) {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return out
}

func upSince(n *slimnode.Node, t time.Time) bool {
	for _, c := range n.Status.Conditions {
		if c.Type != corev1.NodeNetworkUnavailable {
			continue
		}
		stamp := c.LastHeartbeatTime.Time
		if c.LastTransitionTime.After(stamp) {
			stamp = c.LastTransitionTime.Time
		}
		return c.Status == corev1.ConditionFalse && c.Reason == FlannelIsUpReason && !stamp.Before(t)
	}
	return false
}
