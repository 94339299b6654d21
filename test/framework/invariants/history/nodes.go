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
	"net/netip"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"podnetwork.io/operator/test/framework/invariants"
)

func violation(inv string, rv int64, t time.Time, format string, args ...any) Violation {
	return Violation{Invariant: inv, RV: rv, Time: t, Message: fmt.Sprintf(format, args...)}
}

func (c *checker) observeNode(o *Observation, n *corev1.Node) {
	st := c.nodes[n.Name]
	if st != nil && st.node.UID != n.UID {
		if o.Deleted {
			return // the deletion of an object already replaced
		}
		// A new object under the name without its predecessor's deletion
		// observed: the old node is gone, deleted at the latest now, at the
		// earliest right after its last observation, which is what a reuse
		// is measured from (the conservative end).
		c.deleteNode(st, &Observation{RV: st.rv, Time: st.time})
		st = nil
	}
	if o.Deleted {
		if st != nil {
			c.deleteNode(st, o)
		}
		return
	}
	if st == nil {
		st = &nodeState{}
		c.nodes[n.Name] = st
		c.counts[CountNodes]++
	}
	if err := invariants.Shape(n); err != nil {
		if key := string(n.UID) + "\x00" + err.Error(); !c.shapeReported[key] {
			c.shapeReported[key] = true
			c.violate(InvShape, o, "%v", err)
		}
	}
	cidrs := invariants.PodCIDRs(n)
	if !slices.Equal(cidrs, st.cidrs) {
		for _, p := range st.cidrs {
			c.held.remove(p, n.Name)
		}
		assigned, at := invariants.AssignedBy(n, c.opts.FieldManager)
		if w := c.landedByRV[o.RV]; w != nil && w.Resource == "nodes" {
			assigned = true // an operator process wrote it, whatever managedFields say (a recorder may strip them)
		}
		if assigned && len(st.cidrs) == 0 && len(cidrs) > 0 {
			c.countFamilies(cidrs)
		}
		for _, p := range cidrs {
			if !slices.Contains(st.cidrs, p) {
				c.place(o, st, n, p, assigned, at)
			}
		}
		for _, p := range cidrs {
			c.held.add(p, n.Name)
		}
		st.cidrs = cidrs
	}
	st.node, st.rv, st.time, st.deleting = n, o.RV, o.Time, n.DeletionTimestamp != nil
}

// countFamilies counts a node's first podCIDRs from NodeIPAM by the IP
// families they cover.
func (c *checker) countFamilies(cidrs []netip.Prefix) {
	v4 := slices.ContainsFunc(cidrs, func(p netip.Prefix) bool { return p.Addr().Is4() })
	v6 := slices.ContainsFunc(cidrs, func(p netip.Prefix) bool { return p.Addr().Is6() })
	switch {
	case v4 && v6:
		c.counts[CountDualStackNodes]++
	case v4:
		c.counts[CountIPv4OnlyNodes]++
	case v6:
		c.counts[CountIPv6OnlyNodes]++
	}
}

// deleteNode forgets a node and remembers its podCIDRs as freed at o.
func (c *checker) deleteNode(st *nodeState, o *Observation) {
	name := st.node.Name
	for _, p := range st.cidrs {
		c.held.remove(p, name)
		c.freed.add(p, &freedBlock{prefix: p, node: name, at: o.Time, rv: o.RV, tenure: c.tenure})
	}
	delete(c.nodes, name)
	c.counts[CountNodesDeleted]++
}

