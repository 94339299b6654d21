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

package lifecycle

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/text"
)

const (
	// maxConditionMessage keeps condition messages readable (the schema allows
	// 32768 characters).
	maxConditionMessage = 4096
	// maxConditionLines is how many problems a condition message lists.
	maxConditionLines = 20
	// maxStatusConsumers is the MaxItems of status.consumers.
	maxStatusConsumers = 64
	// maxListItems is the MaxItems of awaiting and rejections.
	maxListItems = 64
	// maxConditions is the MaxItems of status.conditions.
	maxConditions = 16
)

// findings are what the PodNetwork conditions say, found once from the new
// state. Each condition is rendered from them by its own function
// (conditions.go), and the events of the problems only Degraded records are
// derived from them when Degraded changes (events.go).
type findings struct {
	invalid    []string  // Pending ranges that cannot be used, Active ranges with conflicts
	blocking   []string  // the subset of invalid that keeps ranges from moving, plus spec entries that cannot be tracked
	specIssues []finding // spec entries that cannot be tracked
	rejections []string  // rejections by required consumers
	waits      []string  // transitions that only wait for consumers or nodes
	stalls     []finding // waits that exceeded StallAfter
	conflicts  []string  // NodeIPAM's allocation conflicts, with what to do
	malformed  []string  // objects with values the operator cannot read, or reads only in a legacy format
}

// finding is one sentence of a condition about one range or spec entry.
type finding struct {
	name, cidr, line string
}

func lineTexts(fs []finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.line)
	}
	return out
}

func (c *computer) output() Output {
	out := Output{ObservedGeneration: c.in.Generation}
	var f findings
	names := c.sortedNames()
	for _, name := range names {
		c.decorate(c.entries[name])
	}
	for _, name := range names {
		e := c.entries[name]
		c.entryLines(e, &f)
		out.Ranges = append(out.Ranges, e.st)
	}
	c.specLines(&f)
	out.RequeueAfter = c.stalls(&f)
	out.Consumers = c.consumerSummaries()
	out.ForeignNodeCount, out.ForeignNodes = c.foreignNodes()
	out.Summary = c.summary()
	c.malformedLines(&f)
	f.conflicts = allocationConflictLines(c.in.Status.AllocationConflicts)
	out.Conditions = c.conditions(&f, &out.Summary)
	out.FinalizerRemovable = c.in.Deleting && len(c.entries) == 0
	out.Transitions = c.transitions
	out.Events = c.events(&out, &f)
	return out
}

// decorate fills the derived fields of a tracked range.
func (c *computer) decorate(e *entry) {
	if e.ok {
		e.st.IPFamily = v1alpha1.FamilyOf(e.prefix)
	}
	e.st.Awaiting, e.st.Rejections = nil, nil
	if v1alpha1.NeedsAck(&e.st) {
		for i := range c.consumers {
			cons := &c.consumers[i]
			acked, rejected, msg := v1alpha1.AckState(cons.Acks, &e.st)
			switch {
			case rejected:
				if len(e.st.Rejections) < maxListItems {
					e.st.Rejections = append(e.st.Rejections, v1alpha1.RangeRejection{Consumer: cons.Name, Message: text.Message(msg)})
				}
			case !acked && cons.Required && e.st.Phase != v1alpha1.RangePhaseActive:
				if len(e.st.Awaiting) < maxListItems {
					e.st.Awaiting = append(e.st.Awaiting, cons.Name)
				}
			}
		}
	}
	e.st.Holders, e.st.HolderCount = nil, 0
	if e.st.Phase == v1alpha1.RangePhaseDraining {
		hs := c.holders(e)
		e.st.HolderCount = int32(len(hs))
		if len(hs) > v1alpha1.MaxListedNodes {
			hs = hs[:v1alpha1.MaxListedNodes]
		}
		e.st.Holders = hs
	}
	if c.inSpec(e) {
		// A range that left the union keeps the pool it came from while it
		// drains; an adopted one becomes the admin's.
		e.st.Pool = c.in.Pools[e.st.Name]
	}
	e.st.CoveredBy = c.coveredBy(e)
	if c.in.Usage != nil {
		// A range the report leaves out gets no usage (the zero value).
		e.st.Usage = c.in.Usage[e.st.Name]
	}
	e.st.Message = text.Message(c.rangeMessage(e))
}

