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

import (
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// DefaultLeaseName is the name of the operator's leader-election Lease.
const DefaultLeaseName = "podnetwork-operator"

// tenure is one holding of the lease: one holderIdentity from one
// acquireTime on, with every renewal observed.
type tenure struct {
	holder   string // "" while nobody holds it (released, or the Lease deleted)
	acquire  time.Time
	firstRV  int64
	renewals []renewal
}

type renewal struct {
	at  time.Time     // renewTime (the holder's clock)
	dur time.Duration // leaseDurationSeconds of that record
}

// leases follows the operator's Lease through the history.
type leases struct {
	namespace, name string
	tenures         []*tenure
	holderAt        map[int64]string // holderIdentity by the RV of each observation
}

func newLeases(opts Options) *leases {
	return &leases{namespace: opts.LeaseNamespace, name: opts.LeaseName, holderAt: map[int64]string{}}
}

// matches reports whether l is the operator's Lease.
func (ls *leases) matches(namespace, name string) bool {
	return name == ls.name && (ls.namespace == "" || namespace == ls.namespace)
}

// observe records one observation of the Lease and reports whether a new
// tenure began.
func (ls *leases) observe(o Observation, l *coordinationv1.Lease) bool {
	var holder string
	var acquire time.Time
	var r renewal
	if !o.Deleted {
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		if l.Spec.AcquireTime != nil {
			acquire = l.Spec.AcquireTime.Time
		}
		if l.Spec.RenewTime != nil {
			r.at = l.Spec.RenewTime.Time
		}
		if l.Spec.LeaseDurationSeconds != nil {
			r.dur = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
		}
	}
	ls.holderAt[o.RV] = holder
	var cur *tenure
	if n := len(ls.tenures); n > 0 {
		cur = ls.tenures[n-1]
	}
	if cur == nil || cur.holder != holder || (!acquire.IsZero() && !acquire.Equal(cur.acquire)) {
		// The tenure starts at acquireTime, but never before the previous
		// one (a released lease may keep its old acquireTime): then at the
		// renewal, or at the latest when the recorder saw it.
		var prev time.Time
		if cur != nil {
			prev = cur.acquire
		}
		for _, t := range []time.Time{r.at, o.Time} {
			if !acquire.After(prev) || acquire.IsZero() {
				acquire = t
			}
		}
		cur = &tenure{holder: holder, acquire: acquire, firstRV: o.RV}
		ls.tenures = append(ls.tenures, cur)
		if holder != "" {
			cur.renewals = append(cur.renewals, renewal{at: acquire, dur: r.dur})
		}
		if holder != "" && !r.at.IsZero() && !r.at.Equal(acquire) {
			cur.renewals = append(cur.renewals, r)
		}
		return true
	}
	if holder != "" && !r.at.IsZero() {
		cur.renewals = append(cur.renewals, r)
	}
	return false
}

// identities returns holderIdentity -> process: the given ones, plus those
// derived from landed writes to the Lease whose RV shows the holder.
func (ls *leases) identities(given map[string]string, writes []Write) map[string]string {
	out := make(map[string]string, len(given))
	for h, p := range given {
		out[h] = p
	}
	for i := range writes {
		w := &writes[i]
		if !w.Landed() || w.Resource != "leases" || !ls.matches(w.Namespace, w.Name) {
			continue
		}
		if h := ls.holderAt[w.RV]; h != "" {
			if _, known := out[h]; !known {
				out[h] = w.Process
			}
		}
	}
	return out
}

// staleness says whether w was made, or landed, while its process did not
// hold the lease. judged is false when the history cannot tell (no Lease
// observed, or the holder at that time is an identity of no known process).
func (ls *leases) staleness(w *Write, procOf map[string]string) (reason string, stale, judged bool) {
	if len(ls.tenures) == 0 {
		return "", false, false
	}
	t := w.Start
	var cur *tenure
	for _, tn := range ls.tenures {
		if !tn.acquire.After(t) {
			cur = tn
		}
	}
	if cur == nil {
		return fmt.Sprintf("sent at %s, before any holder acquired the lease", stamp(t)), true, true
	}
	if why, other, known := ls.notHolder(cur, w.Process, procOf); !known {
		return "", false, false
	} else if other {
		return fmt.Sprintf("sent at %s while %s", stamp(t), why), true, true
	}
	var last renewal
	for _, r := range cur.renewals {
		if !r.at.After(t) {
			last = r
		}
	}
	if exp := last.at.Add(last.dur); last.dur > 0 && t.After(exp) {
		return fmt.Sprintf("sent at %s, %s after its lease expired at %s", stamp(t), t.Sub(exp).Round(time.Millisecond), stamp(exp)), true, true
	}
	if w.Landed() && w.RV > 0 {
		var at *tenure
		for _, tn := range ls.tenures {
			if tn.firstRV < w.RV {
				at = tn
			}
		}
		if at != nil && at != cur {
			if why, other, known := ls.notHolder(at, w.Process, procOf); known && other {
				return fmt.Sprintf("sent at %s but landed at RV %d, when %s (RV %d)", stamp(t), w.RV, why, at.firstRV), true, true
			}
		}
	}
	return "", false, true
}

// notHolder says whether tn belongs to another process than proc. known is
// false when tn's holder maps to no process.
func (ls *leases) notHolder(tn *tenure, proc string, procOf map[string]string) (why string, other, known bool) {
	if tn.holder == "" {
		return fmt.Sprintf("nobody held the lease (released at %s)", stamp(tn.acquire)), true, true
	}
	p, ok := procOf[tn.holder]
	if !ok {
		return "", false, false
	}
	if p == proc {
		return "", false, true
	}
	return fmt.Sprintf("%s (%s) held the lease, acquired at %s", p, tn.holder, stamp(tn.acquire)), true, true
}

func stamp(t time.Time) string { return t.UTC().Format("15:04:05.000") }
