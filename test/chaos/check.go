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

package chaos

import (
	"errors"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/invariants"
)

// maxDetails bounds the violations described in a result.
const maxDetails = 20

// check checks the history: no two live nodes ever hold the same block (at
// every recorded revision), and the final nodes pass invariants.Checker
// against every range ever seen Active.
func check(events []framework.Event, _ *Result) (map[string]int, []string, int) {
	violations := map[string]int{}
	var details []string
	report := func(invariant, detail string) {
		violations[invariant]++
		if len(details) < maxDetails {
			details = append(details, invariant+": "+detail)
		}
	}
	owner := map[netip.Prefix]string{}
	seen := map[string]bool{} // overlapping pairs already reported
	held := map[string][]netip.Prefix{}
	final := map[string]*corev1.Node{}
	checker := &invariants.Checker{}
	for _, ev := range events {
		switch o := ev.Object.(type) {
		case *v1alpha1.PodNetwork:
			checker.ObserveRanges(o)
		case *corev1.Node:
			for _, p := range held[o.Name] {
				if owner[p] == o.Name {
					delete(owner, p)
				}
			}
			delete(held, o.Name)
			delete(final, o.Name)
			if ev.Deleted {
				continue
			}
			final[o.Name] = o
			for _, s := range o.Spec.PodCIDRs {
				p, err := netip.ParsePrefix(s)
				if err != nil {
					continue
				}
				p = p.Masked()
				if other, ok := owner[p]; ok && other != o.Name {
					pair := fmt.Sprint(p, min(o.Name, other), max(o.Name, other))
					if !seen[pair] {
						seen[pair] = true
						report("no-overlap", fmt.Sprintf("at resourceVersion %d node %s has %s, which node %s holds", ev.RV, o.Name, p, other))
					}
				}
				owner[p] = o.Name
				held[o.Name] = append(held[o.Name], p)
			}
		}
	}
	nodes := make([]corev1.Node, 0, len(final))
	for _, n := range final {
		nodes = append(nodes, *n)
	}
	if err := checker.Check(nodes); err != nil {
		var joined interface{ Unwrap() []error }
		if errors.As(err, &joined) {
			for _, e := range joined.Unwrap() {
				if e != nil {
					report("final-nodes", e.Error())
				}
			}
		} else {
			report("final-nodes", err.Error())
		}
	}
	return violations, details, 0
}
