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
	"slices"
)

// indexWrites indexes the landed writes by RV (the Lease's excepted), so
// an observation can tell it was an operator process's write, and a
// violation whose process.
func (c *checker) indexWrites(writes []Write) {
	for i := range writes {
		w := &writes[i]
		if w.Landed() && w.RV > 0 && !c.isLeaseWrite(w) {
			c.landedByRV[w.RV] = w
		}
	}
}

func (c *checker) isLeaseWrite(w *Write) bool {
	return w.Resource == "leases" && c.ls.matches(w.Namespace, w.Name)
}

// judgeWrites counts the writes per process and lists the stale ones.
func (c *checker) judgeWrites(writes []Write) {
	procOf := c.ls.identities(c.opts.Identities, writes)
	c.procOf = procOf
	sorted := slices.Clone(writes)
	slices.SortStableFunc(sorted, func(a, b Write) int { return a.Start.Compare(b.Start) })
	for i := range sorted {
		w := &sorted[i]
		c.counts[CountWrites+w.Process]++
		if c.isLeaseWrite(w) {
			continue // competing for the lease is what a standby does
		}
		reason, stale, judged := c.ls.staleness(w, procOf)
		if !judged {
			c.counts[CountUnjudged]++
			continue
		}
		if !stale {
			continue
		}
		c.stale = append(c.stale, StaleWrite{Write: *w, Reason: reason})
		c.counts[CountStaleWrites]++
		if w.Landed() {
			c.counts[CountStaleLanded]++
			if w.RV > 0 {
				c.staleByRV[w.RV] = true
			}
		}
		// Every write, Events included: the operator fences them all
		// (docs/reliability.md), so one sent without the lease is a hole
		// in the fence even when it decided nothing.
		c.violations = append(c.violations, staleViolation(w, reason))
	}
}

// staleViolation is the no-write-without-lease violation of the stale
// write w, with everything needed to find it in the proxy's log.
func staleViolation(w *Write, reason string) Violation {
	what := w.Resource
	if w.Subresource != "" {
		what += "/" + w.Subresource
	}
	if w.Namespace != "" {
		what += " " + w.Namespace + "/" + w.Name
	} else {
		what += " " + w.Name
	}
	var outcome string
	switch {
	case w.Landed() && w.RV > 0:
		outcome = fmt.Sprintf("answered %d, landed at RV %d", w.Code, w.RV)
	case w.Landed():
		outcome = fmt.Sprintf("answered %d", w.Code)
	case w.Code == 0:
		outcome = "no answer from the apiserver"
	default:
		outcome = fmt.Sprintf("answered %d", w.Code)
	}
	var rv int64
	if w.Landed() {
		rv = w.RV
	}
	return Violation{
		Invariant: InvWriteWithoutLease, RV: rv, Time: w.Start,
		Message: fmt.Sprintf("%s sent %s %s without the lease (%s): %s", w.Process, w.Verb, what, outcome, reason),
		Process: w.Process, StaleWrite: true,
	}
}
