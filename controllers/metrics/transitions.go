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
	"podnetwork.io/operator/internal/lifecycle"
)

// ObserveTransitions records the transitions the lifecycle wrote, each once:
// the phase entered, how long the phase left lasted and how long each
// consumer took to acknowledge it. The caller observes them only after the
// status write that carries them succeeded, so a transition computed again
// from a stale read, whose write conflicts, is not counted twice. A purge
// enters no phase but ends Released, which is measured.
func (m *Metrics) ObserveTransitions(ts []lifecycle.Transition, consumers []podnetworkv1alpha1.PodNetworkConsumer) {
	if m == nil {
		return
	}
	for _, t := range ts {
		if t.To != "" {
			m.rangeTransitions.WithLabelValues(string(t.To)).Inc()
		}
		// A repaired range's previous phase and time are what another
		// client wrote; times someone else wrote (a consumer's, or a status
		// edited by hand) may also lie outside the phase: such a duration
		// means nothing.
		if t.Repair || t.From == "" || t.FromSince.IsZero() || t.At.Before(t.FromSince) {
			continue
		}
		m.phaseDuration.WithLabelValues(string(t.From)).Observe(t.At.Sub(t.FromSince.Time).Seconds())
		left := podnetworkv1alpha1.RangeStatus{Name: t.Range, CIDR: t.CIDR, Phase: t.From}
		for i := range consumers {
			for _, ack := range consumers[i].Status.Ranges {
				at := ack.LastTransitionTime
				if ack.Matches(&left) && ack.Result == podnetworkv1alpha1.AckAccepted && !at.IsZero() &&
					!at.Before(t.FromSince) && !t.At.Before(at) {
					m.consumerAck.WithLabelValues(consumers[i].Name, string(t.From)).
						Observe(at.Sub(t.FromSince.Time).Seconds())
				}
			}
		}
	}
}
