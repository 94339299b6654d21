package controllers

import (
	"context"
	"net/netip"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"podnetwork.io/operator/internal/nodeipam"
	ctrl "sigs.k8s.io/controller-runtime"
)

// This file holds what nodeIPAMState does for one node. Every method runs
// under the state's mutex only for its in-memory work; logging and kicks
// happen after it is released.

// allocation is the outcome of nodeIPAMState.allocate.
type allocation struct {
	// blocks to write, one per family, primary family first.
	blocks []netip.Prefix
	// families are the candidate ranges tried, per family.
	families [][]string
	// anyCandidate is false when no range is Active at all: the node
	// simply waits, there is nothing to warn about.
	anyCandidate bool
	// stale is true when NodeIPAM already wrote or saw podCIDRs on this node
	// that the cached copy does not show yet.
	stale bool
}

// allocate picks the blocks to write to a node without podCIDRs: the blocks
// of a write still in flight for it, or new ones from its candidate ranges,
// reserved in one all-or-nothing step. On failure the node waits for a
// range or a freed block.
func (s *nodeIPAMState) allocate(node *corev1.Node) (allocation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec, ok := s.nodes[node.Name]; ok && rec.uid == node.UID && len(rec.cidrs) > 0 {
		return allocation{blocks: rec.cidrs, stale: true}, nil
	}
	if w, ok := s.inflight[node.Name]; ok {
		return allocation{blocks: w.blocks, anyCandidate: true}, nil
	}
	now := s.clock.Now()
	if _, ok := s.firstSeen[node.Name]; !ok {
		s.firstSeen[node.Name] = now
	}
	out := allocation{
		families:     nodeipam.Choose(s.cfg.Candidates, node.Name, node.Labels, s.primary),
		anyCandidate: len(s.cfg.Candidates) > 0,
	}
	blocks, err := nodeipam.Allocate(s.alloc, node.Name, out.families, now)
	if err != nil {
		s.waiting[node.Name] = struct{}{}
		return out, err
	}
	out.blocks = blocks
	s.inflight[node.Name] = inflightWrite{uid: node.UID, blocks: blocks}
	delete(s.waiting, node.Name)
	return out, nil
}

// pending returns the write in flight for a node, if any.
func (s *nodeIPAMState) pending(name string) (inflightWrite, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.inflight[name]
	return w, ok
}

// written records that the API stored blocks as the node's podCIDRs, and
// returns how long the node waited for them since NodeIPAM first tried.
func (s *nodeIPAMState) written(name string, uid types.UID, blocks []netip.Prefix) time.Duration {
	s.mu.Lock()
	var waited time.Duration
	if first, ok := s.firstSeen[name]; ok {
		waited = s.clock.Since(first)
		delete(s.firstSeen, name)
	}
	delete(s.inflight, name)
	for _, b := range blocks {
		_ = s.alloc.Reserve(name, b) // confirms the assignment; fails only for an empty name
	}
	s.nodes[name] = nodeRecord{uid: uid, cidrs: blocks, ours: true}
	delete(s.waiting, name)
	s.backoff.Forget(name)
	s.mu.Unlock()
	s.kickNetworkNow()
	return waited
}

// rejected records that the API certainly did not store the node's write
// (a conflict, a validation error): its blocks go back to the pool exactly
// as they were, without quarantine. A write whose earlier attempt had an
// unknown outcome keeps its blocks: that attempt may have been stored.
func (s *nodeIPAMState) rejected(name string) {
	s.mu.Lock()
	w, ok := s.inflight[name]
	if ok && !w.uncertain {
		delete(s.inflight, name)
		s.alloc.Unassign(name)
	}
	s.mu.Unlock()
	s.kick()
}

// uncertain records that the node's write failed without a definite answer.
func (s *nodeIPAMState) uncertain(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.inflight[name]; ok {
		w.uncertain = true
		s.inflight[name] = w
	}
}

// stopWaiting drops a node from the retry set (it is being deleted).
func (s *nodeIPAMState) stopWaiting(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiting, name)
	delete(s.firstSeen, name)
	s.backoff.Forget(name)
}

// gone releases the blocks of a node whose object no longer exists, into
// quarantine, and forgets the node.
func (s *nodeIPAMState) gone(ctx context.Context, name string) {
	s.mu.Lock()
	released := s.goneLocked(name)
	s.mu.Unlock()
	if len(released) > 0 {
		ctrl.LoggerFrom(ctx).Info("Released podCIDRs of a deleted node", "podCIDRs", released)
		s.kick()
	}
}

