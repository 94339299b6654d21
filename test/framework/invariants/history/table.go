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
	"fmt"
	"slices"
	"strings"
)

// Table renders r as markdown for docs/reliability.md: violations by
// invariant (zeros shown), range transitions, nodes, and writes by process
// with the stale ones.
func Table(r Report) string {
	var b strings.Builder
	byInv := map[string]int{}
	staleByInv := map[string]int{}
	for _, v := range r.Violations {
		byInv[v.Invariant]++
		if v.StaleWrite {
			staleByInv[v.Invariant]++
		}
	}
	b.WriteString("| invariant | violations | of them from stale writes |\n|---|---:|---:|\n")
	for _, inv := range Invariants {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", inv, byInv[inv], staleByInv[inv])
	}

	b.WriteString("\n| range transition | count |\n|---|---:|\n")
	var transitions []string
	for k := range r.Counts {
		if t, ok := strings.CutPrefix(k, CountTransition); ok {
			transitions = append(transitions, t)
		}
	}
	slices.Sort(transitions)
	if len(transitions) == 0 {
		b.WriteString("| none | 0 |\n")
	}
	for _, t := range transitions {
		fmt.Fprintf(&b, "| %s | %d |\n", t, r.Counts[CountTransition+t])
	}

	b.WriteString("\n| history | count |\n|---|---:|\n")
	for _, k := range []string{CountObservations, CountNodes, CountNodesDeleted, CountAssigned, CountAdopted, CountReuses, CountReusesAcrossFailover, CountDrainingRace, CountLeaseHolders} {
		fmt.Fprintf(&b, "| %s | %d |\n", k, r.Counts[k])
	}

	b.WriteString("\n| process | writes | stale writes | stale writes landed |\n|---|---:|---:|---:|\n")
	stale, landed := map[string]int{}, map[string]int{}
	for _, s := range r.Stale {
		stale[s.Process]++
		if s.Landed() {
			landed[s.Process]++
		}
	}
	var procs []string
	for k := range r.Counts {
		if p, ok := strings.CutPrefix(k, CountWrites); ok {
			procs = append(procs, p)
		}
	}
	slices.Sort(procs)
	for _, p := range procs {
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", p, r.Counts[CountWrites+p], stale[p], landed[p])
	}
	fmt.Fprintf(&b, "| all | %d | %d | %d |\n", sumPrefix(r.Counts, CountWrites), r.Counts[CountStaleWrites], r.Counts[CountStaleLanded])
	if n := r.Counts[CountUnjudged]; n > 0 {
		fmt.Fprintf(&b, "\n%d writes could not be judged against the lease (no Lease observed, or its holder maps to no process).\n", n)
	}
	return b.String()
}

func sumPrefix(m map[string]int, prefix string) int {
	n := 0
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}
