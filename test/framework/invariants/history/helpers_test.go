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
	"strconv"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework/invariants"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// hist builds a history the way a recorder and the fault proxy would see
// it: every change gets the next RV and the current time.
type hist struct {
	rv        int64
	now       time.Time
	obs       []Observation
	writes    []Write
	nodes     map[string]*corev1.Node
	pn        *v1alpha1.PodNetwork
	consumers map[string]*v1alpha1.PodNetworkConsumer
	lease     *coordinationv1.Lease
	uid       int
	leader    string // process whose writes the node and status changes are, if any
}

func newHist() *hist {
	return &hist{now: t0, nodes: map[string]*corev1.Node{}, consumers: map[string]*v1alpha1.PodNetworkConsumer{}}
}

func (h *hist) tick(d time.Duration) { h.now = h.now.Add(d) }

// record appends an observation of a copy of obj with the next RV, and a
// landed write by the leader when resource is not empty.
func (h *hist) record(obj client.Object, deleted bool, resource, sub string) int64 {
	h.rv++
	h.tick(10 * time.Millisecond)
	c := obj.DeepCopyObject().(client.Object)
	c.SetResourceVersion(strconv.FormatInt(h.rv, 10))
	h.obs = append(h.obs, Observation{RV: h.rv, Time: h.now, Object: c, Deleted: deleted})
	if resource != "" && h.leader != "" {
		h.writes = append(h.writes, Write{Process: h.leader, Start: h.now.Add(-5 * time.Millisecond), End: h.now,
			Verb: "patch", Resource: resource, Subresource: sub, Namespace: c.GetNamespace(), Name: c.GetName(), Code: 200, RV: h.rv})
	}
	return h.rv
}

// Nodes.

func (h *hist) node(name string, labels map[string]string) {
	h.uid++
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + strconv.Itoa(h.uid)), Labels: labels}}
	h.nodes[name] = n
	h.record(n, false, "", "")
}

// assign writes podCIDRs as NodeIPAM does (managedFields time = now,
// truncated to the second as the API server stores it).
func (h *hist) assign(name string, cidrs ...string) int64 {
	return h.setCIDRs(name, invariants.DefaultFieldManager, cidrs)
}

// adopt writes podCIDRs as another allocator does.
func (h *hist) adopt(name string, cidrs ...string) {
	h.setCIDRs(name, "kube-controller-manager", cidrs)
}

func (h *hist) setCIDRs(name, manager string, cidrs []string) int64 {
	n := h.nodes[name]
	n.Spec.PodCIDR, n.Spec.PodCIDRs = cidrs[0], cidrs
	n.ManagedFields = append(n.ManagedFields, metav1.ManagedFieldsEntry{
		Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
		Time:     &metav1.Time{Time: h.now.Add(10 * time.Millisecond).Truncate(time.Second)},
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:podCIDR":{},"f:podCIDRs":{".":{}}}}`)},
	})
	if manager == invariants.DefaultFieldManager {
		return h.record(n, false, "nodes", "")
	}
	return h.record(n, false, "", "")
}

// rvOfAssign returns the RV of the last podCIDR write to node name.
func (h *hist) rvOfAssign(name string) int64 {
	for i := len(h.obs) - 1; i >= 0; i-- {
		if n, ok := h.obs[i].Object.(*corev1.Node); ok && n.Name == name && len(n.Spec.PodCIDRs) > 0 && !h.obs[i].Deleted {
			return h.obs[i].RV
		}
	}
	return 0
}

// heartbeat is a kubelet status update: a new RV, nothing that matters.
func (h *hist) heartbeat(name string) {
	n := h.nodes[name]
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.NewTime(h.now)}}
	h.record(n, false, "", "")
}

func (h *hist) startDeleting(name string) {
	n := h.nodes[name]
	n.DeletionTimestamp = &metav1.Time{Time: h.now}
	n.Finalizers = []string{"example.com/drain"}
	h.record(n, false, "", "")
}

