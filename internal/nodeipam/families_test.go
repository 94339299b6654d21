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
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/slimnode"
)

func familyPolicy(b *pnBuilder, p v1alpha1.FamilyPolicy) *pnBuilder {
	if b.pn.Spec.Allocation == nil {
		b.pn.Spec.Allocation = &v1alpha1.AllocationPolicy{}
	}
	b.pn.Spec.Allocation.FamilyPolicy = p
	return b
}

func awaiting(consumers ...string) func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus) {
	return func(_ *v1alpha1.PodCIDRRange, rs *v1alpha1.RangeStatus) { rs.Awaiting = consumers }
}

func rejectedBy(consumer string) func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus) {
	return func(_ *v1alpha1.PodCIDRRange, rs *v1alpha1.RangeStatus) {
		rs.Rejections = append(rs.Rejections, v1alpha1.RangeRejection{Consumer: consumer, Message: "no"})
	}
}

var gpuOnly = terms(exprs(req("pool", corev1.NodeSelectorOpIn, "gpu")))

func TestFamilyWait(t *testing.T) {
	gpu := map[string]string{"pool": "gpu"}
	tests := []struct {
		name   string
		pn     *v1alpha1.PodNetwork
		labels map[string]string
		want   []string
	}{
		{name: "Independent never waits",
			pn: podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).rng("v6", "fd00::/48", v1alpha1.RangePhasePending).obj()},
		{name: "AllOrWait waits for a Pending range of a family it would go without",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v6", "fd00::/48", v1alpha1.RangePhasePending), v1alpha1.FamilyPolicyAllOrWait).obj(),
			want: []string{"v6"}},
		{name: "AllOrWait waits with no Active range of either family selecting it",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhasePending).
				rng("v6", "fd00::/48", v1alpha1.RangePhasePending), v1alpha1.FamilyPolicyAllOrWait).obj(),
			want: []string{"v4", "v6"}},
		{name: "a Pending range of a family an Active range already serves does not make it wait",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v4b", "10.1.0.0/16", v1alpha1.RangePhasePending), v1alpha1.FamilyPolicyAllOrWait).obj()},
		{name: "a Pending range that does not select the node does not make it wait",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v6", "fd00::/48", v1alpha1.RangePhasePending, selector(gpuOnly)), v1alpha1.FamilyPolicyAllOrWait).obj()},
		{name: "a Pending range that selects the node makes it wait",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v6", "fd00::/48", v1alpha1.RangePhasePending, selector(gpuOnly)), v1alpha1.FamilyPolicyAllOrWait).obj(),
			labels: gpu, want: []string{"v6"}},
		{name: "an Active range of the family that does not select the node does not serve it",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v6gpu", "fd00:1::/48", v1alpha1.RangePhaseActive, selector(gpuOnly)).
				rng("v6", "fd00::/48", v1alpha1.RangePhasePending), v1alpha1.FamilyPolicyAllOrWait).obj(),
			want: []string{"v6"}},
		{name: "an Active range of the family that selects the node serves it",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v6gpu", "fd00:1::/48", v1alpha1.RangePhaseActive, selector(gpuOnly)).
				rng("v6", "fd00::/48", v1alpha1.RangePhasePending), v1alpha1.FamilyPolicyAllOrWait).obj(),
			labels: gpu},
		{name: "an invalid Pending range is never activated: nothing to wait for",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v6", "fd00::/48", v1alpha1.RangePhasePending, invalid(v1alpha1.RangeInvalidServiceCIDROverlap)), v1alpha1.FamilyPolicyAllOrWait).obj()},
		{name: "Draining and Released ranges do not count",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("old6", "fd00::/48", v1alpha1.RangePhaseDraining).rng("gone6", "fd00:1::/48", v1alpha1.RangePhaseReleased),
				v1alpha1.FamilyPolicyAllOrWait).obj()},
		{name: "a Pending range inside an Active one is not awaited",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v6", "fd00::/48", v1alpha1.RangePhaseActive, selector(gpuOnly)).
				rng("v6sub", "fd00::/56", v1alpha1.RangePhasePending), v1alpha1.FamilyPolicyAllOrWait).obj()},
		{name: "a hand-edited Pending range is not trusted, not awaited",
			pn: familyPolicy(podNetwork().rng("v4", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v6", "fd00::/48", v1alpha1.RangePhasePending).handEdited("v6", "phase"), v1alpha1.FamilyPolicyAllOrWait).obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			cfg := NewConfig(tt.pn)
			var got []string
			for _, a := range cfg.FamilyWait("n", tt.labels, Choose(cfg.Candidates, "n", tt.labels, v1alpha1.IPv4)) {
				got = append(got, a.Name)
			}
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

func TestFamilyPolicyAllocation(t *testing.T) {
	dual := func(v6 v1alpha1.RangePhase, p v1alpha1.FamilyPolicy, opts ...func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus)) *v1alpha1.PodNetwork {
		pn := familyPolicy(podNetwork().rng("v4", "10.0.0.0/24", v1alpha1.RangePhaseActive, mask(26)).
			rng("v6", "fd00::/62", v1alpha1.RangePhasePending, append([]func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus){mask(64)}, opts...)...), p).obj()
		pn.Status.Ranges[1].Phase = v6
		pn.ResourceVersion, pn.Generation = "1", 1
		return pn
	}

	t.Run("Independent gives IPv4 alone while the IPv6 range is Pending", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, dual(v1alpha1.RangePhasePending, ""))
		g.Expect(f.allocate("a")).To(Equal([]string{"10.0.0.0/26"}))
	})

	t.Run("AllOrWait makes the node wait, says why, then gives both families at once", func(t *testing.T) {
		g := NewWithT(t)
		pn := dual(v1alpha1.RangePhasePending, v1alpha1.FamilyPolicyAllOrWait, awaiting("flannel"))
		f := openState(t, pn)
		step, err := f.state.Decide("a", node("a"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(step.Patch).To(BeNil(), "never IPv4 alone")
		g.Expect(step.Unavailable).NotTo(BeNil())
		g.Expect(step.Unavailable.Emit).To(BeTrue(), "reported like an exhausted wait: a CIDRNotAvailable event")
		g.Expect(step.Unavailable.Err.FamilyWait).To(BeTrue())
		g.Expect(step.Unavailable.Err.Message()).To(And(ContainSubstring(`AllOrWait`), ContainSubstring(`IPv6 range "v6" (fd00::/62)`),
			ContainSubstring("awaiting flannel")))
		g.Expect(step.RetryAfter).To(BeNumerically(">", 0))
		g.Expect(f.holdings()).To(BeEmpty(), "nothing reserved while it waits")
		g.Expect(f.state.WaitingNodes()).To(ConsistOf("a"))

		active := dual(v1alpha1.RangePhaseActive, v1alpha1.FamilyPolicyAllOrWait)
		active.ResourceVersion = "2"
		res, err := f.state.Sync(active)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(res.Retry).To(BeTrue(), "the waiting nodes are retried when the range is Active")
		g.Expect(f.allocate("a")).To(Equal([]string{"10.0.0.0/26", "fd00::/64"}))
	})

	t.Run("AllOrWait: a rejected Pending range is named with who rejected it", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, dual(v1alpha1.RangePhasePending, v1alpha1.FamilyPolicyAllOrWait, rejectedBy("calico")))
		_, err := f.state.Allocate(node("a"))
		var ue *UnavailableError
		g.Expect(errors.As(err, &ue)).To(BeTrue())
		g.Expect(ue.Message()).To(ContainSubstring("rejected by calico"))
	})

	t.Run("AllOrWait: an exhausted IPv6 range leaves the node without either family", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, dual(v1alpha1.RangePhaseActive, v1alpha1.FamilyPolicyAllOrWait))
		for i := range 4 {
			g.Expect(f.allocate(fmt.Sprint("n", i))).To(HaveLen(2))
		}
		_, err := f.state.Allocate(node("late"))
		var ue *UnavailableError
		g.Expect(errors.As(err, &ue)).To(BeTrue())
		g.Expect(ue.FamilyWait).To(BeFalse(), "exhausted, not waiting for a family")
		for _, h := range f.state.Holdings() {
			g.Expect(h.Owner).NotTo(Equal("late"))
		}
	})

	t.Run("switching to AllOrWait retries the waiting nodes", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, dual(v1alpha1.RangePhasePending, ""))
		next := dual(v1alpha1.RangePhasePending, v1alpha1.FamilyPolicyAllOrWait)
		next.ResourceVersion = "2"
		res, err := f.state.Sync(next)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(res.Retry).To(BeTrue())
		g.Expect(res.Config.FamilyPolicy).To(Equal(v1alpha1.FamilyPolicyAllOrWait))
	})

	t.Run("nodes that hold one family already are left alone", func(t *testing.T) {
		g := NewWithT(t)
		f := openState(t, dual(v1alpha1.RangePhaseActive, v1alpha1.FamilyPolicyAllOrWait), node("old", "10.0.0.0/26"))
		step, err := f.state.Decide("old", node("old", "10.0.0.0/26"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(step.Patch).To(BeNil(), "podCIDRs are immutable")
	})
}

// TestAllOrWaitNeverOneFamilyAlone is the promise as a property: under
// AllOrWait, over random ranges (both families, Pending, Active, Draining,
// Released, with and without nodeSelectors, some tiny so they run out) and
// random nodes, no node is ever given podCIDRs of one family while a
// Pending or Active range of the other family selects it; and every node
// that gets blocks gets one of every family an Active range selecting it
// has. The seed is printed on failure.
func TestAllOrWaitNeverOneFamilyAlone(t *testing.T) {
	pools := []string{"a", "b", ""}
	phases := []v1alpha1.RangePhase{v1alpha1.RangePhasePending, v1alpha1.RangePhaseActive, v1alpha1.RangePhaseActive,
		v1alpha1.RangePhaseDraining, v1alpha1.RangePhaseReleased}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 33))
		b := podNetwork()
		for i := range 1 + r.IntN(5) {
			phase := phases[r.IntN(len(phases))]
			var opts []func(*v1alpha1.PodCIDRRange, *v1alpha1.RangeStatus)
			if pool := pools[r.IntN(len(pools))]; pool != "" {
				opts = append(opts, selector(terms(exprs(req("pool", corev1.NodeSelectorOpIn, pool)))))
			}
			if r.IntN(2) == 0 {
				b.rng(fmt.Sprint("v4-", i), fmt.Sprintf("10.%d.0.0/24", i), phase, append(opts, mask(int32(25+r.IntN(2))))...)
			} else {
				b.rng(fmt.Sprint("v6-", i), fmt.Sprintf("fd00:%x::/63", i+1), phase, append(opts, mask(int32(64+r.IntN(2))))...)
			}
		}
		pn := familyPolicy(b, v1alpha1.FamilyPolicyAllOrWait).obj()
		pn.ResourceVersion, pn.Generation = "1", 1
		f := openState(t, pn)
		cfg := NewConfig(pn)
		for i := range 12 {
			n := &slimnode.Node{}
			*n = *node(fmt.Sprint("n", i))
			if pool := pools[r.IntN(len(pools))]; pool != "" {
				n.Labels = map[string]string{"pool": pool}
			}
			a, err := f.state.Allocate(n)
			var ue *UnavailableError
			if err != nil && !errors.As(err, &ue) {
				t.Fatalf("seed %d: node %s: %v", seed, n.Name, err)
			}
			got := map[v1alpha1.IPFamily]bool{}
			for _, blk := range a.Blocks {
				got[v1alpha1.FamilyOf(blk)] = true
			}
			if len(got) == 0 {
				continue
			}
			for i := range pn.Status.Ranges {
				rs := &pn.Status.Ranges[i]
				if rs.Phase != v1alpha1.RangePhasePending && rs.Phase != v1alpha1.RangePhaseActive {
					continue
				}
				sr := pn.Spec.Ranges[slicesIndex(pn.Spec.Ranges, rs.Name)]
				sel, _ := CompileNodeSelector(sr.NodeSelector)
				if ok, _ := sel.Match(n.Name, n.Labels); ok && !got[v1alpha1.FamilyOf(mp(rs.CIDR))] {
					t.Fatalf("seed %d: node %s got %v but %s range %q (%s) selects it; config %s", seed, n.Name, a.Blocks, rs.Phase, rs.Name, rs.CIDR, describe(cfg))
				}
			}
			f.state.Done(n.Name, &Patch{Blocks: a.Blocks, UID: n.UID}, WriteStored)
		}
	}
}

func slicesIndex(rs []v1alpha1.PodCIDRRange, name string) int {
	for i := range rs {
		if rs[i].Name == name {
			return i
		}
	}
	panic("no spec range " + name)
}

func describe(c Config) string {
	var parts []string
	for _, r := range c.Ranges {
		parts = append(parts, fmt.Sprintf("%s %s active=%v", r.Name, r.Prefix, r.Active))
	}
	return strings.Join(parts, "; ") + " policy " + string(c.FamilyPolicy)
}
