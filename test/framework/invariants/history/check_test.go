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
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

const (
	cidrA   = "10.0.0.0/16"
	cidrB   = "10.1.0.0/16"
	cidrBig = "10.0.0.0/15"
	cidrV6  = "fd99::/48"
)

const (
	pending  = v1alpha1.RangePhasePending
	active   = v1alpha1.RangePhaseActive
	draining = v1alpha1.RangePhaseDraining
	released = v1alpha1.RangePhaseReleased
)

// base is a clean start: two required consumers, range a Active and the
// PodNetwork Ready, the lease held by op-0.
func base() *hist {
	h := newHist()
	h.acquire("op-0_1", "op-0")
	h.consumer("node-ipam", true)
	h.consumer("kube-proxy", true)
	h.activate("a", cidrA)
	return h
}

// drainA removes range a from the spec: Draining, every consumer's ack.
func drainA(h *hist) {
	h.spec()
	h.status(false, "a "+cidrA+" Draining")
	h.ackAll("a", cidrA, draining)
}

type invariantCase struct {
	name  string
	build func(h *hist)
	opts  Options
	want  []string // invariants that fire; liveness ones only count when listed or all is set
	all   bool     // judge the liveness invariants too
	msg   string   // a violation's message contains it
}

func runInvariantCases(t *testing.T, cases []invariantCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := base()
			tc.build(h)
			r := h.check(t, tc.opts)
			got := invariantsOf(r.Violations)
			judgeLiveness := tc.all || slices.Contains(tc.want, InvLivenessNodes) || slices.Contains(tc.want, InvLivenessReady)
			if !judgeLiveness {
				got = slices.DeleteFunc(got, func(inv string) bool { return inv == InvLivenessNodes || inv == InvLivenessReady })
			}
			// The cases stretch time without renewing the lease, so their
			// node writes are stale; lease_test.go judges the lease.
			if !slices.Contains(tc.want, InvWriteWithoutLease) {
				got = slices.DeleteFunc(got, func(inv string) bool { return inv == InvWriteWithoutLease })
			}
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("invariants fired %v, want %v; violations:\n%s", got, want, dump(r.Violations))
			}
			if tc.msg != "" && !slices.ContainsFunc(r.Violations, func(v Violation) bool { return strings.Contains(v.Message, tc.msg) }) {
				t.Fatalf("no violation says %q:\n%s", tc.msg, dump(r.Violations))
			}
		})
	}
}

func dump(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("  " + v.Invariant + " RV " + itoa(v.RV) + ": " + v.Message + "\n")
	}
	return b.String()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestShape(t *testing.T) {
	runInvariantCases(t, []invariantCase{
		{name: "dual-stack is fine", build: func(h *hist) {
			h.node("n1", nil)
			h.adopt("n1", "10.200.0.0/24", "fd99:1::/64")
		}},
		{name: "two IPv4 podCIDRs", want: []string{InvShape}, msg: "not at most one per IP family", build: func(h *hist) {
			h.node("n1", nil)
			h.adopt("n1", "10.200.0.0/24", "10.200.1.0/24")
		}},
		{name: "podCIDR is not podCIDRs[0], reported once", want: []string{InvShape}, msg: "is not podCIDRs[0]", build: func(h *hist) {
			h.node("n1", nil)
			h.adopt("n1", "10.200.0.0/24")
			h.nodes["n1"].Spec.PodCIDR = "10.200.9.0/24"
			h.heartbeat("n1")
			h.heartbeat("n1")
		}},
	})
}