// coveredBy returns the name of the smallest Active range that strictly
// contains e.
func (c *computer) coveredBy(e *entry) string {
	best := ""
	bestBits := -1
	for _, name := range c.sortedNames() {
		o := c.entries[name]
		if name == e.st.Name || !o.ok || !e.ok || o.st.Phase != v1alpha1.RangePhaseActive {
			continue
		}
		if o.prefix.Bits() < e.prefix.Bits() && o.prefix.Contains(e.prefix.Addr()) && o.prefix.Bits() > bestBits {
			best, bestBits = name, o.prefix.Bits()
		}
	}
	return best
}

func (c *computer) requiredRejections(e *entry) []v1alpha1.RangeRejection {
	var out []v1alpha1.RangeRejection
	for _, r := range e.st.Rejections {
		for i := range c.consumers {
			if c.consumers[i].Name == r.Consumer && c.consumers[i].Required {
				out = append(out, r)
			}
		}
	}
	return out
}

// rangeMessage says what the range waits for.
func (c *computer) rangeMessage(e *entry) string {
	var parts []string
	if rs := c.requiredRejections(e); len(rs) > 0 {
		names := make([]string, 0, len(rs))
		for _, r := range rs {
			names = append(names, r.Consumer)
		}
		parts = append(parts, fmt.Sprintf("Rejected by required consumers %s; it stays %s until they accept it", listWords(names, 10), e.st.Phase))
	}
	var waits []string
	switch e.st.Phase {
	case v1alpha1.RangePhasePending:
		if e.st.InvalidReason != "" {
			return "Cannot be used until the problem in invalidMessage is fixed"
		}
		if len(e.st.Awaiting) > 0 {
			waits = append(waits, fmt.Sprintf("consumers %s to accept it", listWords(e.st.Awaiting, 10)))
		}
	case v1alpha1.RangePhaseDraining:
		if c.frozen(e) {
			return "Never released until the problem in invalidMessage is fixed"
		}
		if len(e.st.Awaiting) > 0 {
			waits = append(waits, fmt.Sprintf("consumers %s to acknowledge Draining", listWords(e.st.Awaiting, 10)))
		}
		if e.st.HolderCount > 0 {
			waits = append(waits, fmt.Sprintf("%d nodes to give back their blocks (%s)", e.st.HolderCount, listWords(e.st.Holders, 5)))
		}
	case v1alpha1.RangePhaseReleased:
		if len(e.st.Awaiting) > 0 {
			waits = append(waits, fmt.Sprintf("consumers %s to acknowledge Released", listWords(e.st.Awaiting, 10)))
		}
	}
	if len(waits) > 0 {
		parts = append(parts, "Waiting for "+strings.Join(waits, " and "))
	}
	if c.readdedWhileReleased(e) {
		parts = append(parts, "It is back in the spec and becomes Pending again once it has been purged")
	}
	return strings.Join(parts, ". ")
}

// readdedWhileReleased reports whether a Released range is back in the spec
// with the same name, cidr and nodeMaskSize.
func (c *computer) readdedWhileReleased(e *entry) bool {
	return e.st.Phase == v1alpha1.RangePhaseReleased && c.inSpec(e)
}

// entryLines adds the condition sentences about one tracked range.
func (c *computer) entryLines(e *entry, l *findings) {
	id := fmt.Sprintf("range %q (%s)", e.st.Name, e.st.CIDR)
	if e.st.InvalidReason != "" {
		var line string
		switch e.st.Phase {
		case v1alpha1.RangePhasePending:
			line = fmt.Sprintf("%s cannot be used: %s", id, e.st.InvalidMessage)
		case v1alpha1.RangePhaseDraining:
			line = fmt.Sprintf("%s is Draining and never released: %s", id, e.st.InvalidMessage)
		default:
			l.invalid = append(l.invalid, fmt.Sprintf("%s is %s but %s", id, e.st.Phase, e.st.InvalidMessage))
		}
		if line != "" {
			l.invalid = append(l.invalid, line)
			l.blocking = append(l.blocking, line)
		}
		if e.st.Phase != v1alpha1.RangePhaseReleased {
			return
		}
	}
	rejected := c.requiredRejections(e)
	for _, r := range rejected {
		l.rejections = append(l.rejections, fmt.Sprintf("consumer %q rejected %s in phase %s: %s", r.Consumer, id, e.st.Phase, r.Message))
	}
	var waits []string
	switch e.st.Phase {
	case v1alpha1.RangePhasePending:
		if len(e.st.Awaiting) > 0 {
			waits = append(waits, fmt.Sprintf("consumers %s to accept it", listWords(e.st.Awaiting, 10)))
		}
	case v1alpha1.RangePhaseDraining:
		if len(e.st.Awaiting) > 0 {
			waits = append(waits, fmt.Sprintf("consumers %s to acknowledge Draining", listWords(e.st.Awaiting, 10)))
		}
		if e.st.HolderCount > 0 {
			waits = append(waits, fmt.Sprintf("%d nodes to give back their blocks (%s)", e.st.HolderCount, listWords(e.st.Holders, 5)))
		}
	case v1alpha1.RangePhaseReleased:
		if len(e.st.Awaiting) > 0 {
			waits = append(waits, fmt.Sprintf("consumers %s to acknowledge Released", listWords(e.st.Awaiting, 10)))
		}
	}
	// A range rejected by a required consumer is blocked, not progressing,
	// even if it also waits for others.
	if len(waits) == 0 || len(rejected) > 0 {
		return
	}
	line := fmt.Sprintf("%s is %s, waiting for %s", id, e.st.Phase, strings.Join(waits, " and "))
	if c.readdedWhileReleased(e) {
		line += "; it is back in the spec and becomes Pending again once it has been purged"
	}
	l.waits = append(l.waits, line)
}

