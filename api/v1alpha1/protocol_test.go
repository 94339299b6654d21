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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var (
	t1 = metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	t2 = metav1.NewTime(t1.Add(time.Minute))
)

func samplePodNetwork() *PodNetwork {
	return &PodNetwork{Status: PodNetworkStatus{Ranges: []RangeStatus{
		{Name: "pending", CIDR: "10.1.0.0/16", Phase: RangePhasePending},
		{Name: "invalid", CIDR: "10.96.0.0/16", Phase: RangePhasePending, InvalidReason: RangeInvalidServiceCIDROverlap},
		{Name: "active", CIDR: "10.2.0.0/16", Phase: RangePhaseActive},
		{Name: "draining", CIDR: "10.3.0.0/16", Phase: RangePhaseDraining},
		{Name: "released", CIDR: "10.4.0.0/16", Phase: RangePhaseReleased},
	}}}
}

func names(rs []RangeStatus) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestRangeSelections(t *testing.T) {
	g := NewWithT(t)
	pn := samplePodNetwork()
	g.Expect(names(DesiredRanges(pn))).To(Equal([]string{"pending", "active", "draining"}))
	g.Expect(names(ReleasedRanges(pn))).To(Equal([]string{"released"}))
	g.Expect(names(RangesToAcknowledge(pn))).To(Equal([]string{"pending", "active", "draining", "released"}))
	g.Expect(DesiredRanges(&PodNetwork{})).To(BeEmpty())
}

func TestAckState(t *testing.T) {
	rs := RangeStatus{Name: "a", CIDR: "10.1.0.0/16", Phase: RangePhasePending}
	tests := []struct {
		name                  string
		acks                  []ConsumerRangeStatus
		wantAcked, wantReject bool
		wantMessage           string
	}{
		{name: "no acks"},
		{name: "accepted", acks: []ConsumerRangeStatus{AckFor(rs, AckAccepted, "ok", t1)}, wantAcked: true, wantMessage: "ok"},
		{name: "rejected", acks: []ConsumerRangeStatus{AckFor(rs, AckRejected, "no room", t1)}, wantReject: true, wantMessage: "no room"},
		{name: "stale phase", acks: []ConsumerRangeStatus{{Name: "a", CIDR: "10.1.0.0/16", Phase: RangePhaseReleased, Result: AckAccepted}}},
		{name: "stale cidr", acks: []ConsumerRangeStatus{{Name: "a", CIDR: "10.9.0.0/16", Phase: RangePhasePending, Result: AckAccepted}}},
		{name: "stale rejection does not count either", acks: []ConsumerRangeStatus{{Name: "a", CIDR: "10.9.0.0/16", Phase: RangePhasePending, Result: AckRejected}}},
		{name: "other name", acks: []ConsumerRangeStatus{{Name: "b", CIDR: "10.1.0.0/16", Phase: RangePhasePending, Result: AckAccepted}}},
		{name: "unknown result", acks: []ConsumerRangeStatus{{Name: "a", CIDR: "10.1.0.0/16", Phase: RangePhasePending, Result: "Maybe"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			acked, rejected, msg := AckState(tc.acks, &rs)
			g.Expect(acked).To(Equal(tc.wantAcked))
			g.Expect(rejected).To(Equal(tc.wantReject))
			g.Expect(msg).To(Equal(tc.wantMessage))
			c := &PodNetworkConsumer{Status: PodNetworkConsumerStatus{Ranges: tc.acks}}
			acked2, rejected2, msg2 := IsAcked(c, rs)
			g.Expect([]any{acked2, rejected2, msg2}).To(Equal([]any{acked, rejected, msg}))
		})
	}
}

func TestAcks(t *testing.T) {
	g := NewWithT(t)
	pn := samplePodNetwork()
	previous := []ConsumerRangeStatus{
		// Still the current phase: its lastTransitionTime is kept.
		{Name: "active", CIDR: "10.2.0.0/16", Phase: RangePhaseActive, Result: AckAccepted, LastTransitionTime: &t1},
		// The range moved on but the consumer has not applied the new phase
		// yet: the old entry stays, it still describes the consumer.
		{Name: "draining", CIDR: "10.3.0.0/16", Phase: RangePhaseActive, Result: AckAccepted, LastTransitionTime: &t1},
		// Invalid ranges are not offered, earlier entries for the name stay.
		{Name: "invalid", CIDR: "10.96.0.0/16", Phase: RangePhaseReleased, Result: AckAccepted, LastTransitionTime: &t1},
		// No longer tracked: dropped.
		{Name: "purged", CIDR: "10.5.0.0/16", Phase: RangePhaseReleased, Result: AckAccepted, LastTransitionTime: &t1},
	}
	var offered []string
	got := Acks(pn, previous, t2, func(rs RangeStatus) (AckResult, string, bool) {
		offered = append(offered, rs.Name)
		switch rs.Name {
		case "pending":
			return AckRejected, "only one IPv4 range is supported", true
		case "draining":
			return "", "", false
		default:
			return AckAccepted, "", true
		}
	})
	g.Expect(offered).To(Equal([]string{"pending", "active", "draining", "released"}))
	g.Expect(got).To(Equal([]ConsumerRangeStatus{
		{Name: "active", CIDR: "10.2.0.0/16", Phase: RangePhaseActive, Result: AckAccepted, LastTransitionTime: &t1},
		{Name: "draining", CIDR: "10.3.0.0/16", Phase: RangePhaseActive, Result: AckAccepted, LastTransitionTime: &t1},
		{Name: "invalid", CIDR: "10.96.0.0/16", Phase: RangePhaseReleased, Result: AckAccepted, LastTransitionTime: &t1},
		{Name: "pending", CIDR: "10.1.0.0/16", Phase: RangePhasePending, Result: AckRejected, Message: "only one IPv4 range is supported", LastTransitionTime: &t2},
		{Name: "released", CIDR: "10.4.0.0/16", Phase: RangePhaseReleased, Result: AckAccepted, LastTransitionTime: &t2},
	}))
}

func TestEffectiveNodeMaskSize(t *testing.T) {
	g := NewWithT(t)
	g.Expect((&PodCIDRRange{CIDR: "10.0.0.0/16"}).EffectiveNodeMaskSize()).To(Equal(int32(24)))
	g.Expect((&PodCIDRRange{CIDR: "fd00::/48"}).EffectiveNodeMaskSize()).To(Equal(int32(64)))
	g.Expect((&PodCIDRRange{CIDR: "10.0.0.0/16", NodeMaskSize: 26}).EffectiveNodeMaskSize()).To(Equal(int32(26)))
	g.Expect((&PodCIDRRange{CIDR: "junk"}).EffectiveNodeMaskSize()).To(BeZero())
}

func TestConsumerIsRequiredByDefault(t *testing.T) {
	g := NewWithT(t)
	g.Expect((&PodNetworkConsumer{}).IsRequired()).To(BeTrue())
	g.Expect((&PodNetworkConsumer{Spec: PodNetworkConsumerSpec{Required: ptr.To(false)}}).IsRequired()).To(BeFalse())
}

func TestFindRange(t *testing.T) {
	g := NewWithT(t)
	pn := samplePodNetwork()
	g.Expect(pn.Status.FindRange("active").CIDR).To(Equal("10.2.0.0/16"))
	g.Expect(pn.Status.FindRange("nope")).To(BeNil())
}
