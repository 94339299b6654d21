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
	"bytes"
	"fmt"
	"slices"
)

// This file decides whether the block store the API holds is still
// the one this leader wrote (issue #31, point 4). Anyone may rewrite the
// ConfigMap: an exported copy re-applied, a GitOps sync, a restore, another
// NodeIPAM leader claiming it. The claim annotation alone cannot tell: an
// export taken while this leader ran carries its claim. The resourceVersion
// can: every write of the object gives it a new one, and each write of this
// leader is conditional on the version it wrote before, so as long as the
// API holds the version its last write returned, nobody else wrote since.
// Any other version is someone else's, unless it is a write of this leader
// whose answer was lost (same claim, content it sent), or a change of
// metadata only (same claim, content it stored): content is what the next
// leader trusts, and content this leader wrote may be trusted.

// RecordVersion is a version of the record as read from the API server.
type RecordVersion struct {
	// Exists is false when there is no record.
	Exists          bool
	ResourceVersion string
	// Claim is its claim annotation, empty when it has none.
	Claim string
	// MetadataOnly is true when only its metadata was read: Data is
	// unknown, not empty.
	MetadataOnly bool
	// Data is the encoded store (blockstore.Encode).
	Data []byte
}

// RecordWrites is what a leader knows of its own writes of the record
// since it claimed it.
type RecordWrites struct {
	// ResourceVersion is the one the API server answered this leader's
	// last stored write with, or that it adopted (RecordAdopt).
	ResourceVersion string
	// Claim is this leader's claim.
	Claim string
	// Stored is the data of that version.
	Stored []byte
	// Unknown are the data of the writes since whose outcome is unknown:
	// any of them may have been stored.
	Unknown [][]byte
}

// RecordVerdict is what JudgeRecord found.
type RecordVerdict int

const (
	// RecordUnchanged: the API holds the version this leader wrote last.
	RecordUnchanged RecordVerdict = iota
	// RecordNeedsData: the version moved and only metadata was read; read
	// the data to tell.
	RecordNeedsData
	// RecordAdopt: another version, with this leader's claim and data it
	// wrote: a write whose answer was lost, or an edit of labels or
	// annotations. Its resourceVersion becomes the one to write on.
	RecordAdopt
	// RecordDeleted: there is no record; this leader writes it again from
	// what it knows, which lost nothing.
	RecordDeleted
	// RecordRewritten: someone else wrote it. Its content is untrusted, and
	// this leader's own view may be stale (another NodeIPAM may have
	// allocated): allocate nothing until rebuilt (Rebuild.DistrustRecord).
	RecordRewritten
)

// JudgeRecord tells whether seen, the record as just read, is a version
// this leader wrote (own), and says what it found when it is not.
func JudgeRecord(seen RecordVersion, own RecordWrites) (RecordVerdict, string) {
	switch {
	case !seen.Exists:
		return RecordDeleted, "the store was deleted"
	case seen.ResourceVersion == own.ResourceVersion:
		return RecordUnchanged, ""
	}
	moved := fmt.Sprintf("the store's resourceVersion is %s, not %s as this leader's last write left it", seen.ResourceVersion, own.ResourceVersion)
	switch {
	case seen.Claim == "":
		return RecordRewritten, moved + ", and it has no claim annotation: another client rewrote it (an exported copy re-applied, a GitOps sync, a restore)"
	case seen.Claim != own.Claim:
		return RecordRewritten, moved + ", and another claim: another NodeIPAM leader claimed it, or another client rewrote it with an older copy"
	case seen.MetadataOnly:
		return RecordNeedsData, ""
	case bytes.Equal(seen.Data, own.Stored) || slices.ContainsFunc(own.Unknown, func(d []byte) bool { return bytes.Equal(seen.Data, d) }):
		return RecordAdopt, ""
	}
	return RecordRewritten, moved + ", with this leader's claim but content it did not write: another client rewrote it (an exported copy re-applied?)"
}
