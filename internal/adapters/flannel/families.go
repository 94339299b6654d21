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
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/internal/cidr"
)

// EnableIPv4 and EnableIPv6 apply to every node at once, and flanneld exits
// on a node whose podCIDRs lack an enabled family ("IPv6 is enabled but the
// lease has no IPv6"; the host-gw backend panics). A node's podCIDRs never
// change. So the adapter never turns EnableIPv4 on, and turns EnableIPv6 on
// only once no node can run flanneld without an IPv6 podCIDR: not the
// nodes there are, and not the nodes that may still join (ipv6Gate).
//
// Until then an IPv6 range is accepted, not rejected: a rejection would
// keep the range Pending, NodeIPAM hands out blocks only from Active
// ranges, and the nodes that would let flannel turn IPv6 on could never
// get one. The acknowledgement says that flannel accepted the range but
// does not carry it yet (docs/protocol.md); pods get no IPv6 address from
// flannel's CNI plugin meanwhile.

// disabledFamilies returns, per IP family flannel cannot take new ranges of,
// the message that rejects them: IPv4 while net-conf.json disables it.
func disabledFamilies(conf *NetConf) map[string]string {
	off := map[string]string{}
	if !conf.IPv4Enabled() {
		off[cidr.IPv4] = "flannel's net-conf.json sets EnableIPv4 to false, and the adapter never turns it on: " +
			"flanneld would exit on every node without an IPv4 podCIDR. Remove the range; flannel runs IPv4 only on a " +
			"cluster whose every node has an IPv4 podCIDR and whose net-conf.json enables it (set by the admin)"
	}
	return off
}

// ipv6Gate decides whether EnableIPv6 may be turned on now. It may only
// when both hold:
//
//  1. every node holding podCIDRs holds an IPv6 one. Every node counts, not
//     only those a flannel pod runs on yet: a node that just joined gets
//     its flannel pod a moment later;
//  2. every node that may still join is guaranteed one (joinGuarantee).
//     Nodes without podCIDRs yet count as lacking IPv6 unless it holds.
//     flanneld does not wait for a node's podCIDRs: v0.28.10 exits with
//     "pod cidr not assigned" on a node without any, and the kubelet
//     restarts it with a back-off until the node has them. Under
//     Independent such a node may get IPv4 alone, and the flanneld the
//     kubelet restarts next would run there with IPv6 enabled on an
//     IPv4-only lease, and exit.
//
// It returns why not otherwise, in words, for the acknowledgements.
func ipv6Gate(in adapters.Input) (bool, string) {
	var missing []string
	if lacking := nodesLacking(in, cidr.IPv6); len(lacking) > 0 {
		missing = append(missing, fmt.Sprintf("%d nodes hold podCIDRs without an IPv6 one and must be replaced "+
			"(drain assist does, in Auto mode, under familyPolicy AllOrWait): %s", len(lacking), rollout.List(lacking)))
	}
	guaranteed, why := joinGuarantee(in)
	if !guaranteed {
		missing = append(missing, "a node that joins is not guaranteed an IPv6 podCIDR: "+why)
		if empty := nodesWithoutPodCIDRs(in); len(empty) > 0 {
			missing = append(missing, fmt.Sprintf("%d nodes running flannel have no podCIDR yet and may get IPv4 alone: %s",
				len(empty), rollout.List(empty)))
		}
	}
	if len(missing) == 0 {
		return true, ""
	}
	return false, strings.Join(missing, "; ")
}