func TestNoOverlap(t *testing.T) {
	runInvariantCases(t, []invariantCase{
		{name: "distinct blocks", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.node("n2", nil)
			h.assign("n2", "10.0.1.0/24")
		}},
		{name: "the same block twice", want: []string{InvOverlap}, msg: "nodes n2 (10.0.0.0/24) and n1 (10.0.0.0/24) have overlapping podCIDRs", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.node("n2", nil)
			h.assign("n2", "10.0.0.0/24")
		}},
		{name: "an adopted /23 over an assigned /24", want: []string{InvOverlap}, msg: "nodes big (10.0.0.0/23) and n1 (10.0.1.0/24)", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.1.0/24")
			h.node("big", nil)
			h.adopt("big", "10.0.0.0/23")
		}},
		{name: "an assigned /24 inside an adopted /23", want: []string{InvOverlap}, build: func(h *hist) {
			h.node("big", nil)
			h.adopt("big", "10.0.0.0/23")
			h.node("n1", nil)
			h.assign("n1", "10.0.1.0/24")
		}},
		{name: "a block reused after its node was deleted", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.deleteNode("n1")
			h.tick(2 * time.Minute)
			h.node("n2", nil)
			h.assign("n2", "10.0.0.0/24")
		}},
		{name: "a name reused by a new object without its deletion observed", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.tick(2 * time.Minute)
			h.node("n1", nil) // new uid
			h.assign("n1", "10.0.0.0/24")
		}},
	})
}

func TestInsideActive(t *testing.T) {
	runInvariantCases(t, []invariantCase{
		{name: "in an Active range", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.7.0/24")
		}},
		{name: "in a Pending range", want: []string{InvInsideActive}, msg: "b 10.1.0.0/16 Pending", build: func(h *hist) {
			h.spec(rng("a", cidrA), rng("b", cidrB))
			h.status(false, "a "+cidrA+" Active", "b "+cidrB+" Pending")
			h.node("n1", nil)
			h.assign("n1", "10.1.0.0/24")
		}},
		{name: "outside every range", want: []string{InvInsideActive}, msg: "it lies in no tracked range", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.9.0.0/24")
		}},
		{name: "managedFields stripped: the proxy's write says it was NodeIPAM's", want: []string{InvInsideActive}, build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.9.0.0/24")
			h.obs[len(h.obs)-1].Object.(*corev1.Node).ManagedFields = nil
		}},
		{name: "adopted outside every range is not judged", build: func(h *hist) {
			h.node("n1", nil)
			h.adopt("n1", "10.9.0.0/24")
		}},
		{name: "not a block of the range's nodeMaskSize", want: []string{InvInsideActive}, msg: "not a /24 block", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/25")
		}},
		{name: "Draining, before node-ipam acked Draining: the race, legal", build: func(h *hist) {
			h.spec()
			h.status(false, "a "+cidrA+" Draining")
			h.ack("kube-proxy", "a", cidrA, draining)
			h.node("n1", nil)
			h.assign("n1", "10.0.3.0/24")
			h.ack("node-ipam", "a", cidrA, draining)
		}},
		{name: "Draining, after node-ipam acked Draining", want: []string{InvInsideActive}, msg: "a 10.0.0.0/16 Draining", build: func(h *hist) {
			h.node("n1", nil)
			drainA(h)
			h.assign("n1", "10.0.3.0/24")
		}},
		{name: "Released", want: []string{InvInsideActive}, msg: "a 10.0.0.0/16 Released", build: func(h *hist) {
			drainA(h)
			h.status(false, "a "+cidrA+" Released")
			h.node("n1", nil)
			h.assign("n1", "10.0.3.0/24")
		}},
		{name: "Draining inside an Active supernet", build: func(h *hist) {
			h.activate("big", cidrBig, "a "+cidrA+" Active")
			h.spec(rng("big", cidrBig))
			h.status(false, "a "+cidrA+" Draining", "big "+cidrBig+" Active")
			h.ackAll("a", cidrA, draining)
			h.node("n1", nil)
			h.assign("n1", "10.0.3.0/24")
		}},
	})
}

func TestDeletingNode(t *testing.T) {
	runInvariantCases(t, []invariantCase{
		{name: "deletion starts after the assignment", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.startDeleting("n1")
		}},
		{name: "assigned while being deleted", want: []string{InvDeletingNode}, build: func(h *hist) {
			h.node("n1", nil)
			h.startDeleting("n1")
			h.assign("n1", "10.0.0.0/24")
		}},
	})
}

