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
	"net/netip"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Messages of NodeIPAM's acknowledgements.
const (
	AckPendingMessage  = "tracked by the node allocator; no blocks are allocated from it until it is Active"
	AckActiveMessage   = "node blocks are allocated from this range"
	AckDrainingMessage = "no new node blocks are allocated from this range"
	AckReleasedMessage = "removed from the node allocator"
)

// Ack answers the current phase of rs for the consumer protocol
// (v1alpha1.AckFunc) from what the allocator has applied, c:
//
//   - Pending: accepted once the range is tracked (inactive); rejected, with
//     the reason, when NodeIPAM cannot use it;
//   - Active: accepted once the range allocates;
//   - Draining: accepted once the range is inactive and busy reports no
//     node write still in flight with a block inside it;
//   - Released: accepted once the range is out of the allocator and status
//     shows no usage for it (NodeIPAM gave up its fields in the entry).
//
// Otherwise it is not done yet.
func (c *Config) Ack(rs v1alpha1.RangeStatus, busy func(netip.Prefix) bool) (v1alpha1.AckResult, string, bool) {
	phase, tracked := c.Phases[rs.Name]
	switch rs.Phase {
	case v1alpha1.RangePhasePending:
		if reason, bad := c.Unusable[rs.Name]; bad {
			return v1alpha1.AckRejected, "the node allocator cannot use this range: " + reason, true
		}
		if tracked && phase == v1alpha1.RangePhasePending {
			return v1alpha1.AckAccepted, AckPendingMessage, true
		}
	case v1alpha1.RangePhaseActive:
		if tracked && phase == v1alpha1.RangePhaseActive {
			return v1alpha1.AckAccepted, AckActiveMessage, true
		}
	case v1alpha1.RangePhaseDraining:
		r, _ := c.Find(rs.Name)
		if tracked && phase == v1alpha1.RangePhaseDraining && !busy(r.Prefix) {
			return v1alpha1.AckAccepted, AckDrainingMessage, true
		}
	case v1alpha1.RangePhaseReleased:
		if !tracked && rs.Usage.IsZero() {
			return v1alpha1.AckAccepted, AckReleasedMessage, true
		}
	}
	return "", "", false
}
