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
	}
}
