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

package autoscale

import (
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

var (
	t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	mp = netip.MustParsePrefix
)

// fixture builds an Input: a pool "p" in 10.64.0.0/12 adding /20s of /24
// blocks by default, the admin's ranges, the set, tracked ranges, nodes.
type fixture struct{ in Input }

func newFixture(mode v1alpha1.AutoscalingMode) *fixture {
	return &fixture{in: Input{
		Now:        t0,
		Generation: 3,
		Autoscaling: v1alpha1.PodNetworkAutoscaling{Mode: mode, Pools: []v1alpha1.AutoscalingPool{{
			Name: "p", CIDR: "10.64.0.0/12", RangePrefixLength: 20, NodeMaskSize: 24,
			Grow: v1alpha1.GrowThreshold{FreePercentBelow: 20},
		}}},
	}}
}

func (f *fixture) pool() *v1alpha1.AutoscalingPool { return &f.in.Autoscaling.Pools[0] }

// admin declares a range of spec.ranges, tracked in phase with usage.
func (f *fixture) admin(name, cidr string, phase v1alpha1.RangePhase, usage ...int64) *fixture {
	f.in.Spec = append(f.in.Spec, v1alpha1.PodCIDRRange{Name: name, CIDR: cidr, NodeMaskSize: 24})
	return f.tracked(name, cidr, phase, "", usage...)
}

// auto declares a range of the set, tracked in phase (none when "") with
// usage (capacity, allocated, quarantined).
func (f *fixture) auto(name, cidr string, phase v1alpha1.RangePhase, usage ...int64) *fixture {
	f.in.Set = append(f.in.Set, v1alpha1.AutoscaledRange{Name: name, Pool: "p", CIDR: v1alpha1.CIDRString(cidr), NodeMaskSize: 24, AddedTime: ptr.To(metav1.NewTime(t0.Add(-time.Hour)))})
	if phase == "" {
		return f
	}
	return f.tracked(name, cidr, phase, "p", usage...)
}

// tracked adds a status entry; usage is capacity, allocated, quarantined.
func (f *fixture) tracked(name, cidr string, phase v1alpha1.RangePhase, pool string, usage ...int64) *fixture {
	rs := v1alpha1.RangeStatus{Name: name, CIDR: cidr, NodeMaskSize: 24, Phase: phase, PhaseSince: ptr.To(metav1.NewTime(t0.Add(-50 * time.Minute))), Pool: pool}
	if len(usage) == 3 {
		rs.Usage = v1alpha1.NewRangeUsage(usage[0], usage[1], usage[0]-usage[1]-usage[2], usage[2])
	}
	f.in.Status.Ranges = append(f.in.Status.Ranges, rs)
	return f
}

// status returns the tracked entry named name, to edit it.
func (f *fixture) status(name string) *v1alpha1.RangeStatus {
	return f.in.Status.FindRange(name)
}

func (f *fixture) consumer(name string, required bool) *fixture {
	f.in.Status.Consumers = append(f.in.Status.Consumers, v1alpha1.ConsumerSummary{Name: name, Required: required})
	return f
}

func (f *fixture) decide() Output { return Decide(f.in) }

// next feeds the output back as the controller's writes would: the set,
// and status.autoscaling.
func (f *fixture) next(out Output) *fixture {
	f.in.Set = out.Set
	f.in.Status.Autoscaling = out.Status
	return f
}

func poolStatus(t *testing.T, out Output) *v1alpha1.AutoscalingPoolStatus {
	t.Helper()
	if out.Status == nil || len(out.Status.Pools) != 1 {
		t.Fatalf("status %+v, want one pool", out.Status)
	}
	return &out.Status.Pools[0]
}

func reasons(out Output) []string {
	var rs []string
	for _, e := range out.Events {
		rs = append(rs, e.Reason)
	}
	return rs
}

func setNames(out Output) []string {
	var ns []string
	for _, a := range out.Set {
		ns = append(ns, a.Name+"="+string(a.CIDR))
	}
	return ns
}

func condition(st *v1alpha1.AutoscalingPoolStatus, t string) metav1.Condition {
	for _, c := range st.Conditions {
		if c.Type == t {
			return c
		}
	}
	return metav1.Condition{}
}

func zone(z string) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{z}},
	}}}}
}
