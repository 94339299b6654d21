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
	"testing"

	. "github.com/onsi/gomega"
)

func TestJudgeRecord(t *testing.T) {
	stored := []byte("10.0.0.0/17\n")
	lost := []byte("10.0.0.0/16\n")
	export := []byte("10.0.0.0/18\n")
	own := RecordWrites{ResourceVersion: "10", Claim: "mine", Stored: stored}
	withLost := own
	withLost.Unknown = [][]byte{lost}
	tests := []struct {
		name        string
		seen        RecordVersion
		own         RecordWrites
		want        RecordVerdict
		wantFinding string
	}{
		{
			name: "the version this leader wrote last",
			seen: RecordVersion{Exists: true, ResourceVersion: "10", Claim: "mine", MetadataOnly: true},
			own:  own, want: RecordUnchanged,
		},
		{
			// The claim annotation is not enough: an export carries it.
			name: "another version with this leader's claim: read the data",
			seen: RecordVersion{Exists: true, ResourceVersion: "12", Claim: "mine", MetadataOnly: true},
			own:  own, want: RecordNeedsData,
		},
		{
			name: "another version without a claim is rewritten, whatever its data",
			seen: RecordVersion{Exists: true, ResourceVersion: "12", MetadataOnly: true},
			own:  own, want: RecordRewritten, wantFinding: "no claim annotation",
		},
		{
			name: "another claim is rewritten, even with this leader's data",
			seen: RecordVersion{Exists: true, ResourceVersion: "12", Claim: "theirs", Data: stored},
			own:  own, want: RecordRewritten, wantFinding: "another claim",
		},
		{
			// Issue #31: an export taken while this leader ran, re-applied.
			name: "this leader's claim with data it never wrote is rewritten",
			seen: RecordVersion{Exists: true, ResourceVersion: "12", Claim: "mine", Data: export},
			own:  withLost, want: RecordRewritten, wantFinding: "with this leader's claim but content it did not write",
		},
		{
			name: "this leader's claim with the data of a write whose answer was lost is adopted",
			seen: RecordVersion{Exists: true, ResourceVersion: "11", Claim: "mine", Data: lost},
			own:  withLost, want: RecordAdopt,
		},
		{
			name: "an edit of labels or annotations only is adopted",
			seen: RecordVersion{Exists: true, ResourceVersion: "11", Claim: "mine", Data: stored},
			own:  own, want: RecordAdopt,
		},
		{
			name: "an empty record this leader stored empty is adopted after an edit of its metadata",
			seen: RecordVersion{Exists: true, ResourceVersion: "11", Claim: "mine"},
			own:  RecordWrites{ResourceVersion: "10", Claim: "mine", Stored: []byte{}}, want: RecordAdopt,
		},
		{
			name: "this leader's claim with emptied data is rewritten",
			seen: RecordVersion{Exists: true, ResourceVersion: "11", Claim: "mine"},
			own:  own, want: RecordRewritten, wantFinding: "content it did not write",
		},
		{
			name: "deleted",
			seen: RecordVersion{},
			own:  own, want: RecordDeleted, wantFinding: "deleted",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got, finding := JudgeRecord(tt.seen, tt.own)
			g.Expect(got).To(Equal(tt.want))
			if tt.wantFinding == "" {
				g.Expect(finding).To(BeEmpty())
			} else {
				g.Expect(finding).To(ContainSubstring(tt.wantFinding))
			}
			if got == RecordRewritten {
				g.Expect(finding).To(ContainSubstring("resourceVersion is " + tt.seen.ResourceVersion + ", not 10"))
			}
		})
	}
}
