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
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
)

func TestReportStatus(t *testing.T) {
	u := func(c, a int64) v1alpha1.RangeUsage {
		return v1alpha1.NewRangeUsage(c, a, c-a, 0)
	}
	current := podNetwork().
		rng("active", "10.1.0.0/16", v1alpha1.RangePhaseActive).
		rng("draining", "10.2.0.0/16", v1alpha1.RangePhaseDraining).
		rng("released", "10.3.0.0/16", v1alpha1.RangePhaseReleased).
		rng("untracked", "10.4.0.0/16", v1alpha1.RangePhasePending).obj().Status
	r := Report{
		Usage: map[string]v1alpha1.RangeUsage{
			"active": u(256, 3), "draining": u(256, 1), "released": u(256, 0), "gone": u(1, 1),
		},
		Quarantine: []v1alpha1.QuarantinedBlock{{CIDR: "10.1.0.0/24", FreedAt: ptr.To(metav1.NewTime(t0))}},
	}
	for i := range 25 {
		r.Conflicts = append(r.Conflicts, fmt.Sprintf("conflict %02d", i))
	}
	got := r.Status(&current)
	if len(got.Ranges) != 2 || got.Ranges[0].Name != "active" || got.Ranges[1].Name != "draining" {
		t.Fatalf("ranges = %+v, want usage of active and draining only", got.Ranges)
	}
	if got.Ranges[0].CIDR != "" || got.Ranges[0].Phase != "" || !equality.Semantic.DeepEqual(got.Ranges[0].Usage, u(256, 3)) {
		t.Fatalf("range entry %+v, want only name and usage", got.Ranges[0])
	}
	if len(got.AllocationConflicts) != MaxReportedConflicts || got.AllocationConflicts[19] != "conflict 19" {
		t.Fatalf("conflicts = %v, want the first %d", got.AllocationConflicts, MaxReportedConflicts)
	}

	if owned := v1alpha1.OwnedStatus(v1alpha1.StatusOwnerNodeIPAM, &got); !equality.Semantic.DeepEqual(owned, got) {
		t.Fatalf("the report sets fields NodeIPAM does not own: %+v", got)
	}

	// Once applied, the owned projection of the merged status equals it, so
	// nothing is written again.
	merged := current.DeepCopy()
	for _, rs := range got.Ranges {
		merged.FindRange(rs.Name).Usage = rs.Usage
	}
	merged.Quarantine, merged.AllocationConflicts = got.Quarantine, got.AllocationConflicts
	if owned := v1alpha1.OwnedStatus(v1alpha1.StatusOwnerNodeIPAM, merged); !equality.Semantic.DeepEqual(owned, got) {
		t.Fatalf("OwnedStatus(merged) = %+v\nwant %+v", owned, got)
	}
	// A Released range that still shows usage needs a write.
	merged.FindRange("released").Usage = u(256, 0)
	if owned := v1alpha1.OwnedStatus(v1alpha1.StatusOwnerNodeIPAM, merged); equality.Semantic.DeepEqual(owned, got) {
		t.Fatal("usage left on a Released range compares equal")
	}
}

func TestQuarantineStatus(t *testing.T) {
	const delay = time.Minute
	e := func(p string, at time.Duration) allocator.QuarantineEntry {
		return allocator.QuarantineEntry{Prefix: mp(p), FreedAt: t0.Add(at)}
	}
	entries := []allocator.QuarantineEntry{
		e("10.0.3.0/24", 30*time.Second+time.Millisecond), // rounded up
		e("10.0.1.0/24", -2*time.Minute),                  // past its delay: free, not listed
		e("10.0.2.0/24", 30*time.Second),
		e("10.0.0.0/24", 10*time.Second),
		e("10.0.4.0/24", 40*time.Second),
	}
	now := t0.Add(45 * time.Second)
	got := QuarantineStatus(entries, delay, now, 3)
	want := []string{"10.0.2.0/24@03:04:35", "10.0.3.0/24@03:04:36", "10.0.4.0/24@03:04:45"}
	if len(got) != len(want) {
		t.Fatalf("QuarantineStatus = %v, want %v", got, want)
	}
	for i, q := range got {
		if s := q.CIDR + "@" + q.FreedAt.UTC().Format("15:04:05"); s != want[i] {
			t.Fatalf("entry %d = %s, want %s (oldest dropped first)", i, s, want[i])
		}
	}
	back, ignored := QuarantineEntries(got, now)
	if len(back) != 3 || ignored != 0 || back[1].Prefix != mp("10.0.3.0/24") || !back[1].FreedAt.Equal(t0.Add(31*time.Second)) {
		t.Fatalf("QuarantineEntries = %v, %d ignored", back, ignored)
	}
	if d, ok := NextExpiry(entries, delay, now); !ok || d != 25*time.Second {
		t.Fatalf("NextExpiry = %v, %v; want 25s", d, ok)
	}
	if _, ok := NextExpiry(entries, delay, t0.Add(time.Hour)); ok {
		t.Fatal("NextExpiry after every delay reports an expiry")
	}
}

// TestQuarantineEntriesDistrustsHandEdits reads status.quarantine edited
// by hand: what NodeIPAM never writes is dropped or made safe, and counted.
func TestQuarantineEntriesDistrustsHandEdits(t *testing.T) {
	now := t0.Add(time.Hour)
	tests := []struct {
		name    string
		in      v1alpha1.QuarantinedBlock
		want    []allocator.QuarantineEntry
		ignored int
	}{
		{name: "as NodeIPAM writes it", in: qb("10.0.1.0/24", t0), want: []allocator.QuarantineEntry{{Prefix: mp("10.0.1.0/24"), FreedAt: t0}}},
		{name: "garbage", in: qb("garbage", t0), ignored: 1},
		{name: "not canonical", in: qb("10.0.1.7/24", t0), ignored: 1},
		{name: "IPv4-mapped", in: qb("::ffff:10.0.1.0/120", t0), ignored: 1},
		{name: "freed in the future: quarantined from now", in: qb("10.0.1.0/24", now.Add(1000*time.Hour)),
			want: []allocator.QuarantineEntry{{Prefix: mp("10.0.1.0/24"), FreedAt: now}}, ignored: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ignored := QuarantineEntries([]v1alpha1.QuarantinedBlock{tt.in}, now)
			if !slices.Equal(got, tt.want) || ignored != tt.ignored {
				t.Fatalf("QuarantineEntries = %v, %d ignored; want %v, %d", got, ignored, tt.want, tt.ignored)
			}
		})
	}
}

func qb(cidr string, freedAt time.Time) v1alpha1.QuarantinedBlock {
	return v1alpha1.QuarantinedBlock{CIDR: cidr, FreedAt: ptr.To(metav1.NewTime(freedAt))}
}
