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

package nodeipam

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"time"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/statusedit"
)

// DefaultRecycleDelay is spec.allocation.recycleDelaySeconds when unset (the
// CRD defaults it, so this only matters for objects created without
// defaulting).
const DefaultRecycleDelay = 60 * time.Second

// Config is what NodeIPAM derives from the PodNetwork: the allocator's
// ranges and policy, the candidate ranges for new blocks, and the ranges it
// cannot use.
type Config struct {
	// Ranges configure the allocator: every Pending range offered to
	// consumers, every Active and every Draining range, in status order.
	// Only Active ones allocate; the others keep tracking their holders.
	// Released ranges are left out: that is what acknowledging Released
	// means.
	Ranges []allocator.RangeSpec

	// Phases is the phase each range of Ranges was tracked in, by name.
	Phases map[string]v1alpha1.RangePhase

	// Candidates are the Active ranges that hand out blocks on their own
	// (not strictly inside another Active range), sorted by name.
	Candidates []Candidate

	// Unusable maps a range NodeIPAM cannot track to the reason. Such a
	// Pending range is rejected; an Active or Draining one is never
	// acknowledged (the lifecycle validation should have stopped it).
	Unusable map[string]string

	// SelectorErrors maps a candidate range to the problems of its
	// nodeSelector; the terms concerned match no node.
	SelectorErrors map[string]error

	// RecycleDelay, WhenExhausted and FamilyPolicy are spec.allocation.
	RecycleDelay  time.Duration
	WhenExhausted allocator.ExhaustedPolicy
	FamilyPolicy  v1alpha1.FamilyPolicy

	// Awaited are the Pending ranges a node may have to wait for under
	// FamilyPolicy AllOrWait (FamilyWait), sorted by name.
	Awaited []AwaitedRange
}

// Candidate is an Active range a node may get a block from.
type Candidate struct {
	Name     string
	Prefix   netip.Prefix
	Selector *NodeSelector
}

// NewConfig derives the Config from the PodNetwork; nil means there is none
// (no ranges, default policy). It never fails: what cannot be used is
// reported in Unusable and SelectorErrors.
func NewConfig(pn *v1alpha1.PodNetwork) Config {
	c := Config{
		Phases:         map[string]v1alpha1.RangePhase{},
		Unusable:       map[string]string{},
		SelectorErrors: map[string]error{},
		RecycleDelay:   DefaultRecycleDelay,
		WhenExhausted:  allocator.Wait,
		FamilyPolicy:   v1alpha1.FamilyPolicyIndependent,
	}
	if pn == nil {
		return c
	}
	if a := pn.Spec.Allocation; a != nil {
		if a.RecycleDelaySeconds != nil {
			c.RecycleDelay = time.Duration(*a.RecycleDelaySeconds) * time.Second
		}
		if a.WhenExhausted == v1alpha1.WhenExhaustedReuseOldest {
			c.WhenExhausted = allocator.ReuseOldest
		}
		c.FamilyPolicy = a.EffectiveFamilyPolicy()
	}

	tracked := c.trackedRanges(pn)
	c.acceptNonConflicting(tracked)
	for _, t := range tracked {
		if _, bad := c.Unusable[t.spec.Name]; bad {
			continue
		}
		c.Ranges = append(c.Ranges, t.spec)
		c.Phases[t.spec.Name] = t.phase
	}
	c.Candidates = c.candidates(pn)
	c.Awaited = c.awaitedRanges(pn)
	return c
}

// untrustedPhase is what Config.Phases records for a range whose status
// another client set: no phase, so no acknowledgement matches it.
const untrustedPhase v1alpha1.RangePhase = ""

// trackedRange is a range of status NodeIPAM tracks, before the conflict
// check.
type trackedRange struct {
	spec  allocator.RangeSpec
	phase v1alpha1.RangePhase
}

