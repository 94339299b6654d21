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

package v1alpha1

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The consumer protocol.
//
// Every component that must know the pod network registers a
// PodNetworkConsumer named after itself and, whenever PodNetwork "default"
// changes:
//
//  1. configures itself with DesiredRanges(pn): the usable Pending ranges and
//     the Active and Draining ones, and removes the ReleasedRanges(pn);
//  2. acknowledges, in status.ranges of its PodNetworkConsumer, the phase of
//     every range it has applied, with Acks (or AckFor per range), by
//     server-side apply under its own field manager.
//
// What an Accepted acknowledgement of each phase means:
//
//   - Pending: "I am ready for nodes and pods to use addresses in this range"
//     (for example kube-proxy treats it as cluster traffic, the CNI routes it).
//     Reject it with a message if the consumer cannot use it.
//   - Active: "I know the range is in use". It is informational: nothing waits
//     for it, but the consumer shows out of sync until it acknowledges it.
//   - Draining: "I place nothing new in this range, and my configuration still
//     includes it".
//   - Released: "I have removed this range from my configuration".
//
// An acknowledgement counts only if its name, cidr and phase all equal the
// range's current ones (ConsumerRangeStatus.Matches), so an acknowledgement of
// an earlier phase, or of an earlier range that had the same name, never
// counts. An acknowledgement states what the consumer has currently applied:
// the consumer keeps one entry per range name and overwrites it as the range
// moves on, and never acknowledges a phase it has not applied.

// NeedsAck reports whether consumers are asked to apply and acknowledge the
// current phase of rs. A Pending range the operator found invalid is not
// offered to consumers.
func NeedsAck(rs *RangeStatus) bool {
	return rs.Phase != RangePhasePending || rs.InvalidReason == ""
}

// DesiredRanges returns the ranges a consumer's configuration must hold now:
// the Pending ranges that are offered to consumers, and the Active and Draining
// ranges. The result is in status order.
func DesiredRanges(pn *PodNetwork) []RangeStatus {
	var out []RangeStatus
	for i := range pn.Status.Ranges {
		rs := &pn.Status.Ranges[i]
		if rs.Phase != RangePhaseReleased && NeedsAck(rs) {
			out = append(out, *rs)
		}
	}
	return out
}

// ReleasedRanges returns the ranges a consumer must remove from its
// configuration (and then acknowledge as Released).
func ReleasedRanges(pn *PodNetwork) []RangeStatus {
	var out []RangeStatus
	for i := range pn.Status.Ranges {
		if pn.Status.Ranges[i].Phase == RangePhaseReleased {
			out = append(out, pn.Status.Ranges[i])
		}
	}
	return out
}

// RangesToAcknowledge returns every range whose current phase a consumer
// acknowledges: DesiredRanges followed by ReleasedRanges.
func RangesToAcknowledge(pn *PodNetwork) []RangeStatus {
	return append(DesiredRanges(pn), ReleasedRanges(pn)...)
}

// Matches reports whether the acknowledgement is about the current phase of
// rs: name, cidr and phase all equal.
func (a *ConsumerRangeStatus) Matches(rs *RangeStatus) bool {
	return a.Name == rs.Name && a.CIDR == rs.CIDR && a.Phase == rs.Phase
}

// AckFor returns the acknowledgement of the current phase of rs with the given
// result and message, stamped with now.
func AckFor(rs RangeStatus, result AckResult, message string, now metav1.Time) ConsumerRangeStatus {
	return ConsumerRangeStatus{
		Name:               rs.Name,
		CIDR:               rs.CIDR,
		Phase:              rs.Phase,
		Result:             result,
		Message:            message,
		LastTransitionTime: &now,
	}
}

// AckState reports how acks answer the current phase of rs: acked when an
// Accepted acknowledgement matches it, rejected (with the consumer's message)
// when a Rejected one does. Both are false when the consumer has not answered
// the current phase.
func AckState(acks []ConsumerRangeStatus, rs *RangeStatus) (acked, rejected bool, message string) {
	for i := range acks {
		a := &acks[i]
		if a.Name != rs.Name {
			continue
		}
		if !a.Matches(rs) {
			return false, false, ""
		}
		switch a.Result {
		case AckAccepted:
			return true, false, a.Message
		case AckRejected:
			return false, true, a.Message
		default:
			return false, false, ""
		}
	}
	return false, false, ""
}

// IsAcked reports how consumer answers the current phase of rs (see
// AckState).
func IsAcked(consumer *PodNetworkConsumer, rs RangeStatus) (acked, rejected bool, message string) {
	return AckState(consumer.Status.Ranges, &rs)
}

// AckFunc tells Acks whether the consumer has applied the current phase of rs.
// It returns done=false while the consumer has not answered yet; otherwise the
// result (Accepted or Rejected) and a message.
//
// +kubebuilder:object:generate=false
type AckFunc func(rs RangeStatus) (result AckResult, message string, done bool)

// Acks computes the complete status.ranges of a consumer from the PodNetwork,
// the consumer's previous acknowledgements and applied:
//
//   - a range returned by RangesToAcknowledge for which applied reports done
//     gets AckFor(rs, result, message, now); lastTransitionTime is kept when
//     the previous entry has the same cidr, phase and result;
//   - any other range still tracked keeps its previous entry, if any, because
//     that entry still describes what the consumer has applied;
//   - entries of ranges that are no longer tracked are dropped.
//
// The result is sorted by name.
func Acks(pn *PodNetwork, previous []ConsumerRangeStatus, now metav1.Time, applied AckFunc) []ConsumerRangeStatus {
	prev := make(map[string]ConsumerRangeStatus, len(previous))
	for _, a := range previous {
		prev[a.Name] = a
	}
	var out []ConsumerRangeStatus
	for i := range pn.Status.Ranges {
		rs := pn.Status.Ranges[i]
		old, hadOld := prev[rs.Name]
		if NeedsAck(&rs) {
			if result, message, done := applied(rs); done {
				ack := AckFor(rs, result, message, now)
				if hadOld && old.CIDR == ack.CIDR && old.Phase == ack.Phase && old.Result == ack.Result && !old.LastTransitionTime.IsZero() {
					ack.LastTransitionTime = old.LastTransitionTime
				}
				out = append(out, ack)
				continue
			}
		}
		if hadOld {
			out = append(out, old)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
