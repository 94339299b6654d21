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
	"k8s.io/apimachinery/pkg/types"

	"podnetwork.io/operator/internal/adapters"
)

// Name is the adapter's PodNetworkConsumer.
const Name = "flannel"

// Adapter describes the flannel adapter: the consumer "flannel", which owns
// Network, IPv6Network and EnableIPv6 in net-conf.json of the upstream
// manifest's ConfigMap kube-flannel/kube-flannel-cfg, rolls out DaemonSet
// kube-flannel/kube-flannel-ds and waits for each node's FlannelIsUp.
var Adapter = adapters.Descriptor{
	Name:        Name,
	ValuesKey:   "flannel",
	Description: "flannel adapter of podnetwork-operator: manages Network and IPv6Network in flannel's net-conf.json and restarts its DaemonSet.",
	DefaultConfigMap: adapters.ConfigMapKey{
		NamespacedName: types.NamespacedName{Namespace: "kube-flannel", Name: "kube-flannel-cfg"}, Key: DefaultConfigMapKey,
	},
	DefaultDaemonSet: types.NamespacedName{Namespace: "kube-flannel", Name: "kube-flannel-ds"},
	Help: adapters.FlagHelp{
		Enable:       `Manage flannel's Network/IPv6Network and take part in the handshake as the consumer "flannel".`,
		ConfigMap:    "Namespace/name of the ConfigMap holding flannel's net-conf.json.",
		ConfigMapKey: "Key of the flannel ConfigMap that holds net-conf.json.",
		DaemonSet:    "Namespace/name of the DaemonSet running flanneld.",
	},
	KubectlHelp: adapters.FlagHelp{
		ConfigMap:    "Namespace/name of flannel's ConfigMap, as given to the operator.",
		ConfigMapKey: "Key of flannel's ConfigMap holding net-conf.json.",
		DaemonSet:    "Namespace/name of flannel's DaemonSet.",
	},
	Plan:    Plan,
	Covered: Covered,
	// The DaemonSet rollout only shows the pods were replaced; the stamp
	// shows flanneld read the new net-conf.json and set up its rules on
	// that node.
	Proof:     NodesWithoutProof,
	ProofWhat: "report NetworkUnavailable=False (" + FlannelIsUpReason + ")",
}
