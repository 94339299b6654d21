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

package autoscale_test

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/refconsumer"
)

// poolName is the pool every spec autoscales.
const poolName = "p"

// autoPool returns a pool carving /rangeBits ranges of /28 blocks (16
// addresses: small ranges fill with few nodes) from cidr, growing below
// growPercent free blocks.
func autoPool(cidr string, rangeBits, growPercent int32) v1alpha1.AutoscalingPool {
	return v1alpha1.AutoscalingPool{
		Name: poolName, CIDR: cidr, RangePrefixLength: rangeBits, NodeMaskSize: 28,
		Grow: v1alpha1.GrowThreshold{FreePercentBelow: growPercent},
	}
}

// network returns the admin's PodNetwork "default": their ranges, blocks
// recycled at once, and pool in Auto mode without a cooldown.
func network(pool v1alpha1.AutoscalingPool, ranges ...v1alpha1.PodCIDRRange) *v1alpha1.PodNetwork {
	pn := framework.PodNetwork().RecycleDelaySeconds(0).Ranges(ranges...).Obj()
	pn.Spec.Autoscaling = v1alpha1.PodNetworkAutoscaling{Mode: v1alpha1.AutoscalingAuto, CooldownSeconds: ptr.To(int32(0)), Pools: []v1alpha1.AutoscalingPool{pool}}
	return pn
}

// startOperator runs the operator's manager (lifecycle, NodeIPAM, the
// autoscaler) until stopped or the end of the spec.
func startOperator() *framework.Process {
	op := framework.StartOperator(suiteCtx, suite.ControlPlane.Config, func(o *controllers.Options) {
		o.KubeAPIQPS, o.KubeAPIBurst = 500, 1000
		o.NodeIPAM.StatusInterval = 200 * time.Millisecond
		o.Autoscaler.StatusInterval = 200 * time.Millisecond
	})
	DeferCleanup(op.Stop)
	return op
}

// consumers are reference consumers, required, in one manager of their
// own (as plugins run beside the operator).
type consumers struct {
	names  []string
	delay  time.Duration
	reject func(v1alpha1.RangeStatus) string
	hold   func(v1alpha1.RangeStatus) bool
}

// start registers and runs the consumers until the end of the spec.
func (c consumers) start() {
	GinkgoHelper()
	mgr, err := framework.NewManager(suite.ControlPlane.Config)
	Expect(err).NotTo(HaveOccurred())
	for _, name := range c.names {
		rc := &refconsumer.Consumer{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Name: name, Required: true,
			Delay: c.delay, Reject: c.reject, Hold: c.hold,
		}
		Expect(rc.Register(suiteCtx)).To(Succeed())
		Expect(rc.SetupWithManager(mgr)).To(Succeed())
	}
	p := framework.StartManager(suiteCtx, "the consumers", mgr)
	DeferCleanup(p.Stop)
}

