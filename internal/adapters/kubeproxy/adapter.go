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

package kubeproxy

import (
	"k8s.io/apimachinery/pkg/types"

	"podnetwork.io/operator/internal/adapters"
)

// Name is the adapter's PodNetworkConsumer.
const Name = "kube-proxy"

// Adapter describes the kube-proxy adapter: the consumer "kube-proxy", which
// owns clusterCIDR in kubeadm's ConfigMap kube-system/kube-proxy and rolls
// out DaemonSet kube-system/kube-proxy.
var Adapter = adapters.Descriptor{
	Name:        Name,
	ValuesKey:   "kubeProxy",
	Description: "kube-proxy adapter of podnetwork-operator: manages clusterCIDR in kube-proxy's ConfigMap and restarts its DaemonSet.",
	DefaultConfigMap: adapters.ConfigMapKey{
		NamespacedName: types.NamespacedName{Namespace: "kube-system", Name: "kube-proxy"}, Key: DefaultConfigMapKey,
	},
	DefaultDaemonSet: types.NamespacedName{Namespace: "kube-system", Name: "kube-proxy"},
	Help: adapters.FlagHelp{
		Enable:       `Manage kube-proxy's clusterCIDR and take part in the handshake as the consumer "kube-proxy".`,
		ConfigMap:    "Namespace/name of the ConfigMap holding kube-proxy's configuration file.",
		ConfigMapKey: "Key of the kube-proxy ConfigMap that holds the KubeProxyConfiguration.",
		DaemonSet:    "Namespace/name of the DaemonSet running kube-proxy.",
	},
	KubectlHelp: adapters.FlagHelp{
		ConfigMap:    "Namespace/name of kube-proxy's ConfigMap, as given to the operator.",
		ConfigMapKey: "Key of kube-proxy's ConfigMap holding its configuration.",
		DaemonSet:    "Namespace/name of kube-proxy's DaemonSet.",
	},
	Plan:    Plan,
	Covered: Covered,
}
