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

// Package blockstore is the wire format of NodeIPAM's block store: what
// NodeIPAM knows about the blocks it issued and freed, written to a
// ConfigMap's binaryData before the node writes it protects and read back
// once at a rebuild (docs/nodeipam.md, "The block store").
//
// The content is two disjoint address sets: Issued, the blocks that may be
// held by a node or may have been freed since the write without the store
// knowing (quarantined from the rebuild), and Freed, blocks known free since
// a time (quarantined from that time). Anything else is free past its
// delay. The encoding is run-length over the block indices of each
// outermost range (a section), one varint pair a run, so its size grows
// with the fragmentation, not with the size of the ranges: about 4 bytes a
// run, 6 with a time. A content over the size budget is coarsened, only
// ever towards more quarantine (Coarsen).
package blockstore
