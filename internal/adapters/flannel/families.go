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
	"fmt"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/internal/cidr"
)

// disabledFamilies returns, per IP family flannel cannot take new ranges of,
// the message that rejects them.
//
// EnableIPv4 and EnableIPv6 apply to every node at once, and flanneld exits
// on a node whose podCIDRs lack an enabled family ("IPv6 is enabled but the
// lease has no IPv6"; the host-gw backend panics). A node's podCIDRs never
// change, so turning a family on is only safe when every node that runs
// flannel already holds a podCIDR of it. The adapter never turns EnableIPv4
// on, and turns EnableIPv6 on only when that holds; the check is re-run on
// every reconcile, so a rejected range is accepted once it becomes safe.
func disabledFamilies(conf *NetConf, in adapters.Input) map[string]string {
	off := map[string]string{}
	if !conf.IPv4Enabled() {
		off[cidr.IPv4] = "flannel's net-conf.json sets EnableIPv4 to false, and the adapter never turns it on: " +
			"flanneld would exit on every node without an IPv4 podCIDR. Remove the range; flannel runs IPv4 only on a " +
			"cluster whose every node has an IPv4 podCIDR and whose net-conf.json enables it (set by the admin)"
	}
	if !conf.IPv6Enabled() {
		if lacking := nodesLacking(in, cidr.IPv6); len(lacking) > 0 {
			off[cidr.IPv6] = fmt.Sprintf("flannel cannot be made dual-stack in place: EnableIPv6 applies to every node, "+
				"flanneld exits on a node without an IPv6 podCIDR, and %d nodes running flannel have none (%s); "+
				"a node's podCIDRs never change. Remove the range, or replace those nodes with nodes that hold an IPv6 podCIDR: "+
				"the adapter accepts the range once every node running flannel has one",
				len(lacking), rollout.List(lacking))
		}
	}
	return off
}

// nodesLacking returns the nodes running the component that hold a podCIDR
// but none of family. A node without any podCIDR yet is left out: flanneld
// waits for one there, and NodeIPAM gives it every family with an Active
// range at once.
func nodesLacking(in adapters.Input, family string) []string {
	has := map[string]map[string]bool{}
	for _, np := range in.NodePodCIDRs {
		if has[np.Name] == nil {
			has[np.Name] = map[string]bool{}
		}
		has[np.Name][cidr.Family(np.Prefix)] = true
	}
	var out []string
	for _, node := range in.RunningOn {
		if fams := has[node]; len(fams) > 0 && !fams[family] {
			out = append(out, node)
		}
	}
	return out
}
