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

// Package history checks the operator's promises over a whole recorded
// history, not only over the end state: a recorder watches Nodes,
// PodNetworks, PodNetworkConsumers, the leader-election Lease and (when the
// autoscaler runs) AutoscaledRangeSets, the fault
// proxy logs every write an operator process sends, and Check replays the
// observations in resourceVersion order (etcd's single revision counter
// orders changes of every kind), so "at that moment" means "after every
// change with a smaller RV and before every change with a larger one".
//
// Like test/framework/invariants, whose per-node rules it reuses (Shape, PodCIDRs,
// AssignedBy, Overlap), it is independent of the operator's code: it reads
// only the API types and the protocol helpers of api/v1alpha1 that define
// what an acknowledgement is (AckState). NodeSelectors are matched with the
// scheduler's own implementation (k8s.io/component-helpers), not
// NodeIPAM's.
//
// # Terms
//
// A podCIDR was written by NodeIPAM when the node's managedFields show
// Options.FieldManager owning spec.podCIDRs, or when the observation's RV
// is that of a landed write to the node by an operator process (so a
// recorder that strips managedFields loses nothing); other podCIDRs are
// adopted (kube-controller-manager, by hand) and only no-overlap and shape
// judge them. A podCIDR appears at the first observation of its node that
// lists it; that observation's RV is the write's RV. A consumer is required at an
// RV when its PodNetworkConsumer exists then with spec.required true or
// unset and no deletionTimestamp. A required consumer acked phase P of range
// (name, cidr) at an RV when its status.ranges then has an entry that
// v1alpha1.AckState counts: the same name, cidr and phase P, result
// Accepted (docs/protocol.md, "What makes an acknowledgement count"). A
// range transition is the difference between two consecutive PodNetwork
// observations in status.ranges of a name: a new name or a new cidr under a
// name is "(new)", a phase change is a transition, a name or cidr gone is
// "(purged)"; the first PodNetwork observation of a history has no
// predecessor and transitions nothing. A deleted PodNetwork has no ranges.
//
// # Invariants
//
// shape: every observed node has at most one podCIDR per IP family, and
// spec.podCIDR equals spec.podCIDRs[0] (invariants.Shape, reported once per
// node and problem).
//
// no-overlap (1): when a podCIDR appears on a node, no other existing node
// holds an overlapping podCIDR. Nodes are indexed by prefix, so this holds
// at every RV, not only at the end. A node is gone at its DELETED
// observation (or when a new uid shows up under its name).
//
// inside-active (2): a podCIDR NodeIPAM writes at RV w lies, at w, in a
// tracked range (status.ranges) that is either Active, or Draining while
// NodeIPAM's consumer (Options.NodeIPAMConsumer) does not ack Draining of
// it; and it is a block of that range's nodeMaskSize. The Draining half is
// the protocol's race, stated exactly: NodeIPAM reserves a block from a
// range it saw Active, the lifecycle may move the range to Draining before
// the PATCH lands, and NodeIPAM acks Draining only once no node write with a
// block in the range is in flight or of unknown outcome (docs/nodeipam.md,
// Handshake). So a write that lands after Draining but before that ack is
// legal (counted as CountDrainingRace), one that lands after the ack, or in
// a Pending or Released range, or outside every tracked range, is not. The
// ack is judged as the protocol counts it, by its content at w, so an ack
// of Draining left over from an earlier Draining of the same range closes
// the window too: the lifecycle would count it.
//
// no-block-for-deleting-node: NodeIPAM never gives a first podCIDR to a
// node whose previous observation had a deletionTimestamp (its merge patch
// carries the resourceVersion it read, so it cannot land on a node whose
// deletion started since).
//
// activation-acked (3): when a range becomes Active other than from
// Draining (from Pending, or new and activated in the same write), every
// consumer required at that RV acked Pending of it (name, cidr). Draining ->
// Active (back in the spec) needs no acknowledgement.
//
// release-without-holders (4): when a range becomes Released from a phase
// other than Pending (a Pending range never handed out blocks), no node
// existing at that RV holds a podCIDR overlapping it that lies outside
// every other range the same PodNetwork observation shows Active (the
// lifecycle's holder rule, evaluated on the status it wrote).
//
// purge-acked (5): when a range is purged (its name or cidr leaves
// status.ranges), every consumer required at that RV acked Released of it.
//
// recycle-delay (6): when NodeIPAM writes a podCIDR overlapping one a
// deleted node held, and the PodNetwork at that RV says whenExhausted Wait,
// reuse - deletion >= recycleDelaySeconds (the value at the reuse, as
// NodeIPAM applies it) - Options.ClockSlack. Deletion is the DELETED
// observation's Time (when a new uid shows up under the name without it,
// the old object's last observation: the earliest it can have gone). Reuse is the earlier of two upper bounds of when the
// write was stored: its observation's Time, and NodeIPAM's managedFields
// time (whole seconds, truncated) plus one second. The slack (1s by
// default) covers NodeIPAM seeing the deletion slightly before the
// recorder does, and the whole-second freedAt of a restored quarantine
// (rounded up, so never shorter). whenExhausted is PodNetwork-wide, so
// every range is under the policy the PodNetwork has at the reuse's RV:
// under ReuseOldest any reuse is legal (one within the delay is counted,
// CountEarlyReusesReuseOldest), and a delay of 0 makes any gap legal. There
// is no excuse for a fail-over or for downtime: a block freed before the
// last write of NodeIPAM's block store, or while no leader ran, is issued
// in the store, which the next leader's rebuild quarantines from the
// rebuild time, and one the store lists as freed waits from its own time
// (docs/nodeipam.md, "The block store"), so an early reuse is a violation
// whoever led at the deletion.
//
// liveness-ready (7): the last PodNetwork observation has Ready=True for
// its current generation (condition observedGeneration equals
// metadata.generation). A history whose PodNetwork ends deleted or being
// deleted, or never had one, has nothing to judge.
//
// liveness-nodes (7): at the end, no existing node without a
// deletionTimestamp is left without podCIDRs although NodeIPAM could give
// it blocks: the families with a candidate range matching the node are not
// empty, and each has a candidate with a free block. A candidate is an
// Active range without invalidReason that is declared, in spec.ranges or
// in AutoscaledRangeSet default's spec (for its nodeSelector; the spec's
// wins for a name and cidr both declare, as in the lifecycle's union), and
// not strictly inside another Active range (the supernet's blocks and
// selector count). A free block is a whole block of
// the range's nodeMaskSize overlapped by no existing node's podCIDR and,
// under whenExhausted Wait, by no podCIDR freed less than
// recycleDelaySeconds plus the slack before the end. The end is the latest
// observation Time; it must not come before Options.FaultsEnd (a history
// that stops before the faults do shows no recovery, and both liveness
// invariants report it). The harness should stop recording once the system
// has settled (or a deadline passed), so a node that joined a moment before
// the end is not judged too early.
//
// # Stale writes (8)
//
// The Lease observations make a list of tenures: one holderIdentity from
// one acquireTime on (holder "" when the lease is released or deleted),
// each with its renewTimes. Identities maps holders to processes; Check
// adds every holder whose Lease observation has the RV of a landed Lease
// write by a process. A write other than to the Lease itself, sent (Start)
// at t by process P, is stale when the tenure in effect at t (the last one
// acquired at or before t) is not P's (another holder acquired it, nobody
// holds it, or none was acquired yet), or when t is later than P's last
// renewTime at or before t plus leaseDurationSeconds (its lease expired);
// or, for a landed write, when the tenure at its RV is another process's
// (it landed after another holder acquired the lease). All clocks are the
// one machine's. A write is not judged when no Lease was observed or the
// holder at t maps to no process (CountUnjudged). Every violation whose RV
// is a landed write's is attributed to that write's process, and marked
// StaleWrite when the write is stale.
//
// no-write-without-lease (8): every stale write is a violation, whether
// it landed or not, an Event included. The operator fences every write on
// its lease, so one sent without it is a hole in the fence even when the
// apiserver refused it or it did no harm this time. The violation's
// RV is the write's when it landed (0 otherwise), its Time when it was sent,
// and its message names the process, verb, resource, object, answer and
// why the write is stale.
//
// # Cost
//
// Check sorts the observations once and replays each in O(1) map lookups
// per podCIDR (prefixIndex keys prefixes by family and length), so a
// history of hundreds of thousands of observations checks in about a
// second. Range transitions scan only the consumers and the podCIDRs inside
// the range.
package history
