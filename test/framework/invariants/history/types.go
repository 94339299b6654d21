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

import "time"

// Observation is one change a recorder saw on a watch.
type Observation struct {
	// RV is the object's resourceVersion. etcd has one revision counter for
	// every kind, so RVs order changes of different objects too.
	RV int64
	// Time is the recorder's wall clock when it received the event.
	Time time.Time
	// Object is a *corev1.Node, *v1alpha1.PodNetwork,
	// *v1alpha1.PodNetworkConsumer, *coordinationv1.Lease or
	// *v1alpha1.AutoscaledRangeSet (the autoscaler's declared ranges, for
	// their nodeSelectors); other kinds are ignored.
	Object Object
	// Deleted is true for a watch DELETED event (Object is then the last
	// state, RV the revision of the deletion).
	Deleted bool
}

// Write is one mutating request the fault proxy forwarded for an operator
// process.
type Write struct {
	// Process is the operator process that sent it (e.g. "op-0").
	Process string
	// Start is when the proxy received the request, End when it answered.
	Start, End time.Time
	// Verb, Resource, Subresource, Namespace and Name say what was written
	// (Verb as in the API server's audit: create, update, patch, delete).
	Verb, Resource, Subresource, Namespace, Name string
	// Code is the HTTP status returned to the client, 0 if the connection
	// was reset.
	Code int
	// RV is the resourceVersion of the object in the response body when
	// Code is 2xx, else 0.
	RV int64
}

// Landed reports whether the API server stored the write (a 2xx answer).
// A write whose answer was lost may have landed too; only its RV, seen in
// the observations, would tell.
func (w *Write) Landed() bool { return w.Code >= 200 && w.Code < 300 }

// Options tune Check. The zero value checks with the defaults.
type Options struct {
	// FieldManager is NodeIPAM's field manager on Nodes
	// (invariants.DefaultFieldManager when empty): podCIDRs it owns were
	// written by NodeIPAM, others were adopted.
	FieldManager string
	// LeaseNamespace and LeaseName name the operator's leader-election
	// Lease (LeaseName defaults to "podnetwork-operator"; an empty
	// LeaseNamespace matches any namespace).
	LeaseNamespace, LeaseName string
	// Identities maps a Lease holderIdentity to the Process that used it,
	// when known. Check adds what it can derive itself: a landed write to
	// the Lease by process P whose RV is an observation of the Lease
	// holding identity H maps H to P.
	Identities map[string]string
	// FaultsEnd is when the last fault stopped. The liveness invariants
	// judge the end of the history, which must come after it; zero means
	// the whole history was fault-free.
	FaultsEnd time.Time
	// NodeIPAMConsumer is the name of NodeIPAM's PodNetworkConsumer
	// ("node-ipam" when empty), whose Draining acknowledgement closes the
	// window in which a node write may still land in a Draining range.
	NodeIPAMConsumer string
	// ClockSlack is how much closer together than recycleDelaySeconds a
	// deletion and a reuse may look before the reuse counts as too early
	// (default 1s, see the package documentation). Negative means none.
	ClockSlack time.Duration
}

// Violation is one breach of an invariant.
type Violation struct {
	// Invariant is one of the Inv* names.
	Invariant string
	// RV is the resourceVersion of the observation that shows the breach
	// (for a liveness breach, the last observation of the object judged;
	// for no-write-without-lease, the write's RV if it landed, else 0).
	RV int64
	// Time is that observation's Time (for no-write-without-lease, when the
	// write was sent).
	Time time.Time
	// Message says what happened, in words.
	Message string
	// Process is the process whose landed write produced RV, when a Write
	// with that RV is known.
	Process string
	// StaleWrite is true when that write is one of Report.StaleWrites: the
	// process no longer held the lease.
	StaleWrite bool
}

// Report is what Check found.
type Report struct {
	// Violations are sorted by RV, then invariant.
	Violations []Violation
	// Counts are what the history contained; the keys are the Count*
	// constants, transitions as CountTransition+"Pending->Active" and
	// writes as CountWrites+process.
	Counts map[string]int
	// StaleWrites are the writes a process made (or that landed) when it no
	// longer held the lease, in Start order; Stale says why for each.
	StaleWrites []Write
	// Stale are the same writes with the reason.
	Stale []StaleWrite
}

