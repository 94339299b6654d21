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
	"strings"

	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/statusedit"
)

// repair decides, before any transition, what to make of the tracked ranges
// whose status cannot be trusted: fields another client set (Input.Edits),
// a phase that is none of the four (the CRD refuses one, so only a broken
// object has it), a cidr that is not a canonical prefix (the lifecycle
// writes only canonical ones). The status is the operator's record of what
// consumers applied and nodes use; a value someone else wrote is not, so it
// never moves a range on, and the range is put where the protocol is safe
// whatever the truth was:
//
//   - its name is in the spec, and its cidr or nodeMaskSize was changed or
//     cannot be used, or another client added it: cidr and nodeMaskSize are
//     taken from the spec and it is Pending, so every consumer applies and
//     acknowledges it again before NodeIPAM allocates from it (nodes keep
//     their blocks; Pending ranges are configured, not allocated from);
//   - it is in the spec with the same cidr and nodeMaskSize, and its phase
//     was changed or is unknown: Pending, for the same reason;
//   - it is not in the spec, and another client changed its cidr or
//     nodeMaskSize: Draining, held there for good (invalidReason
//     StatusEdited), since nothing tells which prefix nodes and consumers
//     really use;
//   - it is not in the spec, and its phase was changed or is unknown, or
//     another client added it: Draining, so consumers keep it and it is
//     released only once every required consumer acknowledged Draining and
//     no node holds a block in it;
//   - a phaseSince another client set, or one in the future, becomes now.
//
// A range whose cidr cannot be used and that is not in the spec stays where
// it is but is never released (frozen). Each range repaired gets a
// StatusEdited event saying why and what was done, and each client that
// edited the status one naming what it set.
func (c *computer) repair() {
	edits := statusedit.ByRange(c.in.Edits)
	for _, name := range c.sortedNames() {
		e := c.entries[name]
		re := edits[name]
		if re.PhaseSince || (e.st.PhaseSince != nil && e.st.PhaseSince.After(c.now.Time)) {
			e.st.PhaseSince = ptr.To(c.now)
		}
		before := fmt.Sprintf("%s, nodeMaskSize %d, %s", e.st.CIDR, e.st.NodeMaskSize, e.st.Phase)
		what := c.repairEntry(e, re)
		if what == "" {
			continue
		}
		why := "its status cannot be trusted"
		switch {
		case len(re.Managers) > 0:
			why = fmt.Sprintf("%s set %s", listWords(quoteAll(re.Managers), 3), fieldWords(re.Fields))
		case !knownPhase(c.prevByName[name].Phase):
			why = fmt.Sprintf("its phase %q is none of Pending, Active, Draining and Released", c.prevByName[name].Phase)
		case c.prevByName[name].InvalidReason == v1alpha1.RangeInvalidStatusEdited:
			why = "it was held Draining after its cidr was edited"
		case c.prevByName[name].CIDR != e.st.CIDR:
			why = fmt.Sprintf("its cidr %q is not a canonical prefix", c.prevByName[name].CIDR)
		}
		ev := warning(EventStatusEdited, "Repair", fmt.Sprintf("Range %q (%s) cannot be trusted because %s: it %s", name, before, why, what))
		ev.Range, ev.CIDR = name, e.st.CIDR
		c.repairs = append(c.repairs, ev)
	}
	for _, ed := range c.in.Edits {
		c.repairs = append(c.repairs, warning(EventStatusEdited, "Repair",
			fmt.Sprintf("Only the operator writes the PodNetwork status, but %s; the operator takes these fields back and writes them again", ed.String())))
	}
}

// fieldWords names the fields of a range entry another client set; "."
// is the entry itself.
func fieldWords(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f
		if f == "." {
			out[i] = "the entry itself"
		}
	}
	return strings.Join(out, ", ")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// repairEntry puts e where the protocol is safe if its status cannot be
// trusted (see repair) and says what it did, or returns "".
func (c *computer) repairEntry(e *entry, re statusedit.RangeEdit) string {
	s := c.specByName[e.st.Name]
	specOK := s != nil && s.err == ""
	sameAsSpec := specOK && e.ok && e.prefix == s.prefix && e.st.NodeMaskSize == s.nms
	known := knownPhase(e.st.Phase)
	switch {
	case specOK && !sameAsSpec && (re.Identity || re.Added || e.garbage != "" || e.held):
		e.st.CIDR, e.prefix, e.ok, e.st.NodeMaskSize = s.prefix.String(), s.prefix, true, s.nms
		e.st.IPFamily = v1alpha1.FamilyOf(s.prefix)
		e.garbage, e.held = "", false
		c.toPhase(e, v1alpha1.RangePhasePending)
		return fmt.Sprintf("takes cidr %s and nodeMaskSize %d from the spec again; it is Pending, so consumers acknowledge it again before NodeIPAM allocates from it",
			s.prefix, s.nms)
	case sameAsSpec && (re.Phase || re.Added || re.Identity || !known):
		e.held = false
		if e.st.Phase == v1alpha1.RangePhasePending {
			return "stays Pending: consumers acknowledge it before NodeIPAM allocates from it"
		}
		c.toPhase(e, v1alpha1.RangePhasePending)
		return "is Pending: consumers acknowledge it again before NodeIPAM allocates from it; nodes keep their blocks"
	case !sameAsSpec && re.Identity && !re.Added:
		e.held = true
		c.toPhase(e, v1alpha1.RangePhaseDraining)
		return "is held Draining and never released (invalidReason StatusEdited): it is no longer in the spec, so nothing tells which prefix nodes and consumers use"
	case !sameAsSpec && (re.Phase || re.Added || !known):
		if e.st.Phase == v1alpha1.RangePhaseDraining {
			return "stays Draining: it is released once every required consumer acknowledged Draining and no node holds a block in it"
		}
		c.toPhase(e, v1alpha1.RangePhaseDraining)
		return "is Draining: consumers keep it configured and it is released once every required consumer acknowledged Draining and no node holds a block in it"
	}
	return ""
}

// toPhase moves e to phase, if it is not there yet. The transition is
// recorded as a repair: it counts like any other, but the StatusEdited event
// says why instead of a transition event of its own.
func (c *computer) toPhase(e *entry, phase v1alpha1.RangePhase) {
	if e.st.Phase == phase {
		return
	}
	c.record(e, phase, true)
	e.st.Phase = phase
	e.st.PhaseSince = ptr.To(c.now)
	e.moved = true
	e.st.Awaiting, e.st.Rejections, e.st.Holders, e.st.HolderCount = nil, nil, nil, 0
}

func knownPhase(p v1alpha1.RangePhase) bool {
	switch p {
	case v1alpha1.RangePhasePending, v1alpha1.RangePhaseActive, v1alpha1.RangePhaseDraining, v1alpha1.RangePhaseReleased:
		return true
	}
	return false
}