// place judges podCIDR p, new on node n at o: no-overlap for every
// podCIDR; inside-active, no-block-for-deleting-node and recycle-delay for
// the ones NodeIPAM wrote (assigned, last written at the managedFields time
// at).
func (c *checker) place(o *Observation, st *nodeState, n *corev1.Node, p netip.Prefix, assigned bool, at time.Time) {
	var others []string
	for _, h := range c.held.overlapping(p) {
		if h.Value != n.Name {
			others = append(others, invariants.Overlap{Node: n.Name, NodePodCIDR: p, Other: h.Value, OtherPodCIDR: h.Prefix}.String())
		}
	}
	slices.Sort(others)
	for _, s := range others {
		c.violate(InvOverlap, o, "%s", s)
	}
	freed := c.freed.overlapping(p)
	for _, h := range freed {
		if p.Bits() <= h.Prefix.Bits() {
			c.freed.remove(h.Prefix, h.Value) // held again; a larger freed prefix may still be reused elsewhere
		}
	}
	if !assigned {
		c.counts[CountAdopted]++
		return
	}
	c.counts[CountAssigned]++
	if st.deleting && len(st.cidrs) == 0 {
		c.violate(InvDeletingNode, o, "node %s got podCIDR %s from %s while it was being deleted", n.Name, p, c.opts.FieldManager)
	}
	ok, race, why := c.nw.placement(p)
	switch {
	case !ok:
		c.violate(InvInsideActive, o, "node %s got podCIDR %s from %s, but %s", n.Name, p, c.opts.FieldManager, why)
	case race:
		c.counts[CountDrainingRace]++
	}
	for _, h := range freed {
		c.reuse(o, n, p, at, h.Value)
	}
}

// reuse judges recycle-delay for block p, written by NodeIPAM on node n at
// o (managedFields time at), over the freed podCIDR f.
func (c *checker) reuse(o *Observation, n *corev1.Node, p netip.Prefix, at time.Time, f *freedBlock) {
	c.counts[CountReuses]++
	if c.tenure != f.tenure {
		// The block went through a rebuild between its free and its reuse:
		// the persistence path (the block store) decided when it was safe,
		// not the memory of one leader.
		c.counts[CountReusesAcrossFailover]++
	}
	delaySeconds, wait := c.nw.policy()
	delay := time.Duration(delaySeconds) * time.Second
	// Both are upper bounds of when the write was stored: managedFields
	// time is truncated to the second, the recorder receives the event
	// after the write.
	reusedAt := o.Time
	if !at.IsZero() && at.Add(time.Second).Before(reusedAt) {
		reusedAt = at.Add(time.Second)
	}
	gap := reusedAt.Sub(f.at)
	if gap >= delay-c.opts.ClockSlack {
		return
	}
	if !wait {
		// ReuseOldest: handing out a block within its delay is the policy
		// (when every free block is quarantined), not a breach.
		c.counts[CountEarlyReusesReuseOldest]++
		return
	}
	msg := fmt.Sprintf("node %s got podCIDR %s from %s %s after node %s holding %s was deleted (RV %d), within recycleDelaySeconds %d (whenExhausted Wait)",
		n.Name, p, c.opts.FieldManager, gap.Round(time.Millisecond), f.node, f.prefix, f.rv, delaySeconds)
	why := "the same leader saw the deletion"
	switch {
	case c.quarantinedRV[f.prefix] > f.rv || c.quarantinedRV[p] > f.rv:
		why = "status.quarantine listed the block"
	case c.tenure != f.tenure:
		// No excuse for a fail-over: the block store makes the next
		// leader's rebuild quarantine every stored block no node holds,
		// issued ones from the rebuild, freed ones from their time
		// (docs/nodeipam.md).
		why = "the lease changed hands after the deletion, and the new leader's rebuild should have quarantined the block from the block store"
	}
	c.violate(InvRecycleDelay, o, "%s; %s", msg, why)
}

// holders returns the nodes holding a podCIDR overlapping r outside every
// other Active range, as "node (podCIDR)", sorted.
func (c *checker) holders(r *trackedRange) []string {
	var out []string
	for _, h := range c.held.overlapping(r.prefix) {
		if !c.nw.coveredByOtherActive(h.Prefix, r.name) {
			out = append(out, fmt.Sprintf("%s (%s)", h.Value, h.Prefix))
		}
	}
	slices.Sort(out)
	return out
}

func joinFirst(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
