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

package metrics

import (
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// ObserveTransitions records the transitions between the previous and the
// new status: the phase entered, how long the old phase lasted and how long
// each consumer took to acknowledge it.
func (m *Metrics) ObserveTransitions(before, after []podnetworkv1alpha1.RangeStatus, consumers []podnetworkv1alpha1.PodNetworkConsumer) {
	if m == nil {
		return
	}
	old := make(map[string]podnetworkv1alpha1.RangeStatus, len(before))
	for _, rs := range before {
		old[rs.Name] = rs
	}
	for _, rs := range after {
		prev, had := old[rs.Name]
		if had && prev.Phase == rs.Phase && prev.CIDR == rs.CIDR {
			continue
		}
		m.rangeTransitions.WithLabelValues(string(rs.Phase)).Inc()
		if !had || prev.CIDR != rs.CIDR || prev.PhaseSince.IsZero() || rs.PhaseSince.IsZero() {
			continue
		}
		// Times someone else wrote (a consumer's, or a status edited by
		// hand) may lie outside the phase; such a duration means nothing.
		if rs.PhaseSince.Before(prev.PhaseSince) {
			continue
		}
		m.phaseDuration.WithLabelValues(string(prev.Phase)).Observe(rs.PhaseSince.Sub(prev.PhaseSince.Time).Seconds())
		for i := range consumers {
			for _, ack := range consumers[i].Status.Ranges {
				at := ack.LastTransitionTime
				if ack.Matches(&prev) && ack.Result == podnetworkv1alpha1.AckAccepted && !at.IsZero() &&
					!at.Before(prev.PhaseSince) && !rs.PhaseSince.Before(at) {
					m.consumerAck.WithLabelValues(consumers[i].Name, string(prev.Phase)).
						Observe(at.Sub(prev.PhaseSince.Time).Seconds())
				}
			}
		}
	}
}
