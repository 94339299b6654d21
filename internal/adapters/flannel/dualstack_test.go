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

package flannel_test

import (
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/adapterstest"
	"podnetwork.io/operator/internal/adapters/flannel"
)

// conversion is an IPv4 cluster running flannel (IPv4 only) that is
// becoming dual-stack: range v4 Active, range v6 in phase v6, both in
// spec.ranges without nodeSelector, NodeIPAM allocating under AllOrWait,
// and every node dual-stack; each case changes one thing.
func conversion(v6 v1alpha1.RangePhase, change func(*adapters.Input)) adapters.Input {
	pn := adapterstest.PodNetwork(adapterstest.Active("v4", "10.244.0.0/16"), adapterstest.Range("v6", "fd00:10:244::/56", v6))
	pn.Spec.Ranges = []v1alpha1.PodCIDRRange{{Name: "v4", CIDR: "10.244.0.0/16"}, {Name: "v6", CIDR: "fd00:10:244::/56"}}
	pn.Spec.Allocation = &v1alpha1.AllocationPolicy{FamilyPolicy: v1alpha1.FamilyPolicyAllOrWait}
	in := adapterstest.Input(pn)
	in.NodeIPAM = true
	in.NodePodCIDRs = []adapters.NamedPrefix{podCIDR("n1", "10.244.1.0/24"), podCIDR("n1", "fd00:10:244:1::/64"),
		podCIDR("n2", "10.244.2.0/24"), podCIDR("n2", "fd00:10:244:2::/64")}
	in.RunningOn = []string{"n1", "n2"}
	if change != nil {
		change(&in)
	}
	return in
}

func podCIDR(node, cidr string) adapters.NamedPrefix {
	return adapters.NamedPrefix{Name: node, Prefix: netip.MustParsePrefix(cidr)}
}

var pool = func(name string) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{name}}}}}}
}

