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

// Package flannel is the pure part of the flannel adapter: it reads flannel's
// net-conf.json (the key of the kube-flannel/kube-flannel-cfg ConfigMap),
// rewrites Network, IPv6Network and EnableIPv6, and only those, byte for
// byte, and checks flannel's own proof that it restarted on each node.
//
// flanneld reads net-conf.json once at start and takes one Network and one
// IPv6Network. It refuses to start on a node whose podCIDR lies outside
// Network and masquerades traffic to pods outside it, so Network must contain
// every desired range and every podCIDR in use, and a change needs a restart
// of the DaemonSet. Each flanneld stamps its node's NetworkUnavailable
// condition (False, reason FlannelIsUp) when it has started, which is the
// per-node proof the adapter waits for after a rollout. After turning
// EnableIPv6 on, the adapter rolls flannel out once more, once every node
// announced its IPv6 address, before it carries IPv6 (peers.go).
package flannel