// joinGuarantee reports whether every node that joins from now on gets an
// IPv6 podCIDR with its IPv4 one, or none at all: the operator's NodeIPAM
// allocates, nothing says another allocator is at work, familyPolicy is
// AllOrWait, and every IPv4 range that may give a node a block (Pending or
// Active) is matched by an Active IPv6 range that selects at least the
// same nodes. The rule is kept simple so that it is sound: an Active IPv6
// range of spec.ranges with no nodeSelector matches every IPv4 range, and
// one with a nodeSelector matches the IPv4 ranges of spec.ranges with the
// same one (an autoscaled IPv4 range, whose selector lives in
// AutoscaledRangeSet, needs one without). Selectors that select the same
// nodes but are written differently do not count.
func joinGuarantee(in adapters.Input) (bool, string) {
	pn := in.PodNetwork
	switch {
	case pn == nil:
		return false, "there is no PodNetwork"
	case !in.NodeIPAM:
		return false, "the operator's NodeIPAM does not allocate podCIDRs (--enable-node-ipam=false), so nothing makes a node wait for its IPv6 block"
	case len(pn.Status.AllocationConflicts) > 0:
		return false, "another allocator writes node podCIDRs (status.allocationConflicts), and it may give a node IPv4 alone"
	case pn.Spec.Allocation.EffectiveFamilyPolicy() != v1alpha1.FamilyPolicyAllOrWait:
		return false, "spec.allocation.familyPolicy is not AllOrWait, so a node that joins while no IPv6 range is Active for it gets IPv4 alone"
	}
	var v6 []*v1alpha1.PodCIDRRange
	for i := range pn.Status.Ranges {
		rs := &pn.Status.Ranges[i]
		if rs.Phase != v1alpha1.RangePhaseActive || rs.InvalidReason != "" || !isFamily(rs.CIDR, cidr.IPv6) {
			continue
		}
		if sr := specRange(pn, rs); sr != nil {
			v6 = append(v6, sr)
		}
	}
	if len(v6) == 0 {
		return false, "no IPv6 range of spec.ranges is Active yet"
	}
	for i := range pn.Status.Ranges {
		rs := &pn.Status.Ranges[i]
		if (rs.Phase != v1alpha1.RangePhasePending && rs.Phase != v1alpha1.RangePhaseActive) || !isFamily(rs.CIDR, cidr.IPv4) {
			continue
		}
		sr := specRange(pn, rs)
		matched := slices.ContainsFunc(v6, func(r *v1alpha1.PodCIDRRange) bool {
			return r.NodeSelector == nil || (sr != nil && equality.Semantic.DeepEqual(r.NodeSelector, sr.NodeSelector))
		})
		if !matched {
			return false, fmt.Sprintf("no Active IPv6 range selects every node IPv4 range %q (%s) may give a block to "+
				"(add one without a nodeSelector, or with the same nodeSelector)", rs.Name, rs.CIDR)
		}
	}
	return true, ""
}

// specRange returns the spec entry of a tracked range, with the cidr
// status tracks, or nil.
func specRange(pn *v1alpha1.PodNetwork, rs *v1alpha1.RangeStatus) *v1alpha1.PodCIDRRange {
	for i := range pn.Spec.Ranges {
		if sr := &pn.Spec.Ranges[i]; sr.Name == rs.Name && sr.CIDR == rs.CIDR {
			return sr
		}
	}
	return nil
}

func isFamily(s, family string) bool {
	p, err := netip.ParsePrefix(s)
	return err == nil && cidr.Family(p) == family
}

// nodesLacking returns, sorted, the nodes that hold podCIDRs but none of
// family: every node with podCIDRs, whether or not the component runs
// there yet.
func nodesLacking(in adapters.Input, family string) []string {
	has := map[string]bool{}
	var nodes []string
	for _, np := range in.NodePodCIDRs {
		if _, seen := has[np.Name]; !seen {
			nodes = append(nodes, np.Name)
			has[np.Name] = false
		}
		if cidr.Family(np.Prefix) == family {
			has[np.Name] = true
		}
	}
	var out []string
	for _, n := range nodes {
		if !has[n] {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// nodesWithoutPodCIDRs returns the nodes running the component that hold
// no podCIDR yet: their flanneld exits ("pod cidr not assigned") and is
// restarted by the kubelet until they get one.
func nodesWithoutPodCIDRs(in adapters.Input) []string {
	held := map[string]bool{}
	for _, np := range in.NodePodCIDRs {
		held[np.Name] = true
	}
	var out []string
	for _, n := range in.RunningOn {
		if !held[n] {
			out = append(out, n)
		}
	}
	return out
}

// notCarriedNote is how an IPv6 range accepted without EnableIPv6 is
// acknowledged: what it means and what the adapter waits for.
func notCarriedNote(why string) string {
	return adapters.NotCarriedPrefix + "flannel keeps carrying IPv4 only (EnableIPv6 stays false in net-conf.json), because " +
		"EnableIPv6 applies to every node and flanneld exits on a node without an IPv6 podCIDR. The adapter turns it on, " +
		"with a rollout, once every node holds an IPv6 podCIDR and every node that joins is guaranteed one; waiting for: " + why
}