// specLines finds the spec entries that cannot be tracked at all.
func (c *computer) specLines(l *findings) {
	for _, s := range c.spec {
		name := s.r.Name
		var line string
		e := c.entries[name]
		switch {
		case s.err != "":
			line = fmt.Sprintf("range %q: %s", name, s.err)
		case e != nil && !c.inSpec(e):
			line = fmt.Sprintf("range %q (%s, nodeMaskSize %d) waits until the range tracked under the same name (%s, nodeMaskSize %d, %s) has been purged",
				name, s.prefix, s.nms, e.st.CIDR, e.st.NodeMaskSize, e.st.Phase)
		case e == nil:
			line = fmt.Sprintf("range %q (%s) cannot be tracked: status already tracks %d ranges", name, s.prefix, v1alpha1.MaxStatusRanges)
		default:
			continue
		}
		l.specIssue(name, line)
	}
	for _, sh := range c.in.Shadowed {
		if !c.in.Deleting {
			l.specIssue(sh.Name, sh.Message)
		}
	}
}

// specIssue adds a spec entry that cannot be tracked.
func (l *findings) specIssue(name, line string) {
	l.specIssues = append(l.specIssues, finding{name: name, line: line})
	l.blocking = append(l.blocking, line)
}

// waitStart is when the transition began waiting for the awaited consumers:
// the phase start, or the latest registration among them if all registered
// later, so a consumer added mid-transition is not stalled on arrival.
func (c *computer) waitStart(phaseSince time.Time, awaiting []string) time.Time {
	earliest := time.Time{}
	for _, name := range awaiting {
		since := phaseSince
		for _, cons := range c.in.Consumers {
			if cons.Name == name && cons.RegisteredAt.After(since) {
				since = cons.RegisteredAt
			}
		}
		if earliest.IsZero() || since.Before(earliest) {
			earliest = since
		}
	}
	if earliest.IsZero() {
		return phaseSince
	}
	return earliest
}

// stalls finds the ranges that have waited too long for a required consumer
// and returns when the next one will.
func (c *computer) stalls(l *findings) time.Duration {
	after := c.in.StallAfter
	if after == 0 {
		after = DefaultStallAfter
	}
	if after < 0 {
		return 0
	}
	var next time.Duration
	for _, name := range c.sortedNames() {
		e := c.entries[name]
		if len(e.st.Awaiting) == 0 {
			continue
		}
		since := ptr.Deref(e.st.PhaseSince, metav1.Time{})
		waited := c.now.Sub(c.waitStart(since.Time, e.st.Awaiting))
		if waited < after {
			if d := after - waited; next == 0 || d < next {
				next = d
			}
			continue
		}
		line := fmt.Sprintf("range %q (%s) has waited since %s for consumers %s to acknowledge %s",
			name, e.st.CIDR, since.UTC().Format(time.RFC3339), listWords(e.st.Awaiting, 10), e.st.Phase)
		l.stalls = append(l.stalls, finding{name: name, cidr: e.st.CIDR, line: line})
	}
	return next
}

