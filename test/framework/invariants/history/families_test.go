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

package history

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// dualStack makes range a6 (cidrV6, /64 blocks) Active beside a.
func dualStack(h *hist) {
	h.activate("a6", cidrV6, "a "+cidrA+" Active")
}

// TestIPv6AndDualStack: every invariant that judges blocks judges IPv6
// blocks and both blocks of a dual-stack node, each in its own family.
func TestIPv6AndDualStack(t *testing.T) {
	runInvariantCases(t, []invariantCase{
		{name: "dual-stack nodes with disjoint blocks", all: true, build: func(h *hist) {
			dualStack(h)
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24", "fd99::/64")
			h.node("n2", nil)
			h.assign("n2", "10.0.1.0/24", "fd99:0:0:1::/64")
		}},
		{name: "an IPv6 block shared by two nodes", want: []string{InvOverlap}, msg: "fd99::/64", build: func(h *hist) {
			dualStack(h)
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24", "fd99::/64")
			h.node("n2", nil)
			h.assign("n2", "10.0.1.0/24", "fd99::/64")
		}},
		{name: "two IPv6 podCIDRs on one node", want: []string{InvShape}, build: func(h *hist) {
			dualStack(h)
			h.node("n1", nil)
			h.assign("n1", "fd99::/64", "fd99:0:0:1::/64")
		}},
		{name: "an IPv6 block outside every Active range", want: []string{InvInsideActive}, build: func(h *hist) {
			dualStack(h)
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24", "fd98::/64")
		}},
		{name: "an IPv6 block of the wrong size", want: []string{InvInsideActive}, msg: "not a /64 block", build: func(h *hist) {
			dualStack(h)
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24", "fd99::/80")
		}},
		{name: "an IPv6 block reused within the delay", want: []string{InvRecycleDelay}, msg: "fd99::/64", build: func(h *hist) {
			dualStack(h)
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24", "fd99::/64")
			h.deleteNode("n1")
			h.tick(10 * time.Second)
			h.node("n2", nil)
			h.assign("n2", "10.0.1.0/24", "fd99::/64") // the IPv4 block is new, the IPv6 one early
		}},
		{name: "a dual-stack node's blocks reused after the delay", build: func(h *hist) {
			dualStack(h)
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24", "fd99::/64")
			h.deleteNode("n1")
			h.tick(61 * time.Second)
			h.node("n2", nil)
			h.assign("n2", "10.0.0.0/24", "fd99::/64")
		}},
		{name: "an IPv6-only node left without a block while a6 has free ones", want: []string{InvLivenessNodes}, msg: "a6 (fd99::/48)", build: func(h *hist) {
			h.spec(rng("a", cidrA))
			v6only := rng("a6", cidrV6)
			v6only.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "family", Operator: corev1.NodeSelectorOpIn, Values: []string{"IPv6"}},
			}}}}
			h.spec(rng("a", cidrA), v6only)
			h.status(false, "a "+cidrA+" Active", "a6 "+cidrV6+" Pending")
			h.ackAll("a6", cidrV6, pending)
			h.status(true, "a "+cidrA+" Active", "a6 "+cidrV6+" Active")
			h.node("n1", map[string]string{"family": "IPv6"})
			h.heartbeat("n1")
		}},
	})
}

// TestFamilyCounts counts the nodes NodeIPAM gave podCIDRs by family.
func TestFamilyCounts(t *testing.T) {
	h := base()
	dualStack(h)
	h.node("n1", nil)
	h.assign("n1", "10.0.0.0/24", "fd99::/64")
	h.node("n2", nil)
	h.assign("n2", "10.0.1.0/24")
	h.node("n3", nil)
	h.assign("n3", "fd99:0:0:1::/64")
	h.node("n4", nil)
	h.adopt("n4", "10.0.2.0/24", "fd99:0:0:2::/64") // not NodeIPAM's
	r := h.check(t, Options{})
	for k, want := range map[string]int{CountDualStackNodes: 1, CountIPv4OnlyNodes: 1, CountIPv6OnlyNodes: 1} {
		if got := r.Counts[k]; got != want {
			t.Errorf("%s = %d, want %d", k, got, want)
		}
	}
}