// TestDualStackConversion is the flannel adapter's answer to an IPv6 range
// on a flannel that runs IPv4 only (issue #33): the range is accepted at
// once, never rejected (a rejection keeps it Pending, and no node could
// ever get the IPv6 block that would let flannel turn IPv6 on), with a
// note saying it is not carried yet and why; EnableIPv6 is turned on only
// once no node, present or future, can run flanneld without an IPv6
// podCIDR.
func TestDualStackConversion(t *testing.T) {
	upstream := read(t, "upstream.json")
	tests := []struct {
		name   string
		in     adapters.Input
		wantOn bool
		// wantWhy are parts of the note, when EnableIPv6 stays off.
		wantWhy []string
	}{
		{name: "everything holds: EnableIPv6 is turned on",
			in: conversion(v1alpha1.RangePhaseActive, nil), wantOn: true},
		{name: "a node without podCIDR yet is no obstacle once every new node is guaranteed IPv6",
			in:     conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) { in.RunningOn = append(in.RunningOn, "new") }),
			wantOn: true},
		{name: "a Pending IPv6 range is accepted, not carried",
			in:      conversion(v1alpha1.RangePhasePending, nil),
			wantWhy: []string{"no IPv6 range of spec.ranges is Active yet"}},
		{name: "a Draining IPv6 range never carried is acknowledged as not carried: the conversion was called off",
			in: conversion(v1alpha1.RangePhaseDraining, func(in *adapters.Input) {
				in.PodNetwork.Spec.Ranges = in.PodNetwork.Spec.Ranges[:1]
			}),
			wantWhy: []string{"no IPv6 range of spec.ranges is Active yet"}},
		{name: "a node with IPv4 alone keeps it off, and is named",
			in: conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
				in.NodePodCIDRs = append(in.NodePodCIDRs, podCIDR("old", "10.244.3.0/24"))
			}),
			wantWhy: []string{"1 nodes hold podCIDRs without an IPv6 one", "AllOrWait): old"}},
		{name: "a node with IPv4 alone counts before its flannel pod runs",
			in: conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
				in.NodePodCIDRs = append(in.NodePodCIDRs, podCIDR("just-joined", "10.244.3.0/24"))
				in.RunningOn = []string{"n1", "n2"}
			}),
			wantWhy: []string{": just-joined"}},
		{name: "under Independent a node may join with IPv4 alone: off, and nodes without podCIDRs count as lacking",
			in: conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
				in.PodNetwork.Spec.Allocation = nil
				in.RunningOn = append(in.RunningOn, "new")
			}),
			wantWhy: []string{"familyPolicy is not AllOrWait", "1 nodes running flannel have no podCIDR yet and may get IPv4 alone: new"}},
		{name: "without the operator's NodeIPAM nothing makes a node wait: off",
			in:      conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) { in.NodeIPAM = false }),
			wantWhy: []string{"--enable-node-ipam=false"}},
		{name: "another allocator at work: off",
			in: conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
				in.PodNetwork.Status.AllocationConflicts = []string{"nodes a (10.244.3.0/24) and b (10.244.3.0/24) have overlapping podCIDRs"}
			}),
			wantWhy: []string{"another allocator"}},
		{name: "an IPv6 range with a nodeSelector does not cover an IPv4 range without: off",
			in: conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
				in.PodNetwork.Spec.Ranges[1].NodeSelector = pool("a")
			}),
			wantWhy: []string{`no Active IPv6 range selects every node IPv4 range "v4"`}},
		{name: "an IPv6 range with the same nodeSelector as the IPv4 range covers it: on",
			in: conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
				in.PodNetwork.Spec.Ranges[0].NodeSelector = pool("a")
				in.PodNetwork.Spec.Ranges[1].NodeSelector = pool("a")
			}),
			wantOn: true},
		{name: "a Pending IPv4 range of another pool must be covered too: off",
			in: conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
				in.PodNetwork.Spec.Ranges[0].NodeSelector = pool("a")
				in.PodNetwork.Spec.Ranges[1].NodeSelector = pool("a")
				in.PodNetwork.Spec.Ranges = append(in.PodNetwork.Spec.Ranges, v1alpha1.PodCIDRRange{Name: "v4b", CIDR: "10.245.0.0/16", NodeSelector: pool("b")})
				in.PodNetwork.Status.Ranges = append(in.PodNetwork.Status.Ranges, adapterstest.Pending("v4b", "10.245.0.0/16"))
			}),
			wantWhy: []string{`IPv4 range "v4b"`}},
		{name: "a Draining IPv4 range gives no block: it need not be covered",
			in: conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
				in.PodNetwork.Status.Ranges = append(in.PodNetwork.Status.Ranges, adapterstest.Draining("old", "10.243.0.0/16"))
			}),
			wantOn: true},
		{name: "an autoscaled IPv6 range (not in spec.ranges) guarantees nothing: off",
			in: conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
				in.PodNetwork.Spec.Ranges = in.PodNetwork.Spec.Ranges[:1]
			}),
			wantWhy: []string{"no IPv6 range of spec.ranges is Active yet"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := flannel.Plan(upstream, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			c, err := flannel.Parse(plan.Config)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Decision.Rejected) > 0 || len(plan.Decision.Problems) > 0 {
				t.Errorf("rejected %v, problems %v: an IPv6 range is never rejected for the nodes' families", plan.Decision.Rejected, plan.Decision.Problems)
			}
			if c.IPv6Enabled() != tt.wantOn {
				t.Fatalf("EnableIPv6 %v, want %v; note %q", c.IPv6Enabled(), tt.wantOn, plan.Note)
			}
			if tt.wantOn {
				if c.IPv6Network != "fd00:10:244::/56" {
					t.Errorf("IPv6Network %q", c.IPv6Network)
				}
				if plan.Note != "" || len(plan.NotCarried) > 0 {
					t.Errorf("note %q, not carried %v: want none once IPv6 is on", plan.Note, plan.NotCarried)
				}
				return
			}
			if c.IPv6Network != "" {
				t.Errorf("IPv6Network written while IPv6 stays off (a rollout for nothing):\n%s", plan.Config)
			}
			note := plan.NotCarried["v6"]
			if note == "" || note != plan.Note {
				t.Fatalf("range v6 acknowledged with note %q (plan note %q), want the not-carried note", note, plan.Note)
			}
			if !strings.HasPrefix(note, "Accepted, not carried yet: flannel keeps carrying IPv4 only") {
				t.Errorf("note %q", note)
			}
			for _, w := range tt.wantWhy {
				if !strings.Contains(note, w) {
					t.Errorf("note %q lacks %q", note, w)
				}
			}
		})
	}
}

// TestDualStackRejectsWhatItMust: an IPv6 range is still rejected for the
// rules every range follows (here the shortest covering prefix), and the
// IPv4 ranges of a flannel that disables IPv4.
func TestDualStackRejectsWhatItMust(t *testing.T) {
	in := conversion(v1alpha1.RangePhaseActive, func(in *adapters.Input) {
		in.PodNetwork.Status.Ranges = append(in.PodNetwork.Status.Ranges, adapterstest.Pending("far", "fd99::/56"))
	})
	plan, err := flannel.Plan(read(t, "upstream.json"), in)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := plan.Decision.Rejected["far"]; !ok {
		t.Errorf("range far not rejected: %v", plan.Decision.Rejected)
	}
	if _, ok := plan.NotCarried["far"]; ok {
		t.Error("a rejected range is not acknowledged as accepted")
	}
}