func (c *computer) consumerSummaries() []v1alpha1.ConsumerSummary {
	var out []v1alpha1.ConsumerSummary
	for i := range c.consumers {
		cons := &c.consumers[i]
		var behind, rejected []string
		for _, name := range c.sortedNames() {
			e := c.entries[name]
			if !v1alpha1.NeedsAck(&e.st) {
				continue
			}
			acked, rej, msg := v1alpha1.AckState(cons.Acks, &e.st)
			switch {
			case rej:
				rejected = append(rejected, fmt.Sprintf("%s (%s): %s", name, e.st.Phase, msg))
			case !acked:
				behind = append(behind, fmt.Sprintf("%s (%s)", name, e.st.Phase))
			}
		}
		var parts []string
		if len(behind) > 0 {
			parts = append(parts, "Has not acknowledged "+listWords(behind, 10))
		}
		if len(rejected) > 0 {
			parts = append(parts, "Rejected "+strings.Join(rejected, "; "))
		}
		if bad := malformedAcks(cons.Acks); len(bad) > 0 {
			parts = append(parts, "Ignored acknowledgements whose cidr is not a canonical prefix: "+listWords(bad, 5))
		}
		if !cons.Required {
			parts = append(parts, "Not required: shown but never waited for")
		}
		if len(out) < maxStatusConsumers {
			out = append(out, v1alpha1.ConsumerSummary{
				Name:     cons.Name,
				Required: cons.Required,
				InSync:   len(behind) == 0 && len(rejected) == 0,
				Message:  text.Message(strings.Join(parts, ". ")),
			})
		}
	}
	return out
}

// foreignNodes counts the nodes with a pod CIDR outside every tracked range.
func (c *computer) foreignNodes() (int32, []string) {
	var tracked []netip.Prefix
	for _, e := range c.entries {
		if e.ok {
			tracked = append(tracked, e.prefix)
		}
	}
	var names []string
	for _, n := range c.nodes {
		if len(ForeignPodCIDRs(n.PodCIDRs, tracked)) > 0 {
			names = append(names, n.Name)
		}
	}
	slices.Sort(names)
	count := int32(len(names))
	if len(names) > v1alpha1.MaxListedNodes {
		names = names[:v1alpha1.MaxListedNodes]
	}
	return count, names
}

// ForeignPodCIDRs returns the podCIDRs that lie outside every tracked
// prefix: what makes a node foreign (status.foreignNodes). The kubectl
// plugin's check applies the same rule.
func ForeignPodCIDRs(podCIDRs, tracked []netip.Prefix) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range podCIDRs {
		inside := false
		for _, t := range tracked {
			if t.Bits() <= p.Bits() && t.Contains(p.Addr()) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, p)
		}
	}
	return out
}

func (c *computer) summary() v1alpha1.PodNetworkSummary {
	s := v1alpha1.PodNetworkSummary{TotalRanges: int32(len(c.in.Spec))}
	for _, sr := range c.in.Spec {
		if c.in.Pools[sr.Name] != "" {
			s.AutoscaledRanges++
		}
	}
	for _, sr := range c.spec {
		if e := c.entries[sr.r.Name]; e != nil && e.st.Phase == v1alpha1.RangePhaseActive && c.inSpec(e) {
			s.ActiveRanges++
		}
	}
	for _, e := range c.entries {
		switch e.st.Phase {
		case v1alpha1.RangePhasePending:
			s.PendingRanges++
		case v1alpha1.RangePhaseDraining:
			s.DrainingRanges++
		case v1alpha1.RangePhaseReleased:
			s.ReleasedRanges++
		}
	}
	return s
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// joinLines joins sentences into one condition message.
func joinLines(ls []string) string {
	if len(ls) > maxConditionLines {
		ls = append(ls[:maxConditionLines:maxConditionLines], fmt.Sprintf("and %d more", len(ls)-maxConditionLines))
	}
	return text.Truncate(capitalize(strings.Join(ls, "; ")), maxConditionMessage)
}

// listWords renders "a, b and c", or "a, b and 3 more" beyond limit items.
func listWords(items []string, limit int) string {
	switch {
	case len(items) == 0:
		return ""
	case len(items) > limit:
		return strings.Join(items[:limit], ", ") + fmt.Sprintf(" and %d more", len(items)-limit)
	case len(items) == 1:
		return items[0]
	default:
		return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// allActiveMessage is the Ready=True message.
func allActiveMessage(n int32) string {
	switch n {
	case 0:
		return "No ranges are declared"
	case 1:
		return "The only range is Active"
	default:
		return fmt.Sprintf("All %d ranges are Active", n)
	}
}

// allocationConflictLines turns NodeIPAM's conflict reports into condition
// lines that tell the admin what to do.
func allocationConflictLines(conflicts []string) []string {
	if len(conflicts) == 0 {
		return nil
	}
	out := make([]string, 0, len(conflicts)+1)
	out = append(out, "Another allocator writes node podCIDRs (turn off kube-controller-manager's --allocate-node-cidrs)")
	for _, c := range conflicts {
		out = append(out, capitalize(c))
	}
	return out
}
