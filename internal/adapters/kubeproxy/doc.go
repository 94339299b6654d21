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

// Package kubeproxy is the pure part of the kube-proxy adapter: it parses
// kube-proxy's configuration file (the config.conf key of kubeadm's
// kube-system/kube-proxy ConfigMap) with the real KubeProxyConfiguration type
// and rewrites its clusterCIDR field, and only that field, byte for byte.
//
// kube-proxy uses clusterCIDR only in detectLocalMode ClusterCIDR (the Linux
// default when the mode is empty) to tell pod traffic from other traffic. It
// takes at most one CIDR per family, splits the value on "," without trimming
// spaces, and reads the file only at start (its file watch does not fire for
// ConfigMap volume updates), so the adapter writes one covering prefix per
// family, IPv4 first, and restarts the DaemonSet. The other detect-local
// modes do not depend on the pod ranges at all.
package kubeproxy