// recordHistory records every PodNetwork and AutoscaledRangeSet change for
// the rest of the spec.
func recordHistory() *framework.Recorder {
	rec, err := framework.Record(suiteCtx, k8sClient, &v1alpha1.PodNetworkList{}, &v1alpha1.AutoscaledRangeSetList{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(rec.Stop)
	return rec
}

// expectInvariants checks every node against the ranges recorded Active.
func expectInvariants(history *framework.Recorder) {
	GinkgoHelper()
	Expect(history.CheckCluster(suiteCtx, k8sClient)).To(Succeed())
}

// autoscaled returns "name=cidr" of every range in AutoscaledRangeSet
// "default".
func autoscaled() []string {
	set := &v1alpha1.AutoscaledRangeSet{}
	if err := k8sClient.Get(suiteCtx, client.ObjectKey{Name: v1alpha1.AutoscaledRangeSetName}, set); err != nil || set.Spec == nil {
		return nil
	}
	var out []string
	for _, a := range set.Spec.Ranges {
		out = append(out, a.Name+"="+string(a.CIDR))
	}
	return out
}

// pool returns the status of the spec's pool.
func pool() v1alpha1.AutoscalingPoolStatus {
	if pn, err := k8sClient.PodNetwork(); err == nil && pn.Status.Autoscaling != nil {
		for _, p := range pn.Status.Autoscaling.Pools {
			if p.Name == poolName {
				return p
			}
		}
	}
	return v1alpha1.AutoscalingPoolStatus{}
}

// poolState returns the state of the spec's pool.
func poolState() v1alpha1.PoolState { return pool().State }

// poolCondition returns a condition of the spec's pool.
func poolCondition(t string) metav1.Condition {
	p := pool()
	if c := meta.FindStatusCondition(p.Conditions, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// events returns the events about the PodNetwork with the given reason.
func events(reason string) []eventsv1.Event {
	var out []eventsv1.Event
	for _, ev := range k8sClient.Events("PodNetwork") {
		if ev.Reason == reason {
			out = append(out, ev)
		}
	}
	return out
}

// createNodesAtRate creates count nodes at perSecond, one per tick, and
// returns their names. The ticker paces the load, as nodes joining a
// cluster would; nothing waits on it for a condition.
func createNodesAtRate(prefix string, count int, perSecond float64) []string {
	GinkgoHelper()
	tick := time.NewTicker(time.Duration(float64(time.Second) / perSecond))
	defer tick.Stop()
	var names []string
	for i := range count {
		if i > 0 {
			<-tick.C
		}
		name := fmt.Sprintf("%s-%d", prefix, i)
		Expect(k8sClient.Create(suiteCtx, framework.Node(name).Obj())).To(Succeed())
		names = append(names, name)
	}
	return names
}

// withoutPodCIDRs returns the named nodes that have no podCIDRs yet.
func withoutPodCIDRs(names []string) func() []string {
	return func() []string {
		var out []string
		for _, name := range names {
			n := &corev1.Node{}
			if err := k8sClient.Get(suiteCtx, client.ObjectKey{Name: name}, n); err != nil || len(n.Spec.PodCIDRs) == 0 {
				out = append(out, name)
			}
		}
		return out
	}
}

// insideAll reports whether every node's podCIDRs lie inside p.
func insideAll(p string) func() []string {
	outer := netip.MustParsePrefix(p)
	return func() []string {
		var out []string
		for _, n := range k8sClient.Nodes() {
			for _, c := range n.Spec.PodCIDRs {
				if q, err := netip.ParsePrefix(c); err != nil || q.Bits() < outer.Bits() || !outer.Contains(q.Addr()) {
					out = append(out, n.Name+"="+c)
				}
			}
		}
		return out
	}
}

// deleteNodes deletes the named nodes.
func deleteNodes(names []string) {
	GinkgoHelper()
	for _, name := range names {
		Expect(client.IgnoreNotFound(k8sClient.Delete(suiteCtx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
	}
}

// resetCluster removes everything a spec created (framework.API.ResetCluster)
// and the autoscaler's set.
func resetCluster() {
	GinkgoHelper()
	k8sClient.ResetCluster(
		&v1alpha1.AutoscaledRangeSet{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.AutoscaledRangeSetName}},
	)
}

// phasesSeen returns, per range name, the phases the recorded PodNetwork
// statuses showed it in, in order, without repeats.
func phasesSeen(history *framework.Recorder) map[string][]v1alpha1.RangePhase {
	out := map[string][]v1alpha1.RangePhase{}
	for _, ev := range history.Events() {
		pn, ok := ev.Object.(*v1alpha1.PodNetwork)
		if !ok {
			continue
		}
		for _, rs := range pn.Status.Ranges {
			if seen := out[rs.Name]; len(seen) == 0 || seen[len(seen)-1] != rs.Phase {
				out[rs.Name] = append(seen, rs.Phase)
			}
		}
	}
	return out
}

// poolRangeNames returns the names of the ranges status ever marked as the
// pool's.
func poolRangeNames(history *framework.Recorder) []string {
	var out []string
	for _, ev := range history.Events() {
		if pn, ok := ev.Object.(*v1alpha1.PodNetwork); ok {
			for _, rs := range pn.Status.Ranges {
				if rs.Pool == poolName && !slices.Contains(out, rs.Name) {
					out = append(out, rs.Name)
				}
			}
		}
	}
	return out
}

// rangeName returns the name of an autoscaled() entry.
func rangeName(entry string) string {
	name, _, _ := strings.Cut(entry, "=")
	return name
}
