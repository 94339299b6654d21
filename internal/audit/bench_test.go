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
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/slimnode"
)

// benchNodes are count nodes with a /26 each from 10.0.0.0/8, the last
// hundredth outside it.
func benchNodes(count int) []*slimnode.Node {
	nodes := make([]*slimnode.Node, count)
	base := netip.MustParseAddr("10.0.0.0").As4()
	for i := range nodes {
		b := base
		b[1], b[2], b[3] = byte(i>>10), byte(i>>2), byte(i&3)<<6
		if i >= count-count/100 {
			b[0] = 11
		}
		nodes[i] = node(fmt.Sprintf("node-%d", i), netip.PrefixFrom(netip.AddrFrom4(b), 26).String())
	}
	return nodes
}

var benchRanges = []v1alpha1.RangeStatus{active("a", "10.0.0.0/8", 0), rangeAt("old", "172.16.0.0/12", v1alpha1.RangePhaseDraining, 0)}

// BenchmarkCountNodePodCIDRs is the cost the foreign and malformed
// podCIDR gauges add to every scrape at 100,000 nodes.
func BenchmarkCountNodePodCIDRs(b *testing.B) {
	nodes := benchNodes(100_000)
	b.ReportAllocs()
	for b.Loop() {
		CountNodePodCIDRs(benchRanges, nodes)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(nodes)), "ns/node")
}

// BenchmarkAuditPods is the audit's CPU per pod (without the LIST and its
// decoding): 10,000 pods, ten per node, every hundredth on another node's
// block.
func BenchmarkAuditPods(b *testing.B) {
	nodes := benchNodes(1_000)
	pods := make([]corev1.Pod, 10_000)
	for i := range pods {
		n := nodes[i/10]
		p := netip.MustParsePrefix(n.Spec.PodCIDRs[0])
		ip := p.Addr().Next()
		if i%100 == 99 {
			ip = netip.MustParsePrefix(nodes[(i/10+1)%len(nodes)].Spec.PodCIDRs[0]).Addr().Next()
		}
		pods[i] = pod(fmt.Sprintf("pod-%d", i), n.Name, ip.String()).obj()
	}
	pn := podNetwork(benchRanges...)
	b.ReportAllocs()
	for b.Loop() {
		r := NewRun(Input{PodNetwork: pn, Nodes: nodes, PodIPs: true, MaxAnnounce: 20})
		for page := 0; page < len(pods); page += 500 {
			r.Pods(pods[page : page+500])
		}
		if r.Result().Findings[PodIPOutsideNodePodCIDRs] != 100 {
			b.Fatal(r.Result().Findings)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pods)), "ns/pod")
}

// BenchmarkAuditNodeMap is what an audit spends reading the podCIDRs of
// 100,000 nodes before it checks any pod.
func BenchmarkAuditNodeMap(b *testing.B) {
	nodes := benchNodes(100_000)
	pn := podNetwork(benchRanges...)
	b.ReportAllocs()
	for b.Loop() {
		NewRun(Input{PodNetwork: pn, Nodes: nodes, PodIPs: true})
	}
}

// BenchmarkAuditNetworkPolicies: 1,000 policies written before a range
// was added, each with two rules of ipBlocks: the worst case, every
// policy checked in full.
func BenchmarkAuditNetworkPolicies(b *testing.B) {
	pn := podNetwork(active("a", "10.244.0.0/16", 0), active("b", "10.250.0.0/16", 10))
	policies := make([]networkingv1.NetworkPolicy, 1_000)
	for i := range policies {
		policies[i] = policy(fmt.Sprintf("p-%d", i), 5).ingress(ipBlock("10.244.0.0/16"), ipBlock("192.168.0.0/16", "192.168.1.0/24")).
			egress(ipBlock("10.0.0.0/8")).obj()
	}
	b.ReportAllocs()
	for b.Loop() {
		r := NewRun(Input{PodNetwork: pn, MaxAnnounce: 20})
		r.NetworkPolicies(policies)
		if r.Result().Findings[NetworkPolicyMissingRange] != len(policies) {
			b.Fatal(r.Result().Findings)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(policies)), "ns/policy")
}