// trackedRanges parses the status ranges NodeIPAM tracks, recording the ones
// it cannot parse or split in Unusable.
//
// A range whose phase, cidr or nodeMaskSize another client set, or that
// another client added (statusedit.Find), is not the lifecycle's word: until
// the lifecycle has repaired it, NodeIPAM tracks it inactive (nodes' blocks
// in it stay reserved, nothing is allocated from it), whatever phase it
// shows, and acknowledges none of its phases.
func (c *Config) trackedRanges(pn *v1alpha1.PodNetwork) []trackedRange {
	edits := statusedit.ByRange(statusedit.Find(pn.ManagedFields))
	var out []trackedRange
	for i := range pn.Status.Ranges {
		rs := &pn.Status.Ranges[i]
		re := edits[rs.Name]
		untrusted := re.Phase || re.Identity || re.Added
		if !untrusted && (rs.Phase == v1alpha1.RangePhaseReleased || !v1alpha1.NeedsAck(rs)) {
			continue
		}
		p, err := cidr.ParseCanonical(rs.CIDR)
		if err != nil {
			c.Unusable[rs.Name] = fmt.Sprintf("cidr %q: %v", rs.CIDR, err)
			continue
		}
		mask := int(rs.NodeMaskSize)
		if mask == 0 {
			mask = int(v1alpha1.DefaultNodeMaskSize(p))
		}
		if _, err := allocator.NewRange(p, mask); err != nil {
			c.Unusable[rs.Name] = err.Error()
			continue
		}
		t := trackedRange{
			spec:  allocator.RangeSpec{Name: rs.Name, Prefix: p, NodeMaskSize: mask, Active: rs.Phase == v1alpha1.RangePhaseActive},
			phase: rs.Phase,
		}
		if untrusted {
			t.spec.Active, t.phase = false, untrustedPhase
		}
		out = append(out, t)
	}
	return out
}

// acceptNonConflicting marks as Unusable every range that overlaps an
// already accepted one with a different nodeMaskSize (the allocator refuses
// such a configuration as a whole). Ranges that hold nodes (Active,
// Draining) are accepted before Pending ones, then by name.
func (c *Config) acceptNonConflicting(tracked []trackedRange) {
	order := slices.Clone(tracked)
	slices.SortStableFunc(order, func(x, y trackedRange) int {
		if px, py := x.phase == v1alpha1.RangePhasePending, y.phase == v1alpha1.RangePhasePending; px != py {
			if px {
				return 1
			}
			return -1
		}
		return cmp.Compare(x.spec.Name, y.spec.Name)
	})
	var accepted []allocator.RangeSpec
	for _, t := range order {
		clash := slices.IndexFunc(accepted, func(a allocator.RangeSpec) bool {
			return a.Prefix.Overlaps(t.spec.Prefix) && a.NodeMaskSize != t.spec.NodeMaskSize
		})
		if clash >= 0 {
			a := accepted[clash]
			c.Unusable[t.spec.Name] = fmt.Sprintf("%s overlaps range %q (%s) but splits into /%d blocks instead of /%d",
				t.spec.Prefix, a.Name, a.Prefix, t.spec.NodeMaskSize, a.NodeMaskSize)
			continue
		}
		accepted = append(accepted, t.spec)
	}
}

// candidates returns the Active ranges not strictly inside another Active
// range, with their compiled nodeSelector from the spec entry of the same
// name and cidr. An Active range without such a spec entry is no candidate:
// a range that left the spec is Draining.
func (c *Config) candidates(pn *v1alpha1.PodNetwork) []Candidate {
	var active []allocator.RangeSpec
	for _, r := range c.Ranges {
		if r.Active {
			active = append(active, r)
		}
	}
	var out []Candidate
	for _, r := range active {
		if slices.ContainsFunc(active, func(o allocator.RangeSpec) bool { return cidr.StrictlyContains(o.Prefix, r.Prefix) }) {
			continue
		}
		i := slices.IndexFunc(pn.Spec.Ranges, func(s v1alpha1.PodCIDRRange) bool { return s.Name == r.Name })
		if i < 0 {
			continue
		}
		if sp, err := pn.Spec.Ranges[i].Prefix(); err != nil || sp.Masked() != r.Prefix {
			continue
		}
		sel, err := CompileNodeSelector(pn.Spec.Ranges[i].NodeSelector)
		if err != nil {
			c.SelectorErrors[r.Name] = err
		}
		out = append(out, Candidate{Name: r.Name, Prefix: r.Prefix, Selector: sel})
	}
	slices.SortFunc(out, func(x, y Candidate) int { return cmp.Compare(x.Name, y.Name) })
	return out
}

// SameRanges reports whether o configures the allocator's ranges exactly
// like c, so SetRanges can be skipped.
func (c *Config) SameRanges(o *Config) bool {
	return slices.Equal(c.Ranges, o.Ranges)
}

// Find returns the tracked range with the given name.
func (c *Config) Find(name string) (allocator.RangeSpec, bool) {
	i := slices.IndexFunc(c.Ranges, func(r allocator.RangeSpec) bool { return r.Name == name })
	if i < 0 {
		return allocator.RangeSpec{}, false
	}
	return c.Ranges[i], true
}