// TestRecyclePolicyChanges: recycle-delay judges each reuse by the policy
// the PodNetwork had when it landed, as a run that switches from Wait to
// ReuseOldest and then to a delay of 0 does: an early reuse is a breach
// under Wait only, and counted as legal under ReuseOldest.
func TestRecyclePolicyChanges(t *testing.T) {
	h := base()
	h.policy(10, v1alpha1.WhenExhaustedWait)
	reuse := func(freed, reused, cidr string, after time.Duration) {
		h.node(freed, nil)
		h.assign(freed, cidr)
		h.deleteNode(freed)
		h.tick(after)
		h.node(reused, nil)
		h.assign(reused, cidr)
	}
	reuse("n1", "n2", "10.0.0.0/24", 2*time.Second) // Wait, 10s: a breach
	reuse("n3", "n4", "10.0.1.0/24", 12*time.Second)
	h.policy(10, v1alpha1.WhenExhaustedReuseOldest)
	reuse("n5", "n6", "10.0.2.0/24", 2*time.Second) // ReuseOldest: legal, counted
	h.policy(0, v1alpha1.WhenExhaustedWait)
	reuse("n7", "n8", "10.0.3.0/24", 0) // delay 0: at once is legal
	r := h.check(t, Options{})
	var breaches []Violation
	for _, v := range r.Violations {
		if v.Invariant == InvRecycleDelay {
			breaches = append(breaches, v)
		}
	}
	if len(breaches) != 1 || breaches[0].RV != h.rvOfAssign("n2") {
		t.Fatalf("recycle-delay breaches:\n%s\nwant only n2's reuse", dump(breaches))
	}
	if got := r.Counts[CountReuses]; got != 4 {
		t.Errorf("reuses = %d, want 4", got)
	}
	if got := r.Counts[CountEarlyReusesReuseOldest]; got != 1 {
		t.Errorf("early reuses under ReuseOldest = %d, want 1", got)
	}
}

// TestAutoscaledRangeSelectors: liveness-nodes reads the nodeSelector of a
// range the autoscaler declared (AutoscaledRangeSet default), as NodeIPAM
// does: a node it matches must not be left without a block, one it does
// not match may wait.
func TestAutoscaledRangeSelectors(t *testing.T) {
	const pool = "10.9.0.0/24"
	sel := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"auto"}},
	}}}}
	build := func(h *hist, labels map[string]string) {
		// a makes way for s, whose only block is held.
		drainA(h)
		h.status(false, "a "+cidrA+" Released")
		h.ackAll("a", cidrA, released)
		h.status(true)
		h.activate("s", "10.0.0.0/24")
		h.node("full", nil)
		h.assign("full", "10.0.0.0/24")
		set := &v1alpha1.AutoscaledRangeSet{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.AutoscaledRangeSetName},
			Spec: &v1alpha1.AutoscaledRangeSetSpec{Ranges: []v1alpha1.AutoscaledRange{
				{Name: "p-1", Pool: "p", CIDR: pool, NodeMaskSize: 24, NodeSelector: sel},
			}}}
		h.record(set, false, "", "")
		h.status(false, "s 10.0.0.0/24 Active", "p-1 "+pool+" Pending")
		h.ackAll("p-1", pool, pending)
		h.status(true, "s 10.0.0.0/24 Active", "p-1 "+pool+" Active")
		h.node("n1", labels)
		h.heartbeat("n1")
	}
	runInvariantCases(t, []invariantCase{
		{name: "a pool node left waiting", want: []string{InvLivenessNodes}, msg: "p-1 (10.9.0.0/24)", build: func(h *hist) {
			build(h, map[string]string{"pool": "auto"})
		}},
		{name: "another node waits for a", all: true, build: func(h *hist) { build(h, nil) }},
	})
}
