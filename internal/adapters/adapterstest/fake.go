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

package adapterstest

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/types"

	"podnetwork.io/operator/internal/adapters"
)

// FakeAdapter is a third adapter, for the tests that show every list of
// adapters (the operator's flags, the kubectl plugin's, the RBAC rules, the
// chart's values) comes from the registry's descriptors: appended to
// registry.All, it must appear everywhere the built-in ones do. Its
// configuration never depends on the ranges, and it needs one rule beyond
// adapters.ComponentRBAC.
func FakeAdapter() adapters.Descriptor {
	return adapters.Descriptor{
		Name:        "example-cni",
		ValuesKey:   "exampleCNI",
		Description: "example-cni adapter, for tests.",
		DefaultConfigMap: adapters.ConfigMapKey{
			NamespacedName: types.NamespacedName{Namespace: "example-system", Name: "example-config"}, Key: "config.json",
		},
		DefaultDaemonSet: types.NamespacedName{Namespace: "example-system", Name: "example-agent"},
		Help: adapters.FlagHelp{
			Enable:       "Manage example-cni's pod network.",
			ConfigMap:    "Namespace/name of example-cni's ConfigMap.",
			ConfigMapKey: "Key of example-cni's ConfigMap.",
			DaemonSet:    "Namespace/name of example-cni's DaemonSet.",
		},
		KubectlHelp: adapters.FlagHelp{
			ConfigMap:    "Namespace/name of example-cni's ConfigMap, as given to the operator.",
			ConfigMapKey: "Key of example-cni's ConfigMap.",
			DaemonSet:    "Namespace/name of example-cni's DaemonSet.",
		},
		Plan: func(current string, _ adapters.Input) (adapters.Plan, error) {
			return adapters.Plan{RangeIndependent: "example-cni reads no pod CIDR", Config: current}, nil
		},
		Covered: func(string) (adapters.Covered, error) {
			return adapters.Covered{RangeIndependent: "example-cni reads no pod CIDR"}, nil
		},
		RBAC: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "watch", "list"}}},
	}
}