func TestActivationAcked(t *testing.T) {
	addB := func(h *hist) {
		h.spec(rng("a", cidrA), rng("b", cidrB))
		h.status(false, "a "+cidrA+" Active", "b "+cidrB+" Pending")
	}
	activateB := func(h *hist) { h.status(true, "a "+cidrA+" Active", "b "+cidrB+" Active") }
	runInvariantCases(t, []invariantCase{
		{name: "every required consumer acked Pending", build: func(h *hist) {
			addB(h)
			h.ackAll("b", cidrB, pending)
			activateB(h)
		}},
		{name: "a required consumer did not ack", want: []string{InvActivationAcked}, msg: "required consumers kube-proxy", build: func(h *hist) {
			addB(h)
			h.ack("node-ipam", "b", cidrB, pending)
			activateB(h)
		}},
		{name: "an ack of another cidr under the name does not count", want: []string{InvActivationAcked}, build: func(h *hist) {
			addB(h)
			h.ack("node-ipam", "b", cidrB, pending)
			h.ack("kube-proxy", "b", "10.2.0.0/16", pending)
			activateB(h)
		}},
		{name: "an ack of an earlier phase does not count", want: []string{InvActivationAcked}, build: func(h *hist) {
			addB(h)
			h.ack("node-ipam", "b", cidrB, pending)
			h.ack("kube-proxy", "b", cidrB, released)
			activateB(h)
		}},
		{name: "a consumer that is not required is not waited for", build: func(h *hist) {
			h.consumer("optional", false)
			addB(h)
			h.ack("node-ipam", "b", cidrB, pending)
			h.ack("kube-proxy", "b", cidrB, pending)
			activateB(h)
		}},
		{name: "a consumer being deleted is not waited for", build: func(h *hist) {
			h.consumer("leaving", true)
			h.deletingConsumer("leaving")
			addB(h)
			h.ack("node-ipam", "b", cidrB, pending)
			h.ack("kube-proxy", "b", cidrB, pending)
			activateB(h)
		}},
		{name: "a consumer deleted is not waited for", build: func(h *hist) {
			h.consumer("gone", true)
			h.record(h.consumers["gone"], true, "", "")
			delete(h.consumers, "gone")
			addB(h)
			h.ackAll("b", cidrB, pending)
			activateB(h)
		}},
		{name: "added and Active in one write without acks", want: []string{InvActivationAcked}, msg: "(from (new))", build: func(h *hist) {
			h.spec(rng("a", cidrA), rng("b", cidrB))
			activateB(h)
		}},
		{name: "Draining back to Active needs no acks", build: func(h *hist) {
			drainA(h)
			h.spec(rng("a", cidrA))
			h.status(true, "a "+cidrA+" Active")
		}},
	})
}

func TestReleaseWithoutHolders(t *testing.T) {
	runInvariantCases(t, []invariantCase{
		{name: "released once its nodes are gone", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			drainA(h)
			h.deleteNode("n1")
			h.status(false, "a "+cidrA+" Released")
		}},
		{name: "released while a node holds a block", want: []string{InvReleaseNoHolders}, msg: "n1 (10.0.0.0/24)", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			drainA(h)
			h.status(false, "a "+cidrA+" Released")
		}},
		{name: "a node being deleted still holds", want: []string{InvReleaseNoHolders}, build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			drainA(h)
			h.startDeleting("n1")
			h.status(false, "a "+cidrA+" Released")
		}},
		{name: "holders inside an Active supernet do not hold", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.activate("big", cidrBig, "a "+cidrA+" Active")
			h.spec(rng("big", cidrBig))
			h.status(false, "a "+cidrA+" Draining", "big "+cidrBig+" Active")
			h.ackAll("a", cidrA, draining)
			h.status(true, "a "+cidrA+" Released", "big "+cidrBig+" Active")
		}},
		{name: "the supernet drains in the same write", want: []string{InvReleaseNoHolders}, build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.activate("big", cidrBig, "a "+cidrA+" Active")
			h.spec(rng("big", cidrBig))
			h.status(false, "a "+cidrA+" Draining", "big "+cidrBig+" Active")
			h.ackAll("a", cidrA, draining)
			h.spec()
			h.status(false, "a "+cidrA+" Released", "big "+cidrBig+" Draining")
		}},
		{name: "Pending to Released with an adopted node inside", build: func(h *hist) {
			h.spec(rng("a", cidrA), rng("b", cidrB))
			h.status(false, "a "+cidrA+" Active", "b "+cidrB+" Pending")
			h.node("n1", nil)
			h.adopt("n1", "10.1.0.0/24")
			h.spec(rng("a", cidrA))
			h.status(false, "a "+cidrA+" Active", "b "+cidrB+" Released")
		}},
		{name: "Active to Released in one write while a node holds", want: []string{InvReleaseNoHolders}, msg: "(from Active)", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.spec()
			h.status(false, "a "+cidrA+" Released")
		}},
	})
}

