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
	"cmp"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
	"podnetwork.io/operator/internal/cidr"
)

// MaxReportedConflicts is how many allocation conflicts the PodNetwork
// status lists (status.allocationConflicts).
const MaxReportedConflicts = 20

// MaxStatusQuarantine is how many blocks status.quarantine lists (its
// MaxItems), a report. More blocks may be quarantined: the running leader
// remembers them all, and after a restart the block store quarantines the
// ones the status does not list, as it says.
const MaxStatusQuarantine = 4096

// Report is the part of the PodNetwork status NodeIPAM owns
// (v1alpha1.OwnedStatus with StatusOwnerNodeIPAM):
// status.ranges[].usage, status.quarantine and status.allocationConflicts.
type Report struct {
	// Usage is the block accounting of every range the allocator tracks,
	// by name.
	Usage map[string]v1alpha1.RangeUsage
	// Quarantine is status.quarantine (see QuarantineStatus).
	Quarantine []v1alpha1.QuarantinedBlock
	// Conflicts are the overlapping podCIDRs seen, in words, sorted.
	Conflicts []string
}

// Status returns the status NodeIPAM applies, given the current one: the
// usage of every range of current that is not Released and that the
// allocator tracks, in status order and keyed by name only; the quarantine;
// the first MaxReportedConflicts conflicts. A Released range gets no usage,
// so NodeIPAM gives up its fields in the entry before it acknowledges
// Released and the lifecycle can purge the entry.
func (r *Report) Status(current *v1alpha1.PodNetworkStatus) v1alpha1.PodNetworkStatus {
	var out v1alpha1.PodNetworkStatus
	for i := range current.Ranges {
		rs := &current.Ranges[i]
		u, ok := r.Usage[rs.Name]
		if !ok || rs.Phase == v1alpha1.RangePhaseReleased {
			continue
		}
		out.Ranges = append(out.Ranges, v1alpha1.RangeStatus{Name: rs.Name, Usage: u})
	}
	out.Quarantine = r.Quarantine
	out.AllocationConflicts = r.Conflicts[:min(len(r.Conflicts), MaxReportedConflicts)]
	if len(out.AllocationConflicts) == 0 {
		out.AllocationConflicts = nil
	}
	return out
}

// RangeUsage converts the allocator's accounting.
func RangeUsage(u allocator.Usage) v1alpha1.RangeUsage {
	return v1alpha1.NewRangeUsage(int64(u.Capacity), int64(u.Allocated), int64(u.Free), int64(u.Quarantined))
}

// QuarantineStatus converts the allocator's remembered freed blocks into
// status.quarantine: only the blocks still in their recycle delay at now
// (a block past it is free; forgetting when it was freed only changes the
// order free blocks are reused in), at most limit of them, the ones freed
// longest ago dropped first, sorted by freedAt then cidr. Times are rounded
// up to the second the API stores, so after a restart a block is quarantined
// a little longer, never shorter.
func QuarantineStatus(entries []allocator.QuarantineEntry, delay time.Duration, now time.Time, limit int) []v1alpha1.QuarantinedBlock {
	var out []v1alpha1.QuarantinedBlock
	for _, e := range entries {
		if !e.FreedAt.Add(delay).After(now) {
			continue
		}
		out = append(out, v1alpha1.QuarantinedBlock{CIDR: e.Prefix.String(), FreedAt: ptr.To(metav1.NewTime(ceilSecond(e.FreedAt)))})
	}
	slices.SortStableFunc(out, func(x, y v1alpha1.QuarantinedBlock) int {
		if c := x.FreedAt.Time.Compare(y.FreedAt.Time); c != 0 {
			return c
		}
		return cmp.Compare(x.CIDR, y.CIDR)
	})
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}

// QuarantineEntries parses status.quarantine for allocator.RestoreQuarantine.
// NodeIPAM writes only canonical node blocks freed in the past, so anything
// else was written by hand and is not trusted: an entry whose cidr is not a
// canonical prefix is dropped, and a freedAt after now becomes now (a block
// cannot have been freed later, and now keeps it quarantined a whole delay,
// never less). ignored counts the entries dropped or changed.
func QuarantineEntries(qs []v1alpha1.QuarantinedBlock, now time.Time) (out []allocator.QuarantineEntry, ignored int) {
	out = make([]allocator.QuarantineEntry, 0, len(qs))
	for _, q := range qs {
		p, err := cidr.ParseCanonical(q.CIDR)
		if err != nil {
			ignored++
			continue
		}
		at := ptr.Deref(q.FreedAt, metav1.Time{}).Time
		if at.After(now) {
			at = now
			ignored++
		}
		out = append(out, allocator.QuarantineEntry{Prefix: p, FreedAt: at})
	}
	return out, ignored
}

// NextExpiry returns how long after now the first quarantined block becomes
// reusable, and false when none is quarantined: the report changes then.
func NextExpiry(entries []allocator.QuarantineEntry, delay time.Duration, now time.Time) (time.Duration, bool) {
	var next time.Duration
	found := false
	for _, e := range entries {
		if d := e.FreedAt.Add(delay).Sub(now); d > 0 && (!found || d < next) {
			next, found = d, true
		}
	}
	return next, found
}

// ceilSecond rounds t up to a whole second.
func ceilSecond(t time.Time) time.Time {
	if tr := t.Truncate(time.Second); !tr.Equal(t) {
		return tr.Add(time.Second)
	}
	return t
}
