package controllers

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/nodeipam"
	ctrl "sigs.k8s.io/controller-runtime"
)

// nodeIPAMState is the in-memory side of NodeIPAM, shared by the start-up
// rebuild and the two reconcilers. The allocator holds the block occupancy;
// the rest is what NodeIPAM knows about nodes between two reads of the API,
// which stays the source of truth. mu guards all of it and is held only for
// in-memory work, never across an API call (node-ipam-controller holds its
// lock across the node PATCH and serializes every allocation on it).
type nodeIPAMState struct {
	clock   clock.PassiveClock
	backoff *nodeipam.Backoff
	primary podnetworkv1alpha1.IPFamily

	mu    sync.Mutex
	alloc *allocator.Allocator // nil until the rebuild opened the gate
	cfg   nodeipam.Config
	cfgRV string // resourceVersion of the PodNetwork cfg was derived from
	// specGeneration is the PodNetwork generation cfg was derived from: a
	// nodeSelector edit changes the candidates without changing their names.
	specGeneration int64
	// nodes records the podCIDRs seen on, or written to, each node.
	nodes map[string]nodeRecord
	// inflight holds the blocks of node writes in progress or of unknown
	// outcome; they stay reserved until the node is read again.
	inflight map[string]inflightWrite
	// waiting are the nodes to retry when something may let them progress:
	// the gate opening, the ranges changing, a block being freed.
	waiting map[string]struct{}
	// firstSeen is when NodeIPAM first tried to allocate for a node still
	// without podCIDRs, for the allocation duration metric.
	firstSeen map[string]time.Time
	// conflicts are overlapping podCIDRs of node pairs, keyed by the sorted
	// pair of names.
	conflicts map[[2]string][]nodeipam.Conflict

	kickNodes   chan struct{} // coalesced: retry the waiting nodes
	kickNetwork chan struct{} // coalesced: reconcile the PodNetwork side
}

// nodeRecord is what NodeIPAM knows about a node that has podCIDRs.
type nodeRecord struct {
	uid   types.UID
	cidrs []netip.Prefix
	// ours is true when this process wrote the podCIDRs; podCIDRs it did not
	// write are checked against the blocks held for other nodes.
	ours bool
}

// inflightWrite is a podCIDR write NodeIPAM started for a node.
type inflightWrite struct {
	uid    types.UID
	blocks []netip.Prefix
	// uncertain is true once a write of these blocks failed without a
	// definite answer: it may have been stored, so the blocks are only given
	// up when the node is seen with other podCIDRs, and quarantined when it
	// is gone.
	uncertain bool
}

func newNodeIPAMState(clk clock.PassiveClock, backoff *nodeipam.Backoff, primary podnetworkv1alpha1.IPFamily) *nodeIPAMState {
	return &nodeIPAMState{
		clock:       clk,
		backoff:     backoff,
		primary:     primary,
		cfg:         nodeipam.NewConfig(nil),
		nodes:       map[string]nodeRecord{},
		inflight:    map[string]inflightWrite{},
		waiting:     map[string]struct{}{},
		firstSeen:   map[string]time.Time{},
		conflicts:   map[[2]string][]nodeipam.Conflict{},
		kickNodes:   make(chan struct{}, 1),
		kickNetwork: make(chan struct{}, 1),
	}
}

// open installs the allocator the rebuild filled and lets the reconcilers
// work; every node that asked before is retried.
func (s *nodeIPAMState) open(a *allocator.Allocator, cfg nodeipam.Config, cfgRV string, generation int64, nodes map[string]nodeRecord, conflicts []nodeipam.Conflict) {
	s.mu.Lock()
	s.alloc, s.cfg, s.cfgRV, s.specGeneration, s.nodes = a, cfg, cfgRV, generation, nodes
	for _, c := range conflicts {
		s.addConflictLocked(c)
	}
	s.mu.Unlock()
	s.kick()
}

// park reports whether the gate is still closed; the node is then retried
// when it opens.
func (s *nodeIPAMState) park(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc != nil {
		return false
	}
	s.waiting[name] = struct{}{}
	return true
}

// isOpen reports whether the rebuild finished.
func (s *nodeIPAMState) isOpen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.alloc != nil
}

// kick retries the waiting nodes and reconciles the PodNetwork side. Both
// signals coalesce, so kicking often is cheap.
func (s *nodeIPAMState) kick() {
	s.kickNodesNow()
	s.kickNetworkNow()
}

func (s *nodeIPAMState) kickNodesNow() {
	select {
	case s.kickNodes <- struct{}{}:
	default:
	}
}

func (s *nodeIPAMState) kickNetworkNow() {
	select {
	case s.kickNetwork <- struct{}{}:
	default:
	}
}

// waitingNodes returns the nodes to retry.
func (s *nodeIPAMState) waitingNodes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.waiting))
}