func TestPurgeAcked(t *testing.T) {
	release := func(h *hist) {
		drainA(h)
		h.status(false, "a "+cidrA+" Released")
	}
	runInvariantCases(t, []invariantCase{
		{name: "purged after every ack", build: func(h *hist) {
			release(h)
			h.ackAll("a", cidrA, released)
			h.status(true)
		}},
		{name: "purged without kube-proxy's ack", want: []string{InvPurgeAcked}, msg: "required consumers kube-proxy", build: func(h *hist) {
			release(h)
			h.ack("node-ipam", "a", cidrA, released)
			h.status(true)
		}},
		{name: "a name re-used with another cidr purges the old range", want: []string{InvPurgeAcked}, build: func(h *hist) {
			release(h)
			h.spec(rng("a", "10.5.0.0/16"))
			h.status(false, "a 10.5.0.0/16 Pending")
		}},
		{name: "the PodNetwork deleted while ranges are tracked", want: []string{InvPurgeAcked}, build: func(h *hist) {
			release(h)
			h.deletePN()
		}},
	})
}

func TestRecycleDelay(t *testing.T) {
	freeAndReuse := func(after time.Duration) func(h *hist) {
		return func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.deleteNode("n1")
			h.tick(after)
			h.node("n2", nil)
			h.assign("n2", "10.0.0.0/24")
		}
	}
	runInvariantCases(t, []invariantCase{
		{name: "reused after the delay", build: freeAndReuse(61 * time.Second)},
		{name: "reused within the delay", want: []string{InvRecycleDelay}, msg: "within recycleDelaySeconds 60 (whenExhausted Wait); the same leader saw the deletion", build: freeAndReuse(10 * time.Second)},
		{name: "reused just within the slack", build: freeAndReuse(59*time.Second + 500*time.Millisecond)},
		{name: "reused just outside the slack", want: []string{InvRecycleDelay}, build: freeAndReuse(58 * time.Second)},
		{name: "a shorter delay in the spec", build: func(h *hist) {
			h.policy(5, v1alpha1.WhenExhaustedWait)
			freeAndReuse(6 * time.Second)(h)
		}},
		{name: "ReuseOldest reuses at once", build: func(h *hist) {
			h.policy(60, v1alpha1.WhenExhaustedReuseOldest)
			freeAndReuse(time.Second)(h)
		}},
		{name: "a delay of 0 reuses at once", build: func(h *hist) {
			h.policy(0, v1alpha1.WhenExhaustedWait)
			freeAndReuse(0)(h)
		}},
		{name: "a fail-over before the quarantine was persisted", want: []string{InvRecycleDelay}, msg: "rebuild should have quarantined the block from the block store", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.deleteNode("n1")
			h.tick(20 * time.Second)
			h.acquire("op-1_1", "op-1")
			h.node("n2", nil)
			h.assign("n2", "10.0.0.0/24")
		}},
		{name: "a fail-over, but the deposed leader reused the block itself", want: []string{InvRecycleDelay}, msg: "the lease changed hands after the deletion", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.deleteNode("n1")
			h.tick(20 * time.Second)
			h.acquire("op-1_1", "op-1")
			h.node("n2", nil)
			h.assign("n2", "10.0.0.0/24")
			h.sentBy("op-0", h.now.Add(-time.Second))
		}},
		{name: "a fail-over after the quarantine was persisted", want: []string{InvRecycleDelay}, msg: "status.quarantine listed the block", build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.deleteNode("n1")
			h.quarantine("10.0.0.0/24")
			h.tick(20 * time.Second)
			h.acquire("op-1_1", "op-1")
			h.node("n2", nil)
			h.assign("n2", "10.0.0.0/24")
		}},
	})
}

