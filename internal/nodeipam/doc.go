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

// Package nodeipam is the decision logic of the built-in NodeIPAM: it turns
// the PodNetwork into allocator ranges and candidate ranges, picks the
// ranges a Node may get its blocks from, asks the allocator for all families
// at once, decides when a CIDRNotAvailable event may be emitted again, and
// computes what NodeIPAM reports into the PodNetwork status.
//
// State is its stateful core (state*.go, rebuild.go): the allocator plus what
// NodeIPAM knows about nodes between two reads of the API. It decides
// reservation, adoption, conflicts, return-to-pool and quarantine, on an
// injected clock. Nothing here talks to the API server or logs;
// controllers/nodeipam translates watch events into calls of State, writes
// the results and triggers the work they call for.
//
// The block store (record.go, state_record.go, package blockstore) holds
// the blocks NodeIPAM issued and does not know to be free, and the blocks
// it freed with their time; State decides which chunks must be issued
// before a block is written to a node, what the rebuild quarantines from
// it, and what it may forget. The node reconciler asks State for one step
// per node (decide.go).
//
// # Candidate order
//
// A Node may get a block from an Active range whose nodeSelector matches it
// (terms OR-ed, expressions and fields of a term AND-ed, an unset selector
// matches every Node, a selector with no terms matches none). A range strictly
// inside another Active range is not a candidate on its own: its blocks are
// the supernet's blocks, the supernet's selector decides, and the allocator
// keeps both in step. Per IP family the candidates are tried in this order:
//
//  1. the most specific match first: the number of requirements (match
//     expressions plus match fields) of the best matching term, an unset
//     selector counting zero, so a range reserved for a node pool wins over
//     a catch-all range;
//  2. then the narrower range (longer prefix), so small ranges fill up
//     before large ones are cut into;
//  3. then the range name, so the order is total and stable.
//
// A range whose blocks are all allocated or quarantined is skipped for the
// next one of its family; the Node gets nothing only when some family has no
// usable candidate left.
package nodeipam
