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
	"errors"
	"net/netip"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"podnetwork.io/operator/internal/slimnode"
)

// This file is NodeIPAM's node decision as one call each way: before the
// read (BeforeRead: park, or where to read from), after it (Decide: the
// whole step for the node as one value), and after the I/O (Done: the
// outcome back). The node reconciler performs the step's I/O in order and
// decides nothing itself, so every interleaving of reads, writes and
// outcomes can be driven here with a fake clock.

// StaleCacheRetry is how soon a node is read again when the copy read does
// not show podCIDRs NodeIPAM already saw or wrote.
const StaleCacheRetry = time.Second

// ReadFrom says where the node reconciler reads a node from.
type ReadFrom int

const (
	// ReadCache: the manager's cache.
	ReadCache ReadFrom = iota
	// ReadAPI: the API server: a write to the node had an unknown outcome,
	// and a cache that may not show it yet must not be trusted.
	ReadAPI
	// ReadNothing: the state is closed (the rebuild has not finished, or a
	// recovery suspended it); the node is retried when it opens.
	ReadNothing
)

// BeforeRead says where to read the node from, or that there is nothing to
// do until the state opens.
func (s *State) BeforeRead(name string) ReadFrom {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.alloc == nil || s.suspended:
		s.waiting[name] = struct{}{}
		return ReadNothing
	case s.inflight[name].uncertain:
		return ReadAPI
	}
	return ReadCache
}

// NodeStep is what NodeIPAM does for one node, in this order: report the
// released blocks and the observation, write the block store (first, or
// soon), write the patch, report the node as unavailable, retry.
type NodeStep struct {
	// Released are the blocks a deleted or replaced node gave up, now
	// quarantined; Replaced says the node object was replaced, not deleted.
	// The waiting nodes are retried when there are any.
	Released []netip.Prefix
	Replaced bool
	// Observed is what the node's podCIDRs told, when it has some.
	Observed *Observation
	// StoreFirst: the block store must store Patch's blocks before the
	// patch is sent; when that write fails, the patch is not sent (Done
	// with WriteNotSent).
	StoreFirst bool
	// StoreSoon: the block store should be written without waiting for
	// it (the chunk ahead of need, or adopted podCIDRs).
	StoreSoon bool
	// Patch is the podCIDRs to write, nil when none.
	Patch *Patch
	// Unavailable is set when no block is free for the node.
	Unavailable *Unavailability
	// RetryAfter requeues the node after this long; zero does not.
	RetryAfter time.Duration
	// Parked is true when the state closed (a recovery): the node is
	// retried when it reopens.
	Parked bool
}

// Patch is a podCIDRs write: applied only to the node as read.
type Patch struct {
	Blocks          []netip.Prefix
	ResourceVersion string
	UID             types.UID
}

// Unavailability is a node that got no block.
type Unavailability struct {
	Err *UnavailableError
	// Families are the candidate ranges tried, per family.
	Families [][]string
	// Emit is true when a CIDRNotAvailable event is due (at most one per
	// backoff period).
	Emit bool
}

// Decide returns the step for the node as read; node is nil when its object
// is gone. It gives a node without podCIDRs one block per IP family from
// its candidate ranges, adopts podCIDRs NodeIPAM did not assign, and
// releases the blocks of a node once its object is gone (not when its
// deletion starts: finalizers may keep it, and its pods, around for long).
// An error is an allocation failure other than no free block.
func (s *State) Decide(name string, node *slimnode.Node) (NodeStep, error) {
	var step NodeStep
	if node == nil {
		step.Released = s.Gone(name)
		return step, nil
	}
	if step.Released = s.Replaced(name, node.UID); len(step.Released) > 0 {
		step.Replaced = true
	}
	if len(node.Spec.PodCIDRs) > 0 {
		o := s.Observe(node)
		step.Observed, step.StoreSoon = &o, o.RecordPending
		return step, nil
	}
	if !node.DeletionTimestamp.IsZero() {
		s.StopWaiting(name)
		return step, nil
	}
	alloc, err := s.Allocate(node)
	var ue *UnavailableError
	switch {
	case alloc.Stale:
		step.RetryAfter = StaleCacheRetry
		return step, nil
	case errors.Is(err, ErrRecordRewritten):
		step.Parked = true
		return step, nil
	case errors.As(err, &ue):
		if alloc.AnyCandidate {
			emit, retry := s.Unavailable(name, ue)
			step.Unavailable = &Unavailability{Err: ue, Families: alloc.Families, Emit: emit}
			step.RetryAfter = retry
		}
		return step, nil
	case err != nil:
		return step, err
	}
	step.StoreFirst, step.StoreSoon = alloc.RecordPending, alloc.RecordAhead
	step.Patch = &Patch{Blocks: alloc.Blocks, ResourceVersion: node.ResourceVersion, UID: node.UID}
	return step, nil
}

// WriteOutcome is what became of a step's writes.
type WriteOutcome int

const (
	// WriteStored: the API stored the patch.
	WriteStored WriteOutcome = iota
	// WriteNotSent: the patch was not sent (the block store write it
	// needed first failed, or the patch could not be built).
	WriteNotSent
	// WriteRejected: the API certainly stored nothing (a conflict, a
	// validation error, the node gone).
	WriteRejected
	// WriteUnknown: the patch may or may not have been stored.
	WriteUnknown
)

// Done takes back the outcome of a step's patch: a stored patch confirms
// its blocks and returns how long the node waited for them; a patch not
// sent or certainly not stored returns them to the pool exactly as they
// were (a node whose earlier attempt had an unknown outcome keeps them);
// one of unknown outcome keeps them until the node is read again from the
// API server (BeforeRead says ReadAPI).
func (s *State) Done(name string, p *Patch, o WriteOutcome) (waited time.Duration) {
	switch o {
	case WriteStored:
		return s.Written(name, p.UID, p.Blocks)
	case WriteUnknown:
		s.Uncertain(name)
	case WriteNotSent, WriteRejected:
		s.Rejected(name)
	}
	return 0
}
