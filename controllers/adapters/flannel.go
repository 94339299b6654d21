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
	"time"

	corev1 "k8s.io/api/core/v1"

	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/slimnode"
)

// flannelProofWhat is what the flannel adapter waits for on each node, in
// words.
const flannelProofWhat = "report NetworkUnavailable=False (" + flannel.FlannelIsUpReason + ")"

// flannelProof returns the nodes whose flanneld has not yet stamped
// NetworkUnavailable=False (FlannelIsUp) since the configuration changed and
// since its pod was created. The DaemonSet rollout only shows the pods were
// replaced; the stamp shows flanneld read the new net-conf.json and set up
// its rules on that node.
func flannelProof(nodes []*slimnode.Node, pods []corev1.Pod, since time.Time) []string {
	return flannel.NodesWithoutProof(nodes, pods, since)
}
