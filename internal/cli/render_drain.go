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

package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxDrainRows bounds the nodes the schedule's table shows: a range held
// by thousands of nodes is read in the machine output, which lists all.
const maxDrainRows = 50

// writeDrainScheduleText prints plan's DRAIN SCHEDULE: one row per node,
// by batch, the nodes in progress first and the skipped ones last, with
// what blocks them under the row; then the warnings.
func writeDrainScheduleText(b *strings.Builder, s *DrainSchedule) error {
	if s == nil {
		return nil
	}
	handover := "no handover"
	if s.Handover != "" {
		handover = "handover " + string(s.Handover)
	}
	fmt.Fprintf(b, "\nDRAIN SCHEDULE: %s to replace; drain assist %s, %s, at most %d at a time (maxUnavailable %s)\n",
		count(s.Nodes, "node"), s.Mode, handover, s.MaxUnavailableNodes, s.MaxUnavailable)
	if len(s.Batches) > 1 {
		b.WriteString("A batch starts as the one before is replaced; drain assist starts each node as soon as a slot frees.\n")
	}
	t := newTable("BATCH", "NODE", "RANGES", "PODS TO EVICT")
	rows := 0
	row := func(batch string, n *DrainNodePlan) {
		rows++
		if rows > maxDrainRows {
			return
		}
		evict := "-"
		if n.PodsToEvict != nil {
			evict = strconv.Itoa(*n.PodsToEvict)
		}
		why := slices.Clone(n.Ranges)
		for _, l := range n.Lacks {
			why = append(why, "lacks "+l)
		}
		t.row(batch, n.Name, strings.Join(why, ","), evict)
		if n.State != "" {
			msg := string(n.State)
			if n.Reason != "" {
				msg += " (" + string(n.Reason) + ")"
			}
			t.detail("%s: %s", msg, orDash(n.Message))
		}
		for _, bl := range n.BlockedBy {
			t.detail("PodDisruptionBudget %s allows no disruption now: evicting %s waits for it", bl.PodDisruptionBudget, list(bl.Pods, len(bl.Pods), 5))
		}
	}
	for i := range s.InProgress {
		row("in progress", &s.InProgress[i])
	}
	for i, batch := range s.Batches {
		for j := range batch.Nodes {
			row(strconv.Itoa(i+1), &batch.Nodes[j])
		}
	}
	for i := range s.Skipped {
		row("skipped", &s.Skipped[i])
	}
	if err := t.write(b); err != nil {
		return err
	}
	if rows > maxDrainRows {
		fmt.Fprintf(b, "... and %d more nodes (-o json lists them all)\n", rows-maxDrainRows)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(b, "  warning: %s\n", w)
	}
	return nil
}

// writeDrainAssistText prints status's DRAIN ASSIST: the counts, the
// condition when it is not Complete, and every node it reports on.
func writeDrainAssistText(b *strings.Builder, v *DrainAssistView) error {
	if v == nil {
		return nil
	}
	handover := ""
	if v.Handover != "" {
		handover = ", handover " + string(v.Handover)
	}
	fmt.Fprintf(b, "\nDRAIN ASSIST (%s%s, at most %d at a time): %d left to replace: %d waiting, %d draining, %d blocked, %d handed over, %d skipped\n",
		v.Mode, handover, v.MaxUnavailable, v.Total, v.Waiting, v.Draining, v.Blocked, v.HandedOver, v.Skipped)
	if c := v.Complete; c != nil && c.Status != "True" {
		fmt.Fprintf(b, "  %s for %s: %s\n", c.Reason, ageOf(c.InStatusSeconds), orDash(c.Message))
	}
	if len(v.Nodes) == 0 {
		return nil
	}
	t := newTable("NODE", "STATE", "REASON", "STARTED", "PODS LEFT", "RANGES")
	for _, n := range v.Nodes {
		age, left := "-", "-"
		if n.StartedSeconds != nil {
			age = ageOf(*n.StartedSeconds) + " ago"
		}
		if n.PodsLeft != nil {
			left = strconv.Itoa(int(*n.PodsLeft))
		}
		t.row(n.Name, string(n.State), orDash(string(n.Reason)), age, left, orDash(strings.Join(n.Ranges, ",")))
		if n.Message != "" {
			t.detail("%s", n.Message)
		}
	}
	return t.write(b)
}
