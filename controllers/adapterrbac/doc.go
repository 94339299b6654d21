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

// Package adapterrbac holds only the RBAC markers of the kube-proxy and
// flannel adapters for the namespaced objects they manage (ConfigMaps,
// DaemonSets and their Pods). controller-gen renders them into their own
// ClusterRole (config/rbac/adapters), which the chart binds with a RoleBinding
// in each enabled adapter's namespace only: an operator without adapters,
// or with them, never gets ConfigMap or DaemonSet rights anywhere else.
//
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=daemonsets,verbs=get;list;watch;patch
package adapterrbac