func TestLiveness(t *testing.T) {
	sel := func(key, value string) *corev1.NodeSelector {
		return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}},
		}}}}
	}
	small := "10.0.0.0/23" // two /24 blocks
	smallRange := func(h *hist) {
		drainA(h)
		h.status(false, "a "+cidrA+" Released")
		h.ackAll("a", cidrA, released)
		h.status(true)
		h.activate("s", small)
	}
	runInvariantCases(t, []invariantCase{
		{name: "every node got a block", all: true, build: func(h *hist) {
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
		}},
		{name: "a node left without a block", want: []string{InvLivenessNodes}, msg: "node n1 ends without podCIDRs although Active ranges [a (10.0.0.0/16)]", build: func(h *hist) {
			h.node("n1", nil)
		}},
		{name: "a node being deleted is not owed a block", all: true, build: func(h *hist) {
			h.node("n1", nil)
			h.startDeleting("n1")
		}},
		{name: "a node no range selects", all: true, build: func(h *hist) {
			r := rng("a", cidrA)
			r.NodeSelector = sel("pool", "gpu")
			h.spec(r)
			h.status(true, "a "+cidrA+" Active")
			h.node("n1", map[string]string{"pool": "cpu"})
		}},
		{name: "a node a range selects", want: []string{InvLivenessNodes}, build: func(h *hist) {
			r := rng("a", cidrA)
			r.NodeSelector = sel("pool", "gpu")
			h.spec(r)
			h.status(true, "a "+cidrA+" Active")
			h.node("n1", map[string]string{"pool": "gpu"})
		}},
		{name: "a full range", all: true, build: func(h *hist) {
			smallRange(h)
			for _, n := range []string{"n1", "n2"} {
				h.node(n, nil)
				h.assign(n, map[string]string{"n1": "10.0.0.0/24", "n2": "10.0.1.0/24"}[n])
			}
			h.node("n3", nil)
		}},
		{name: "the only free block is quarantined under Wait", all: true, build: func(h *hist) {
			smallRange(h)
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.node("n2", nil)
			h.assign("n2", "10.0.1.0/24")
			h.deleteNode("n2")
			h.node("n3", nil)
		}},
		{name: "the only free block is quarantined under ReuseOldest", want: []string{InvLivenessNodes}, build: func(h *hist) {
			smallRange(h)
			h.policy(60, v1alpha1.WhenExhaustedReuseOldest)
			h.status(true, "s "+small+" Active")
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24")
			h.node("n2", nil)
			h.assign("n2", "10.0.1.0/24")
			h.deleteNode("n2")
			h.node("n3", nil)
		}},
		{name: "dual-stack: one family full, so the node rightly waits", all: true, build: func(h *hist) {
			smallRange(h)
			h.activate("v6", cidrV6, "s "+small+" Active")
			h.node("n1", nil)
			h.assign("n1", "10.0.0.0/24", "fd99::/64")
			h.node("n2", nil)
			h.assign("n2", "10.0.1.0/24", "fd99:0:0:1::/64")
			h.node("n3", nil)
		}},
		{name: "ends not Ready", want: []string{InvLivenessReady}, msg: "ends Ready=False", build: func(h *hist) {
			h.status(false, "a "+cidrA+" Active")
		}},
		{name: "ends Ready for an older generation", want: []string{InvLivenessReady}, msg: "generation", build: func(h *hist) {
			h.pn.Generation++
			h.record(h.pn, false, "", "")
		}},
		{name: "ends with the PodNetwork deleted", all: true, build: func(h *hist) {
			drainA(h)
			h.status(false, "a "+cidrA+" Released")
			h.ackAll("a", cidrA, released)
			h.status(false)
			h.deletePN()
		}},
		{name: "the history ends before the faults", want: []string{InvLivenessNodes, InvLivenessReady}, msg: "before the faults end",
			opts: Options{FaultsEnd: t0.Add(time.Hour)}, build: func(*hist) {}},
	})
}
