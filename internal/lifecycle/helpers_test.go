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

package lifecycle

import (
	"net/netip"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const (
	pending  = v1alpha1.RangePhasePending
	active   = v1alpha1.RangePhaseActive
	draining = v1alpha1.RangePhaseDraining
	released = v1alpha1.RangePhaseReleased
)

func specRng(name, cidr string, nodeMaskSize ...int32) v1alpha1.PodCIDRRange {
	r := v1alpha1.PodCIDRRange{Name: name, CIDR: cidr}
	if len(nodeMaskSize) > 0 {
		r.NodeMaskSize = nodeMaskSize[0]
	}
	return r
}

func ack(name, cidr string, phase v1alpha1.RangePhase) v1alpha1.ConsumerRangeStatus {
	return v1alpha1.ConsumerRangeStatus{Name: name, CIDR: cidr, Phase: phase, Result: v1alpha1.AckAccepted}
}

// reject turns an acknowledgement into a rejection with msg.
func reject(a v1alpha1.ConsumerRangeStatus, msg string) v1alpha1.ConsumerRangeStatus {
	a.Result, a.Message = v1alpha1.AckRejected, msg
	return a
}

func required(name string, acks ...v1alpha1.ConsumerRangeStatus) Consumer {
	return Consumer{Name: name, Required: true, Acks: acks}
}

func optional(name string, acks ...v1alpha1.ConsumerRangeStatus) Consumer {
	return Consumer{Name: name, Required: false, Acks: acks}
}

func node(name string, podCIDRs ...string) Node {
	n := Node{Name: name}
	for _, c := range podCIDRs {
		n.PodCIDRs = append(n.PodCIDRs, netip.MustParsePrefix(c))
	}
	return n
}

func nodeWithAddress(name, addr string) Node {
	return Node{Name: name, Addresses: []netip.Addr{netip.MustParseAddr(addr)}}
}

func svc(name, cidr string, deleting bool) ServiceCIDR {
	return ServiceCIDR{Name: name, CIDRs: []netip.Prefix{netip.MustParsePrefix(cidr)}, Deleting: deleting}
}

// tracked is a status entry as a previous Compute would have written it.
func tracked(name, cidr string, phase v1alpha1.RangePhase) v1alpha1.RangeStatus {
	p := netip.MustParsePrefix(cidr)
	return v1alpha1.RangeStatus{
		Name:         name,
		CIDR:         cidr,
		IPFamily:     v1alpha1.FamilyOf(p),
		NodeMaskSize: v1alpha1.DefaultNodeMaskSize(p),
		Phase:        phase,
		PhaseSince:   ptr.To(metav1.NewTime(t0)),
	}
}

// world runs Compute repeatedly, feeding each output back as the next
// status, like the controller does.
type world struct {
	in Input
}

func newWorld(spec ...v1alpha1.PodCIDRRange) *world {
	return &world{in: Input{Now: t0, Generation: 1, Spec: spec}}
}

func (w *world) step() Output {
	out := Compute(w.in)
	out.ApplyTo(&w.in.Status)
	return out
}

func (w *world) consumers(cs ...Consumer) *world {
	w.in.Consumers = cs
	return w
}

func (w *world) status(rs ...v1alpha1.RangeStatus) *world {
	w.in.Status.Ranges = rs
	return w
}

func rangeOf(out Output, name string) *v1alpha1.RangeStatus {
	for i := range out.Ranges {
		if out.Ranges[i].Name == name {
			return &out.Ranges[i]
		}
	}
	return nil
}

func phaseOf(out Output, name string) v1alpha1.RangePhase {
	if r := rangeOf(out, name); r != nil {
		return r.Phase
	}
	return ""
}

func reasons(out Output) []string {
	var rs []string
	for _, e := range out.Events {
		rs = append(rs, e.Reason)
	}
	return rs
}

func eventsWith(out Output, reason string) []Event {
	var es []Event
	for _, e := range out.Events {
		if e.Reason == reason {
			es = append(es, e)
		}
	}
	return es
}

func cond(out Output, t string) metav1.Condition {
	c := meta.FindStatusCondition(out.Conditions, t)
	if c == nil {
		return metav1.Condition{}
	}
	return *c
}

func consumerSummary(out Output, name string) *v1alpha1.ConsumerSummary {
	for i := range out.Consumers {
		if out.Consumers[i].Name == name {
			return &out.Consumers[i]
		}
	}
	return nil
}
