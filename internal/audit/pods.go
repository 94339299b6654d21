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

package audit

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/slimnode"
	"podnetwork.io/operator/internal/text"
)

// inUseRange is an Active or Draining range: pods may hold its addresses.
type inUseRange struct {
	name   string
	prefix netip.Prefix
	phase  v1alpha1.RangePhase
	// since is when the range entered its phase (zero when unknown).
	since time.Time
}

// inUseRanges returns the Active and Draining ranges of pn.
func inUseRanges(pn *v1alpha1.PodNetwork) []inUseRange {
	if pn == nil {
		return nil
	}
	var out []inUseRange
	for i := range pn.Status.Ranges {
		rs := &pn.Status.Ranges[i]
		if rs.Phase != v1alpha1.RangePhaseActive && rs.Phase != v1alpha1.RangePhaseDraining {
			continue
		}
		p, err := netip.ParsePrefix(rs.CIDR)
		if err != nil {
			continue
		}
		r := inUseRange{name: rs.Name, prefix: p.Masked(), phase: rs.Phase}
		if rs.PhaseSince != nil {
			r.since = rs.PhaseSince.Time
		}
		out = append(out, r)
	}
	return out
}

// nodePodCIDRs maps every node to its podCIDRs, read as Kubernetes reads
// them, all in one backing array.
func nodePodCIDRs(nodes []*slimnode.Node) map[string][]netip.Prefix {
	total := 0
	for _, n := range nodes {
		total += len(n.Spec.PodCIDRs)
	}
	all := make([]netip.Prefix, 0, total)
	out := make(map[string][]netip.Prefix, len(nodes))
	for _, n := range nodes {
		start := len(all)
		for _, s := range n.Spec.PodCIDRs {
			if p, _, ok := cidr.ParseObservedPrefix(s); ok {
				all = append(all, p)
			}
		}
		out[n.Name] = all[start:len(all):len(all)]
	}
	return out
}

// Pods checks the IPs of pods, one page of a list; it does nothing unless
// Input.PodIPs. Pods on the host network, not yet scheduled or finished
// (their IPs are free again) are skipped, and so is an IP of a family the
// node has no podCIDR of, or the pod network no range of.
func (r *Run) Pods(pods []corev1.Pod) {
	if !r.in.PodIPs {
		return
	}
	for i := range pods {
		r.pod(&pods[i])
	}
}

func (r *Run) pod(p *corev1.Pod) {
	if p.Spec.HostNetwork || p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return
	}
	nodeCIDRs, nodeKnown := r.nodes[p.Spec.NodeName]
	var outsideNode, outsideRanges []netip.Addr
	check := func(s string) {
		a, _, ok := cidr.ParseObservedAddr(s)
		if !ok {
			return
		}
		if nodeKnown && hasFamily(nodeCIDRs, a) && !containsAddr(nodeCIDRs, a) {
			outsideNode = append(outsideNode, a)
		}
		if r.rangeOfFamily(a) && !r.inRange(a) {
			outsideRanges = append(outsideRanges, a)
		}
	}
	if len(p.Status.PodIPs) == 0 && p.Status.PodIP != "" {
		check(p.Status.PodIP)
	}
	for _, ip := range p.Status.PodIPs {
		check(ip.IP)
	}
	if len(outsideNode) == 0 && len(outsideRanges) == 0 {
		return
	}
	ref := corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}
	if len(outsideNode) > 0 {
		node := &corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: p.Spec.NodeName}
		ips := text.List(outsideNode)
		r.add(Finding{Kind: PodIPOutsideNodePodCIDRs, Regarding: ref, Related: node, Reason: PodIPOutsideNodePodCIDRsReason,
			Message: fmt.Sprintf("pod IP %s lies outside the podCIDRs of its node %s (%s): the CNI did not take it from the node's block, so routes to the node's block do not reach it; "+
				"if this CNI does not allocate pod IPs from node podCIDRs, turn the check off (audit.podIPs: false)", ips, p.Spec.NodeName, text.List(nodeCIDRs)),
			key: findingKey(PodIPOutsideNodePodCIDRs, &ref, ips)})
	}
	if len(outsideRanges) > 0 {
		ips := text.List(outsideRanges)
		r.add(Finding{Kind: PodIPOutsideRanges, Regarding: ref, Related: podNetworkRef(), Reason: PodIPOutsideRangesReason,
			Message: fmt.Sprintf("pod IP %s lies outside every Active and Draining range of the pod network (%s): what covers the pod network (kube-proxy's clusterCIDR, the CNI's routes, "+
				"NetworkPolicies) does not treat it as a pod address", ips, r.describeInUse()),
			key: findingKey(PodIPOutsideRanges, &ref, ips)})
	}
}

// rangeOfFamily reports whether a range in use has a's family.
func (r *Run) rangeOfFamily(a netip.Addr) bool {
	for i := range r.inUse {
		if r.inUse[i].prefix.Addr().Is4() == a.Is4() {
			return true
		}
	}
	return false
}

// inRange reports whether a range in use holds a.
func (r *Run) inRange(a netip.Addr) bool {
	for i := range r.inUse {
		if r.inUse[i].prefix.Contains(a) {
			return true
		}
	}
	return false
}

func (r *Run) describeInUse() string {
	s := make([]string, len(r.inUse))
	for i, u := range r.inUse {
		s[i] = fmt.Sprintf("%s %s", u.name, u.prefix)
	}
	return strings.Join(s, ", ")
}

func hasFamily(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Addr().Is4() == a.Is4() {
			return true
		}
	}
	return false
}

func containsAddr(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// podNetworkRef refers to PodNetwork "default".
func podNetworkRef() *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: v1alpha1.GroupVersion.String(), Kind: "PodNetwork", Name: v1alpha1.PodNetworkName}
}
