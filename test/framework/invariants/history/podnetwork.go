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
	"net/netip"
	"slices"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// observePodNetwork replays one PodNetwork observation: the quarantine it
// lists, and activation-acked, release-without-holders and purge-acked for
// the range transitions it shows.
func (c *checker) observePodNetwork(o *Observation, pn *v1alpha1.PodNetwork) {
	c.pnRV, c.pnTime = o.RV, o.Time
	if !o.Deleted && !slices.EqualFunc(pn.Status.Quarantine, c.quarantine, sameQuarantined) {
		c.quarantine = pn.Status.Quarantine
		for _, q := range pn.Status.Quarantine {
			if p, err := netip.ParsePrefix(q.CIDR); err == nil {
				p = p.Masked()
				c.quarantinedRV[p] = o.RV
			}
		}
	}
	for _, ch := range c.nw.observePodNetwork(pn, o.Deleted) {
		c.counts[CountTransition+ch.from+"->"+ch.to]++
		switch {
		case ch.to == string(v1alpha1.RangePhaseActive) && ch.from != string(v1alpha1.RangePhaseDraining):
			if missing := c.nw.unacked(ch.name, ch.cidr, v1alpha1.RangePhasePending); len(missing) > 0 {
				c.violate(InvActivationAcked, o, "range %s (%s) became Active (from %s) without an Accepted Pending acknowledgement from required consumers %s",
					ch.name, ch.cidr, ch.from, joinFirst(missing, 10))
			}
		case ch.to == string(v1alpha1.RangePhaseReleased) && ch.from != string(v1alpha1.RangePhasePending) && ch.from != fromNew:
			if !ch.r.ok {
				continue
			}
			if hs := c.holders(ch.r); len(hs) > 0 {
				c.violate(InvReleaseNoHolders, o, "range %s (%s) was Released (from %s) while %d nodes held podCIDRs in it outside every other Active range: %s",
					ch.name, ch.cidr, ch.from, len(hs), joinFirst(hs, 10))
			}
		case ch.to == toPurged:
			if missing := c.nw.unacked(ch.name, ch.cidr, v1alpha1.RangePhaseReleased); len(missing) > 0 {
				c.violate(InvPurgeAcked, o, "range %s (%s) was purged (from %s) without an Accepted Released acknowledgement from required consumers %s",
					ch.name, ch.cidr, ch.from, joinFirst(missing, 10))
			}
		}
	}
}

// sameQuarantined compares two quarantine entries by value (freedAt is a
// pointer).
func sameQuarantined(a, b v1alpha1.QuarantinedBlock) bool {
	return a.CIDR == b.CIDR && a.FreedAt.Equal(b.FreedAt)
}
