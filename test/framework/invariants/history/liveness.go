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
	"time"

	"go4.org/netipx"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// liveness judges the end of the history: liveness-ready and
// liveness-nodes.
func (c *checker) liveness() {
	if !c.opts.FaultsEnd.IsZero() && c.end.Before(c.opts.FaultsEnd) {
		for _, inv := range []string{InvLivenessReady, InvLivenessNodes} {
			c.violations = append(c.violations, violation(inv, c.endRV, c.end,
				"the history ends at %s, before the faults end at %s: nothing shows the system recovering", stamp(c.end), stamp(c.opts.FaultsEnd)))
		}
		return
	}
	c.livenessReady()
	c.livenessNodes()
}

func (c *checker) livenessReady() {
	pn := c.nw.pn
	if pn == nil || pn.DeletionTimestamp != nil {
		return // no PodNetwork, or deleted or being deleted: nothing to be Ready
	}
	cond := apimeta.FindStatusCondition(pn.Status.Conditions, v1alpha1.ReadyCondition)
	switch {
	case cond == nil:
		c.violations = append(c.violations, violation(InvLivenessReady, c.pnRV, c.pnTime, "the PodNetwork ends without a Ready condition"))
	case cond.Status != metav1.ConditionTrue:
		c.violations = append(c.violations, violation(InvLivenessReady, c.pnRV, c.pnTime, "the PodNetwork ends Ready=%s (%s): %s", cond.Status, cond.Reason, cond.Message))
	case cond.ObservedGeneration != pn.Generation:
		c.violations = append(c.violations, violation(InvLivenessReady, c.pnRV, c.pnTime,
			"the PodNetwork ends Ready=True for generation %d, but its generation is %d", cond.ObservedGeneration, pn.Generation))
	}
}

// candidate is a range NodeIPAM may allocate from at the end.
type candidate struct {
	r        *trackedRange
	selector *nodeaffinity.LazyErrorNodeSelector // nil matches every node
	free     *bool                               // has a usable block; computed on first use
}

// livenessNodes reports every node without podCIDRs at the end that
// NodeIPAM could give blocks to.
func (c *checker) livenessNodes() {
	cands := c.candidates()
	if len(cands) == 0 {
		return
	}
	names := make([]string, 0, len(c.nodes))
	for name, st := range c.nodes {
		if len(st.cidrs) == 0 && !st.deleting {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		st := c.nodes[name]
		matched := map[int]*candidate{} // family -> a matching candidate with a free block, or nil
		for _, cand := range cands {
			if !cand.matches(st.node) {
				continue
			}
			f := family(cand.r.prefix)
			if _, seen := matched[f]; !seen {
				matched[f] = nil
			}
			if matched[f] == nil && c.hasFreeBlock(cand) {
				matched[f] = cand
			}
		}
		if len(matched) == 0 || slices.Contains(mapValues(matched), nil) {
			continue // no matching range, or some family has no usable block: the node rightly waits
		}
		var ranges []string
		for _, f := range []int{0, 1} {
			if cand := matched[f]; cand != nil {
				ranges = append(ranges, fmt.Sprintf("%s (%s)", cand.r.name, cand.r.cidr))
			}
		}
		c.violations = append(c.violations, violation(InvLivenessNodes, st.rv, c.end,
			"node %s ends without podCIDRs although Active ranges %v match it and have free blocks", name, ranges))
	}
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// candidates returns the Active ranges NodeIPAM allocates from at the end:
// valid, not strictly inside another Active range of the family (the
// supernet's blocks and selector count), with their declared nodeSelector.
func (c *checker) candidates() []*candidate {
	var out []*candidate
	for _, r := range c.nw.ranges {
		if !r.ok || r.phase != v1alpha1.RangePhaseActive || r.invalid {
			continue // an Active range with a conflict found after activation: judge nothing
		}
		if slices.ContainsFunc(c.nw.ranges, func(o *trackedRange) bool {
			return o != r && o.ok && o.phase == v1alpha1.RangePhaseActive && o.prefix.Bits() < r.prefix.Bits() && o.prefix.Contains(r.prefix.Addr())
		}) {
			continue
		}
		spec := c.nw.spec(r.name, r.cidr)
		if spec == nil {
			continue // declared nowhere (an AutoscaledRangeSet not recorded?): NodeIPAM's view of it is unclear, judge nothing
		}
		cand := &candidate{r: r}
		if spec.NodeSelector != nil {
			cand.selector = nodeaffinity.NewLazyErrorNodeSelector(spec.NodeSelector)
		}
		out = append(out, cand)
	}
	return out
}

func (cand *candidate) matches(n *corev1.Node) bool {
	if cand.selector == nil {
		return true
	}
	ok, _ := cand.selector.Match(n)
	return ok
}

// hasFreeBlock reports whether the candidate has a whole block held by no
// node and, under whenExhausted Wait, not freed within the recycle delay
// (plus the clock slack) before the end.
func (c *checker) hasFreeBlock(cand *candidate) bool {
	if cand.free != nil {
		return *cand.free
	}
	r := cand.r
	bits := int(r.nms)
	if bits == 0 {
		bits = map[bool]int{true: 24, false: 64}[r.prefix.Addr().Is4()]
	}
	var b netipx.IPSetBuilder
	b.AddPrefix(r.prefix)
	for _, h := range c.held.overlapping(r.prefix) {
		b.RemovePrefix(h.Prefix)
	}
	if delaySeconds, wait := c.nw.policy(); wait {
		quarantine := time.Duration(delaySeconds)*time.Second + c.opts.ClockSlack
		for _, h := range c.freed.overlapping(r.prefix) {
			if c.end.Sub(h.Value.at) < quarantine {
				b.RemovePrefix(h.Prefix)
			}
		}
	}
	free := false
	if set, err := b.IPSet(); err == nil && bits >= r.prefix.Bits() && bits <= r.prefix.Addr().BitLen() {
		_, _, free = set.RemoveFreePrefix(uint8(bits))
	}
	cand.free = &free
	return free
}
