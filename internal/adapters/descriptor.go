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
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/types"

	"podnetwork.io/operator/internal/slimnode"
)

// Descriptor is everything the operator, the kubectl plugin and the chart
// know about one adapter. Each component package exports its one
// Descriptor as Adapter (kubeproxy.Adapter, flannel.Adapter), and the list
// in package registry alone decides which adapters exist: the operator's
// flags, its setup and cache, the adapters' ClusterRole, the kubectl
// plugin's flags and what the chart's values must hold are derived from it.
type Descriptor struct {
	// Name is the adapter's PodNetworkConsumer and the stem of everything
	// named after it: the flags --enable-<name>-adapter,
	// --<name>-configmap, --<name>-configmap-key and --<name>-daemonset,
	// the field manager podnetwork-operator/<name> (FieldManager), the
	// controller <name>-adapter and the event source
	// podnetwork-<name>-adapter.
	Name string
	// ValuesKey is the adapter's entry under adapters: in the chart's
	// values (enabled, configMap, configMapKey, daemonSet).
	ValuesKey string
	// Description is the spec.description of the PodNetworkConsumer the
	// operator creates when none exists.
	Description string

	// DefaultConfigMap is where the component's configuration lives unless
	// a flag says otherwise, DefaultDaemonSet the workload that runs the
	// component.
	DefaultConfigMap ConfigMapKey
	DefaultDaemonSet types.NamespacedName

	// Help are the usages of the operator's flags; KubectlHelp those of the
	// kubectl plugin's, which has no Enable flag.
	Help, KubectlHelp FlagHelp

	// Plan decides the content of the ConfigMap key for the current ranges
	// (the operator writes it, `kubectl podnetwork plan` predicts it).
	Plan func(current string, in Input) (Plan, error)
	// Covered reads which prefixes a configuration covers, for
	// `kubectl podnetwork check`.
	Covered func(text string) (Covered, error)
	// Proof, when set, returns the nodes that have not yet proved that the
	// component restarted there at or after since, beyond the DaemonSet's
	// rollout (flannel's NetworkUnavailable=False/FlannelIsUp). ProofWhat
	// says in words what each node must do, for the Ready message.
	Proof     func(nodes []*slimnode.Node, pods []corev1.Pod, since time.Time) []string
	ProofWhat string

	// RBAC are the rules the adapter needs in the namespaces of its
	// ConfigMap and DaemonSet beyond ComponentRBAC, which every adapter's
	// reconciler needs there. The chart binds the adapters' ClusterRole
	// (generated from ComponentRBAC and every RBAC by hack/chartgen) in
	// those namespaces only.
	RBAC []rbacv1.PolicyRule
}

// FlagHelp holds the usage strings of an adapter's flags.
type FlagHelp struct {
	// Enable is the usage of --enable-<name>-adapter.
	Enable string
	// ConfigMap, ConfigMapKey and DaemonSet are the usages of
	// --<name>-configmap, --<name>-configmap-key and --<name>-daemonset.
	ConfigMap, ConfigMapKey, DaemonSet string
}

// FieldManager is the field manager of every write of the adapter: its
// ConfigMap key, its DaemonSet's annotation and its PodNetworkConsumer
// status.
func (d *Descriptor) FieldManager() string { return "podnetwork-operator/" + d.Name }

// EnableFlag is the name of the operator's flag that runs the adapter.
func (d *Descriptor) EnableFlag() string { return "enable-" + d.Name + "-adapter" }

// ConfigMapFlag is the name of the flag giving the namespace/name of the
// component's ConfigMap (the operator's and the kubectl plugin's).
func (d *Descriptor) ConfigMapFlag() string { return d.Name + "-configmap" }

// ConfigMapKeyFlag is the name of the flag giving the key of that
// ConfigMap.
func (d *Descriptor) ConfigMapKeyFlag() string { return d.Name + "-configmap-key" }

// DaemonSetFlag is the name of the flag giving the namespace/name of the
// component's DaemonSet.
func (d *Descriptor) DaemonSetFlag() string { return d.Name + "-daemonset" }

// ConfigMapKey names one key of a ConfigMap.
type ConfigMapKey struct {
	types.NamespacedName
	Key string
}

func (k ConfigMapKey) String() string { return k.NamespacedName.String() + "[" + k.Key + "]" }

// ComponentRBAC are the rules every adapter's reconciler needs in the
// namespaces of its component: it reads and rewrites the ConfigMap, reads
// the DaemonSet's pods and patches the DaemonSet's pod template to roll
// it out.
func ComponentRBAC() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"daemonsets"}, Verbs: []string{"get", "list", "watch", "patch"}},
	}
}