// replaced treats the node object NodeIPAM knew under this name as gone when
// the name now belongs to another object (it was deleted and created again
// between two reads), so the old object's blocks are quarantined rather than
// handed to the new one.
func (s *nodeIPAMState) replaced(ctx context.Context, name string, uid types.UID) {
	s.mu.Lock()
	rec, known := s.nodes[name]
	w, writing := s.inflight[name]
	var released []netip.Prefix
	if (known && rec.uid != uid) || (writing && w.uid != uid) {
		released = s.goneLocked(name)
	}
	s.mu.Unlock()
	if len(released) > 0 {
		ctrl.LoggerFrom(ctx).Info("Released podCIDRs of a replaced node object", "podCIDRs", released)
		s.kick()
	}
}

func (s *nodeIPAMState) goneLocked(name string) []netip.Prefix {
	released := s.alloc.Release(name, s.clock.Now())
	delete(s.nodes, name)
	delete(s.inflight, name)
	delete(s.waiting, name)
	delete(s.firstSeen, name)
	s.dropConflictsLocked(name)
	s.backoff.Forget(name)
	return released
}

// observe records the podCIDRs a node has. podCIDRs NodeIPAM wrote confirm
// their reservation; others (set before NodeIPAM ran, or by another
// allocator) are adopted: reserved wherever they fall, never overwritten,
// and checked against the blocks held for other nodes. A write still in
// flight with other blocks was certainly not stored (podCIDRs cannot
// change), so those blocks go back to the pool.
func (s *nodeIPAMState) observe(ctx context.Context, node *corev1.Node) {
	cidrs := parsePodCIDRs(node.Spec.PodCIDRs)
	s.mu.Lock()
	rec, known := s.nodes[node.Name]
	if known && rec.uid == node.UID && slices.Equal(rec.cidrs, cidrs) {
		s.mu.Unlock()
		return
	}
	ours := known && rec.uid == node.UID && rec.ours
	if w, ok := s.inflight[node.Name]; ok {
		delete(s.inflight, node.Name)
		if slices.Equal(w.blocks, cidrs) {
			ours = true
		} else {
			s.alloc.Unassign(node.Name)
		}
	}
	for _, p := range cidrs {
		_ = s.alloc.Reserve(node.Name, p) // fails only for an empty name
	}
	s.nodes[node.Name] = nodeRecord{uid: node.UID, cidrs: cidrs, ours: ours}
	delete(s.waiting, node.Name)
	delete(s.firstSeen, node.Name)
	s.backoff.Forget(node.Name)
	var found []nodeipam.Conflict
	if !ours {
		found = s.conflictsLocked(node.Name, cidrs)
		for _, c := range found {
			s.addConflictLocked(c)
		}
	}
	s.mu.Unlock()

	log := ctrl.LoggerFrom(ctx)
	if !ours {
		log.V(1).Info("Adopted podCIDRs NodeIPAM did not assign", "podCIDRs", cidrs)
	}
	for _, c := range found {
		log.Info("Node has a podCIDR overlapping another node's: another allocator is at work",
			"podCIDR", c.Prefix, "otherNode", c.Other, "otherPodCIDR", c.OtherPrefix, "conflict", c.String())
	}
	s.kickNetworkNow()
}

// conflictsLocked returns the overlaps of name's podCIDRs with the podCIDRs
// of, or blocks held for, other nodes.
func (s *nodeIPAMState) conflictsLocked(name string, cidrs []netip.Prefix) []nodeipam.Conflict {
	var out []nodeipam.Conflict
	for _, other := range s.alloc.Conflicts(name) {
		theirs := slices.Concat(s.nodes[other].cidrs, s.inflight[other].blocks)
		for _, p := range cidrs {
			for _, q := range theirs {
				if p.Overlaps(q) {
					out = append(out, nodeipam.NewConflict(nodeipam.Holding{Node: name, Prefix: p}, nodeipam.Holding{Node: other, Prefix: q}))
				}
			}
		}
	}
	return out
}

// parsePodCIDRs parses node.spec.podCIDRs. The apiserver validates them, so
// an entry that does not parse only comes from a broken object and is
// skipped.
func parsePodCIDRs(cidrs []string) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(cidrs))
	for _, c := range cidrs {
		if p, err := netip.ParsePrefix(c); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}
