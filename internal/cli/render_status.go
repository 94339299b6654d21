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
	"io"
	"strconv"
	"strings"

	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// WriteStatusText prints s as one screen: the PodNetwork and its Ready
// condition, the ranges, the headroom per nodeSelector, the consumers and
// the conditions.
func WriteStatusText(w io.Writer, s *StatusReport) error {
	var b strings.Builder
	switch {
	case !readable(s.Unreadable, ResourcePodNetworks):
		fmt.Fprintf(&b, "PodNetwork %q: could not be read.\n", v1alpha1.PodNetworkName)
	case s.PodNetwork == "":
		fmt.Fprintf(&b, "No PodNetwork %q: the operator manages no range yet.\n", v1alpha1.PodNetworkName)
	default:
		fmt.Fprintf(&b, "PodNetwork %s: %s", s.PodNetwork, readySummary(s.Conditions))
		if s.ObservedGeneration != s.Generation {
			fmt.Fprintf(&b, " (the operator has seen generation %d of %d)", s.ObservedGeneration, s.Generation)
		}
		b.WriteString("\n")
	}
	if s.Nodes == nil {
		b.WriteString("Nodes: could not be read\n")
	} else {
		fmt.Fprintf(&b, "Nodes: %d, %d without podCIDRs\n", *s.Nodes, ptr.Deref(s.NodesWithoutPodCIDRs, 0))
	}
	writeOperatorText(&b, s.Operator, s.Unreadable)
	if len(s.Ranges) > 0 {
		b.WriteString("\nRANGES\n")
		t := newTable("NAME", "CIDR", "PHASE", "FOR", "ALLOCATED", "FREE", "QUARANTINED", "NODES")
		for i := range s.Ranges {
			r := &s.Ranges[i]
			alloc, free, quar := "-", "-", "-"
			if u := r.Usage; u != nil {
				alloc = fmt.Sprintf("%d/%d", ptr.Deref(u.Allocated, 0), u.Capacity)
				free = strconv.FormatInt(ptr.Deref(u.Free, 0), 10)
				quar = strconv.FormatInt(ptr.Deref(u.Quarantined, 0), 10)
			}
			age := "-"
			if r.InPhaseSeconds != nil {
				age = ageOf(*r.InPhaseSeconds)
			}
			t.row(r.Name, r.CIDR, string(r.Phase), age, alloc, free, quar, orDash(r.Selector))
			rangeDetails(t, r)
		}
		if err := writeTo(&b, t); err != nil {
			return err
		}
	}
	if len(s.Groups) > 0 {
		b.WriteString("\nHEADROOM (Active ranges per nodeSelector)\n")
		t := newTable("NODES", "RANGES", "IPv4 FREE", "IPv6 FREE", "NODES THAT CAN STILL JOIN")
		for _, g := range s.Groups {
			v4, v6 := "-", "-"
			for _, f := range g.Families {
				cell := fmt.Sprintf("%d of %d", f.Free, f.Capacity)
				if f.Quarantined > 0 {
					cell += fmt.Sprintf(" (+%d quarantined)", f.Quarantined)
				}
				if f.Family == v1alpha1.IPv4 {
					v4 = cell
				} else {
					v6 = cell
				}
			}
			t.row(g.Selector, strings.Join(g.Ranges, ","), v4, v6, strconv.FormatInt(g.Joinable, 10))
		}
		if err := writeTo(&b, t); err != nil {
			return err
		}
	}
	if err := writeAutoscalingText(&b, s.Autoscaling); err != nil {
		return err
	}
	if err := writeDrainAssistText(&b, s.DrainAssist); err != nil {
		return err
	}
	switch {
	case !readable(s.Unreadable, ResourceConsumers) && len(s.Consumers) == 0:
		b.WriteString("\nCONSUMERS: could not be read\n")
	case !readable(s.Unreadable, ResourceConsumers):
		b.WriteString("\nCONSUMERS (the operator's summary: the PodNetworkConsumers could not be read)\n")
	case len(s.Consumers) > 0:
		b.WriteString("\nCONSUMERS\n")
	}
	if len(s.Consumers) > 0 {
		t := newTable("NAME", "REQUIRED", "IN SYNC", "READY", "MESSAGE")
		for _, c := range s.Consumers {
			msg := c.Message
			if c.Ready != "True" && c.ReadyMessage != "" {
				msg = strings.TrimSpace(strings.Join([]string{msg, "Ready: " + c.ReadyMessage}, "; "))
				msg = strings.TrimPrefix(msg, "; ")
			}
			if c.Deleting {
				msg = strings.TrimPrefix(strings.Join([]string{"being deleted", msg}, "; "), "; ")
			}
			t.row(c.Name, yesNo(c.Required), yesNo(c.InSync), c.Ready, orDash(msg))
		}
		if err := writeTo(&b, t); err != nil {
			return err
		}
	}
	if len(s.Conditions) > 0 {
		b.WriteString("\nCONDITIONS\n")
		t := newTable("TYPE", "STATUS", "REASON", "FOR", "MESSAGE")
		for _, c := range s.Conditions {
			t.row(c.Type, c.Status, orDash(c.Reason), ageOf(c.InStatusSeconds), orDash(c.Message))
		}
		if err := writeTo(&b, t); err != nil {
			return err
		}
	}
	if s.ForeignNodeCount > 0 {
		fmt.Fprintf(&b, "\nNodes with a podCIDR outside every tracked range: %s\n", list(s.ForeignNodes, int(s.ForeignNodeCount), 10))
	}
	if len(s.AllocationConflicts) > 0 {
		b.WriteString("\nAllocation conflicts (another allocator is at work):\n")
		for _, c := range s.AllocationConflicts {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rangeDetails(t *table, r *RangeView) {
	if r.Invalid != "" {
		t.detail("invalid: %s", r.Invalid)
	}
	if len(r.Awaiting) > 0 {
		t.detail("awaiting: %s", strings.Join(r.Awaiting, ", "))
	}
	for _, rej := range r.Rejections {
		t.detail("rejected by %s: %s", rej.Consumer, orDash(rej.Message))
	}
	if r.HolderCount > 0 {
		t.detail("held by %s, which must be replaced before it is Released: %s", count(int(r.HolderCount), "node"), list(r.Holders, int(r.HolderCount), 10))
	}
	if r.CoveredBy != "" {
		t.detail("inside Active range %s: removing it needs no node replaced", r.CoveredBy)
	}
	if r.Pool != "" {
		t.detail("added by the autoscaler for pool %s", r.Pool)
	}
	if r.Phase == NotTracked {
		t.detail("in the spec but not tracked: see the Degraded condition")
	}
}

func readySummary(conds []ConditionView) string {
	for _, c := range conds {
		if c.Type == v1alpha1.ReadyCondition {
			out := "Ready=" + c.Status
			if c.Reason != "" {
				out += " (" + c.Reason + ")"
			}
			return out + " for " + ageOf(c.InStatusSeconds)
		}
	}
	return "not reconciled yet (no Ready condition): is the operator running?"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func writeTo(b *strings.Builder, t *table) error { return t.write(b) }

// readable reports whether resource is not among what could not be read.
func readable(unreadable []Unreadable, resource string) bool {
	for _, u := range unreadable {
		if u.Resource == resource {
			return false
		}
	}
	return true
}