// sync applies the PodNetwork (nil when there is none) to the allocator:
// ranges and their phases, recycle policy and candidates. It is cheap when
// the PodNetwork did not change. Waiting nodes are retried when the ranges or
// the policy changed.
func (s *nodeIPAMState) sync(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork) error {
	rv := ""
	if pn != nil {
		rv = pn.ResourceVersion
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == nil || rv == s.cfgRV {
		return nil
	}
	next := nodeipam.NewConfig(pn)
	rangesChanged := !next.SameRanges(&s.cfg)
	if rangesChanged {
		if err := s.alloc.SetRanges(next.Ranges); err != nil {
			return fmt.Errorf("configuring the node allocator: %w", err)
		}
	}
	policyChanged := next.RecycleDelay != s.cfg.RecycleDelay || next.WhenExhausted != s.cfg.WhenExhausted
	if policyChanged {
		s.alloc.SetPolicy(next.RecycleDelay, next.WhenExhausted)
	}
	logConfigProblems(ctx, &s.cfg, &next)
	candidatesChanged := !slices.EqualFunc(s.cfg.Candidates, next.Candidates, func(x, y nodeipam.Candidate) bool { return x.Name == y.Name })
	specChanged := pn != nil && pn.Generation != s.specGeneration
	if pn != nil {
		s.specGeneration = pn.Generation
	}
	s.cfg, s.cfgRV = next, rv
	if rangesChanged || policyChanged || candidatesChanged || specChanged {
		ctrl.LoggerFrom(ctx).V(1).Info("Applied PodNetwork to the node allocator",
			"ranges", len(next.Ranges), "candidates", len(next.Candidates),
			"recycleDelay", next.RecycleDelay, "whenExhausted", next.WhenExhausted.String())
		s.kickNodesNow()
	}
	return nil
}

// logConfigProblems logs the ranges NodeIPAM cannot use and the invalid
// nodeSelector terms when they change. They are not errors of the
// reconcile: the range is rejected (Pending) or its terms match no node.
func logConfigProblems(ctx context.Context, prev, next *nodeipam.Config) {
	log := ctrl.LoggerFrom(ctx)
	for name, reason := range next.Unusable {
		if prev.Unusable[name] != reason {
			log.Info("Range cannot be used by the node allocator", "range", name, "reason", reason)
		}
	}
	for name, err := range next.SelectorErrors {
		if old, ok := prev.SelectorErrors[name]; !ok || old.Error() != err.Error() {
			log.Info("Range nodeSelector has invalid terms, which match no node", "range", name, "reason", err.Error())
		}
	}
}

// report computes the PodNetwork status fields NodeIPAM owns at now, and
// when they change next by themselves (a quarantined block becoming free).
func (s *nodeIPAMState) report(now time.Time) (rep nodeipam.Report, next time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == nil {
		return rep, 0, false
	}
	rep.Usage = make(map[string]podnetworkv1alpha1.RangeUsage, len(s.cfg.Ranges))
	for _, r := range s.cfg.Ranges {
		if u, err := s.alloc.Usage(r.Name, now); err == nil {
			rep.Usage[r.Name] = nodeipam.RangeUsage(u)
		}
	}
	q := s.alloc.Quarantine()
	rep.Quarantine = nodeipam.QuarantineStatus(q, s.cfg.RecycleDelay, now, allocator.DefaultMaxQuarantine)
	next, _ = nodeipam.NextExpiry(q, s.cfg.RecycleDelay, now)
	for _, cs := range s.conflicts {
		for _, c := range cs {
			rep.Conflicts = append(rep.Conflicts, c.String())
		}
	}
	slices.Sort(rep.Conflicts)
	return rep, next, true
}

// acks computes NodeIPAM's acknowledgements of the PodNetwork's ranges from
// what the allocator has applied (see nodeipam.Config.Ack); sync must have
// seen the same PodNetwork.
func (s *nodeIPAMState) acks(pn *podnetworkv1alpha1.PodNetwork, previous []podnetworkv1alpha1.ConsumerRangeStatus, now time.Time) []podnetworkv1alpha1.ConsumerRangeStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return podnetworkv1alpha1.Acks(pn, previous, metav1.NewTime(now), func(rs podnetworkv1alpha1.RangeStatus) (podnetworkv1alpha1.AckResult, string, bool) {
		return s.cfg.Ack(rs, s.busyLocked)
	})
}

// busyLocked reports whether a node write with a block inside p is in
// flight: a Draining range is acknowledged only once none is.
func (s *nodeIPAMState) busyLocked(p netip.Prefix) bool {
	for _, w := range s.inflight {
		if slices.ContainsFunc(w.blocks, p.Overlaps) {
			return true
		}
	}
	return false
}

// addConflictLocked records a pair of nodes with overlapping podCIDRs.
func (s *nodeIPAMState) addConflictLocked(c nodeipam.Conflict) {
	key := [2]string{c.Node, c.Other}
	if !slices.Contains(s.conflicts[key], c) {
		s.conflicts[key] = append(s.conflicts[key], c)
	}
}

// dropConflictsLocked forgets the conflicts of a node that is gone.
func (s *nodeIPAMState) dropConflictsLocked(name string) {
	maps.DeleteFunc(s.conflicts, func(k [2]string, _ []nodeipam.Conflict) bool { return k[0] == name || k[1] == name })
}