func (h *hist) deleteNode(name string) {
	h.record(h.nodes[name], true, "", "")
	delete(h.nodes, name)
}

// The PodNetwork.

// spec sets spec.ranges ("name=cidr" or "name=cidr/selectorLabel").
func (h *hist) spec(ranges ...v1alpha1.PodCIDRRange) {
	h.ensurePN()
	h.pn.Spec.Ranges = ranges
	h.pn.Generation++
}

func rng(name, cidr string) v1alpha1.PodCIDRRange {
	return v1alpha1.PodCIDRRange{Name: name, CIDR: cidr}
}

func (h *hist) ensurePN() {
	if h.pn == nil {
		h.pn = &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName, Generation: 0}}
	}
}

// status sets status.ranges: each "name cidr phase" (nodeMaskSize 24 for
// IPv4, 64 for IPv6), and Ready, and records the PodNetwork.
func (h *hist) status(ready bool, ranges ...string) {
	h.ensurePN()
	var rs []v1alpha1.RangeStatus
	for _, r := range ranges {
		var name, cidr, phase string
		fields := splitN(r, 3)
		name, cidr, phase = fields[0], fields[1], fields[2]
		nms := int32(24)
		if netip.MustParsePrefix(cidr).Addr().Is6() {
			nms = 64
		}
		old := slices.IndexFunc(h.pn.Status.Ranges, func(o v1alpha1.RangeStatus) bool { return o.Name == name })
		since := ptr.To(metav1.NewTime(h.now.Truncate(time.Second)))
		if old >= 0 && string(h.pn.Status.Ranges[old].Phase) == phase {
			since = h.pn.Status.Ranges[old].PhaseSince
		}
		rs = append(rs, v1alpha1.RangeStatus{Name: name, CIDR: cidr, NodeMaskSize: nms, Phase: v1alpha1.RangePhase(phase), PhaseSince: since})
	}
	h.pn.Status.Ranges = rs
	cond := metav1.Condition{Type: v1alpha1.ReadyCondition, Status: metav1.ConditionFalse, Reason: v1alpha1.TransitionsInProgressReason, ObservedGeneration: h.pn.Generation}
	if ready {
		cond.Status, cond.Reason = metav1.ConditionTrue, v1alpha1.AllRangesActiveReason
	}
	h.pn.Status.Conditions = []metav1.Condition{cond}
	h.record(h.pn, false, "podnetworks", "status")
}

func splitN(s string, n int) []string {
	var out []string
	for len(out) < n-1 {
		i := 0
		for i < len(s) && s[i] != ' ' {
			i++
		}
		out = append(out, s[:i])
		s = s[min(i+1, len(s)):]
	}
	return append(out, s)
}

func (h *hist) policy(delaySeconds int32, when v1alpha1.WhenExhaustedPolicy) {
	h.ensurePN()
	h.pn.Spec.Allocation = &v1alpha1.AllocationPolicy{RecycleDelaySeconds: ptr.To(delaySeconds), WhenExhausted: when}
	h.pn.Generation++
	h.record(h.pn, false, "", "")
}

func (h *hist) quarantine(cidrs ...string) {
	h.pn.Status.Quarantine = nil
	for _, c := range cidrs {
		h.pn.Status.Quarantine = append(h.pn.Status.Quarantine, v1alpha1.QuarantinedBlock{CIDR: c, FreedAt: ptr.To(metav1.NewTime(h.now.Truncate(time.Second)))})
	}
	h.record(h.pn, false, "podnetworks", "status")
}

func (h *hist) deletePN() {
	h.record(h.pn, true, "", "")
	h.pn = nil
}

// Consumers.

func (h *hist) consumer(name string, required bool) {
	h.consumers[name] = &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.PodNetworkConsumerSpec{Required: ptr.To(required)}}
	h.record(h.consumers[name], false, "", "")
}