// StaleWrite is a write made without the lease, and why it is stale.
type StaleWrite struct {
	Write
	// Reason says why, in words: the lease had expired, another holder had
	// acquired it, or the write landed after another holder acquired it.
	Reason string
}

// The invariants, in the order Table lists them. The package documentation
// defines each.
const (
	InvShape            = "shape"
	InvOverlap          = "no-overlap"
	InvInsideActive     = "inside-active"
	InvDeletingNode     = "no-block-for-deleting-node"
	InvActivationAcked  = "activation-acked"
	InvReleaseNoHolders = "release-without-holders"
	InvPurgeAcked       = "purge-acked"
	InvRecycleDelay     = "recycle-delay"
	InvLivenessNodes    = "liveness-nodes"
	InvLivenessReady    = "liveness-ready"
	// InvWriteWithoutLease is a write other than an Event that a process
	// sent, or that landed, without the lease (a Report.StaleWrites entry).
	InvWriteWithoutLease = "no-write-without-lease"
)

// Invariants lists every invariant Check judges, in Table order.
var Invariants = []string{
	InvShape, InvOverlap, InvInsideActive, InvDeletingNode, InvActivationAcked,
	InvReleaseNoHolders, InvPurgeAcked, InvRecycleDelay, InvLivenessNodes, InvLivenessReady,
	InvWriteWithoutLease,
}

// Count keys of Report.Counts.
const (
	// CountObservations is the number of distinct observations replayed.
	CountObservations = "observations"
	// CountNodes is the number of distinct Node objects (name and uid) seen.
	CountNodes = "nodes"
	// CountNodesDeleted is the number of Node deletions seen.
	CountNodesDeleted = "nodes deleted"
	// CountAssigned is the number of podCIDR assignments NodeIPAM wrote.
	CountAssigned = "podCIDRs assigned by NodeIPAM"
	// CountAdopted is the number of podCIDR assignments by anyone else.
	CountAdopted = "podCIDRs set by others"
	// CountDrainingRace is the number of NodeIPAM writes that landed in a
	// range already Draining but before NodeIPAM acknowledged Draining:
	// legal, and the race invariant inside-active is precise about.
	CountDrainingRace = "writes landing in Draining before node-ipam's ack"
	// CountReuses is the number of NodeIPAM assignments of a freed block.
	CountReuses = "freed blocks reused"
	// CountReusesAcrossFailover is the number of those reuses where the
	// lease changed hands (a new tenure began) between the deletion of the
	// node that held the block and the reuse.
	CountReusesAcrossFailover = "freed blocks reused across a fail-over"
	// CountEarlyReusesReuseOldest is the number of those reuses that came
	// within the recycle delay while the PodNetwork said whenExhausted
	// ReuseOldest: legal, and not judged by recycle-delay.
	CountEarlyReusesReuseOldest = "freed blocks reused early under ReuseOldest"
	// CountDualStackNodes, CountIPv4OnlyNodes and CountIPv6OnlyNodes count
	// the nodes NodeIPAM gave their first podCIDRs, by the IP families
	// those cover.
	CountDualStackNodes = "nodes given podCIDRs of both families"
	CountIPv4OnlyNodes  = "nodes given an IPv4 podCIDR only"
	CountIPv6OnlyNodes  = "nodes given an IPv6 podCIDR only"
	// CountLeaseHolders is the number of lease tenures (holder, acquireTime).
	CountLeaseHolders = "lease tenures"
	// CountStaleWrites and CountStaleLanded count Report.StaleWrites, and
	// those of them the API server stored.
	CountStaleWrites = "stale writes"
	CountStaleLanded = "stale writes landed"
	// CountUnjudged counts writes whose staleness the history cannot tell:
	// no Lease was observed, or the holder at the time is an identity of no
	// known process.
	CountUnjudged = "writes not judged against the lease"
	// CountTransition prefixes range phase transitions, e.g.
	// "transition Pending->Active"; "(new)" and "(purged)" stand for a range
	// starting or ending being tracked.
	CountTransition = "transition "
	// CountWrites prefixes the writes of each process, Lease writes
	// included.
	CountWrites = "writes by "
)
