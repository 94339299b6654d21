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
	"strings"
	"testing"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/cidr"
)

// TestIPv6Peers is the "peers announced" rollout (peers.go): with
// EnableIPv6 on, the pod template gets flannel.PeersAnnotation, which
// rolls flanneld out once more, only once every node running flannel
// announces its addresses, and IPv6 is not carried until then. The mark
// lives on the template, so a restarted operator that finds it there
// neither rolls out again nor waits for the nodes.
func TestIPv6Peers(t *testing.T) {
	upstream := read(t, "upstream.json")
	dualStack, err := flannel.SetNetworks(upstream, flannel.Networks{IPv6Network: "fd00:10:244::/56", EnableIPv6: true})
	if err != nil {
		t.Fatal(err)
	}
	const ipv6Only = `{"EnableIPv4": false, "EnableIPv6": true, "IPv6Network": "fd00:10:244::/56", "Backend": {"Type": "vxlan"}}`
	marked := map[string]string{flannel.PeersAnnotation: flannel.PeersAnnounced}
	silent := func(v4, v6 []string) func(*adapters.Input) {
		return func(in *adapters.Input) {
			in.Unannounced = map[string][]string{cidr.IPv4: v4, cidr.IPv6: v6}
		}
	}
	both := func(changes ...func(*adapters.Input)) func(*adapters.Input) {
		return func(in *adapters.Input) {
			for _, c := range changes {
				c(in)
			}
		}
	}
	tests := []struct {
		name    string
		current string
		in      adapters.Input
		// wantMark is the value of PeersAnnotation the plan wants ("":
		// absent); wantWaiting, when set, what its not-carried note says
		// IPv6 waits for.
		wantMark    string
		wantWaiting string
		// unknownTemplate leaves in.Template nil, as the kubectl plugin
		// does; the adapter always passes the template's annotations.
		unknownTemplate bool
	}{
		{name: "the plan turns EnableIPv6 on while no node announces IPv6: that rollout carries no mark, IPv6 waits",
			current: upstream, in: conversion(v1alpha1.RangePhaseActive, silent(nil, []string{"n1", "n2"})),
			wantWaiting: "2 nodes running flannel to announce their addresses (flannel.alpha.coreos.com/public-ipv6, flannel.alpha.coreos.com/public-ip): n1, n2"},
		{name: "EnableIPv6 is on and rolled out, one node announced: still waiting, for the other",
			current: dualStack, in: conversion(v1alpha1.RangePhaseActive, silent(nil, []string{"n2"})),
			wantWaiting: "1 nodes running flannel to announce their addresses (flannel.alpha.coreos.com/public-ipv6, flannel.alpha.coreos.com/public-ip): n2"},
		{name: "every node announces IPv6 but one lacks its IPv4 address: waiting",
			current: dualStack, in: conversion(v1alpha1.RangePhaseActive, silent([]string{"n1"}, nil)),
			wantWaiting: ": n1"},
		{name: "every node running flannel announces both: the mark, one more rollout",
			current: dualStack, in: conversion(v1alpha1.RangePhaseActive, silent([]string{"no-flannel"}, []string{"no-flannel"})),
			wantMark: flannel.PeersAnnounced, wantWaiting: "the rollout that restarts flanneld once more"},
		{name: "restart in the middle: the template carries the mark, so nothing more rolls out although a new node has not announced yet",
			current: dualStack,
			in: conversion(v1alpha1.RangePhaseActive, both(silent([]string{"new"}, []string{"new"}), func(in *adapters.Input) {
				in.RunningOn = append(in.RunningOn, "new")
				in.Template = marked
			})),
			wantMark: flannel.PeersAnnounced},
		{name: "a cluster adopted with IPv6 on whose nodes all announce: the adoption rollout carries the mark, no extra restart",
			current: dualStack, in: conversion(v1alpha1.RangePhaseActive, nil),
			wantMark: flannel.PeersAnnounced, wantWaiting: "the rollout that restarts flanneld once more"},
		{name: "the plan turns EnableIPv6 on while every node already announces: the mark rolls out with it",
			current: upstream, in: conversion(v1alpha1.RangePhaseActive, nil),
			wantMark: flannel.PeersAnnounced, wantWaiting: "the rollout that restarts flanneld once more"},
		{name: "IPv6 off: no mark, and one left on the template is taken back with the next configuration",
			current: upstream,
			in: conversion(v1alpha1.RangePhasePending, func(in *adapters.Input) {
				in.Template = marked
			})},
		{name: "IPv6 only (EnableIPv4 false): only the IPv6 address counts",
			current: ipv6Only, in: conversion(v1alpha1.RangePhaseActive, silent([]string{"n1", "n2"}, nil)),
			wantMark: flannel.PeersAnnounced, wantWaiting: "the rollout that restarts flanneld once more"},
		{name: "IPv6 only, a node not announcing IPv6: waiting",
			current: ipv6Only, in: conversion(v1alpha1.RangePhaseActive, silent(nil, []string{"n2"})),
			wantWaiting: "1 nodes running flannel to announce their addresses (flannel.alpha.coreos.com/public-ipv6): n2"},
		{name: "the template unknown (the kubectl plugin's prediction): taken as marked, IPv6 carried",
			current: dualStack, in: conversion(v1alpha1.RangePhaseActive, silent(nil, []string{"n1", "n2"})), unknownTemplate: true,
			wantMark: flannel.PeersAnnounced},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in.Template == nil && !tt.unknownTemplate {
				tt.in.Template = map[string]string{}
			}
			plan, err := flannel.Plan(tt.current, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			mark, ok := plan.Template[flannel.PeersAnnotation]
			if !ok {
				t.Fatalf("plan.Template %v lacks %s: an empty value removes it", plan.Template, flannel.PeersAnnotation)
			}
			if mark != tt.wantMark {
				t.Errorf("mark %q, want %q", mark, tt.wantMark)
			}
			if tt.wantWaiting == "" {
				if strings.Contains(plan.Note, flannel.PeersAnnotation) {
					t.Errorf("note %q: nothing to wait for", plan.Note)
				}
				return
			}
			note := plan.NotCarried["v6"]
			if note == "" || note != plan.Note {
				t.Fatalf("range v6 acknowledged with note %q (plan note %q), want the peers note", note, plan.Note)
			}
			if !strings.HasPrefix(note, adapters.NotCarriedPrefix+"flannel runs with EnableIPv6") || !strings.Contains(note, tt.wantWaiting) {
				t.Errorf("note %q, want it to name %q", note, tt.wantWaiting)
			}
			if c, err := flannel.Parse(plan.Config); err != nil || !c.IPv6Enabled() || c.IPv6Network != "fd00:10:244::/56" {
				t.Errorf("EnableIPv6 off (%v) in %s", err, plan.Config)
			}
		})
	}
}

// TestRolloutHash: no mark keeps the configuration hash a component always
// had (upgrading the operator restarts nothing); a mark changes it.
func TestRolloutHash(t *testing.T) {
	const text = `{"Network": "10.244.0.0/16"}`
	plain := adapters.ConfigHash(text)
	for _, marks := range []map[string]string{nil, {}, {flannel.PeersAnnotation: ""}} {
		if got := adapters.RolloutHash(text, marks); got != plain {
			t.Errorf("RolloutHash(%v) = %s, want ConfigHash %s", marks, got, plain)
		}
	}
	marked := adapters.RolloutHash(text, map[string]string{flannel.PeersAnnotation: flannel.PeersAnnounced, "other": ""})
	if marked == plain || len(marked) != len(plain) {
		t.Errorf("RolloutHash with the mark = %s, want a hash other than %s", marked, plain)
	}
	if again := adapters.RolloutHash(text, map[string]string{flannel.PeersAnnotation: flannel.PeersAnnounced}); again != marked {
		t.Errorf("an empty mark changed the hash: %s, %s", again, marked)
	}
}