func (h *hist) deletingConsumer(name string) {
	c := h.consumers[name]
	c.DeletionTimestamp = &metav1.Time{Time: h.now}
	c.Finalizers = []string{"example.com/keep"}
	h.record(c, false, "", "")
}

// ack writes consumer's Accepted acknowledgement of the range's current
// name and cidr in phase.
func (h *hist) ack(consumer, name, cidr string, phase v1alpha1.RangePhase) {
	c := h.consumers[consumer]
	a := v1alpha1.ConsumerRangeStatus{Name: name, CIDR: cidr, Phase: phase, Result: v1alpha1.AckAccepted, LastTransitionTime: ptr.To(metav1.NewTime(h.now.Truncate(time.Second)))}
	i := slices.IndexFunc(c.Status.Ranges, func(o v1alpha1.ConsumerRangeStatus) bool { return o.Name == name })
	if i < 0 {
		c.Status.Ranges = append(c.Status.Ranges, a)
	} else {
		c.Status.Ranges[i] = a
	}
	h.record(c, false, "", "")
}

// ackAll acks phase of the range for every consumer.
func (h *hist) ackAll(name, cidr string, phase v1alpha1.RangePhase) {
	names := make([]string, 0, len(h.consumers))
	for n := range h.consumers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		h.ack(n, name, cidr, phase)
	}
}

// The Lease.

const leaseNS = "podnetwork-system"

// acquire makes identity the holder from now, as process proc.
func (h *hist) acquire(identity, proc string) {
	h.lease = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: leaseNS, Name: DefaultLeaseName}, Spec: coordinationv1.LeaseSpec{
		HolderIdentity: ptr.To(identity), LeaseDurationSeconds: ptr.To[int32](15),
		AcquireTime: &metav1.MicroTime{Time: h.now}, RenewTime: &metav1.MicroTime{Time: h.now},
	}}
	h.leader = proc
	h.record(h.lease, false, "leases", "")
}

// renew renews the current holder's lease now.
func (h *hist) renew() {
	h.lease.Spec.RenewTime = &metav1.MicroTime{Time: h.now}
	h.record(h.lease, false, "leases", "")
}

// write logs a write by proc that is not an observation (an event, or a
// write that failed), sent at start.
func (h *hist) write(proc string, start time.Time, resource string, code int) {
	h.writes = append(h.writes, Write{Process: proc, Start: start, End: start.Add(5 * time.Millisecond), Verb: "create", Resource: resource, Name: "x", Code: code})
}

// sentBy replaces the write logged for the latest observation: proc sent it
// at start (it landed now).
func (h *hist) sentBy(proc string, start time.Time) {
	w := &h.writes[len(h.writes)-1]
	w.Process, w.Start = proc, start
}

// activate runs range name/cidr from the spec through Pending to Active
// with every consumer's ack, the way a clean lifecycle does.
func (h *hist) activate(name, cidr string, others ...string) {
	h.spec(append(specOf(h.pn), rng(name, cidr))...)
	h.status(false, append(others, name+" "+cidr+" Pending")...)
	h.ackAll(name, cidr, v1alpha1.RangePhasePending)
	h.status(len(others) == 0 || allActive(others), append(others, name+" "+cidr+" Active")...)
	h.ackAll(name, cidr, v1alpha1.RangePhaseActive)
}

func specOf(pn *v1alpha1.PodNetwork) []v1alpha1.PodCIDRRange {
	if pn == nil {
		return nil
	}
	return slices.Clone(pn.Spec.Ranges)
}

func allActive(ranges []string) bool {
	for _, r := range ranges {
		if splitN(r, 3)[2] != "Active" {
			return false
		}
	}
	return true
}

// check runs Check with the test's Lease namespace.
func (h *hist) check(t *testing.T, opts Options) Report {
	t.Helper()
	opts.LeaseNamespace = leaseNS
	return Check(h.obs, h.writes, opts)
}

// invariantsOf returns the invariants that fired, sorted, each once.
func invariantsOf(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Invariant)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
