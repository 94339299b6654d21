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

package blockstore

import (
	"net/netip"
	"time"

	"go4.org/netipx"
)

// Section is one outermost tracked range and the size of its blocks: the
// unit the store's runs count in. Ranges nested in another share its
// section.
type Section struct {
	Prefix       netip.Prefix
	NodeMaskSize int
}

// Freed is a set of addresses known free since At: none of its blocks was
// handed out between At and the write that stored it, and none can be
// after it without a write that moves it to Issued first.
type Freed struct {
	Range netipx.IPRange
	At    time.Time
}

// Content is what the store holds. Issued wins where the two overlap.
type Content struct {
	// Issued are the blocks a node may hold or may have freed since the
	// write without the store knowing. Addresses outside every section
	// are kept as they are (orphans).
	Issued *netipx.IPSet
	// Freed are the blocks known free since their time. Parts outside
	// every section, or not whole blocks, are stored as Issued.
	Freed []Freed
}

// Coarsening says what Encode gave up to fit the size budget. Both only
// ever quarantine more: a freed run stored as issued waits a full delay
// from the next rebuild instead of from its time, and a filled gap (blocks
// free past their delay, or never used) waits too.
type Coarsening struct {
	// FreedAsIssued counts the freed blocks stored as issued.
	FreedAsIssued int
	// GapBlocksFilled counts the free blocks stored as issued to merge
	// the runs around them.
	GapBlocksFilled int
}

// Any reports whether anything was coarsened.
func (c Coarsening) Any() bool { return c.FreedAsIssued > 0 || c.GapBlocksFilled > 0 }

// DefaultBudget is the encoded size Encode keeps under: below the 1 MiB a
// ConfigMap's data may hold, with room for its metadata.
const DefaultBudget = 900 << 10
