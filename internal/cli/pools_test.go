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

package cli_test

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
)

// autoscaled is a cluster whose pool gpu added range gpu-1 and is
// exhausted, and whose pool spare has added nothing yet.
func autoscaled() *cli.Cluster {
	pn := &v1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName, Generation: 1},
		Spec: v1alpha1.PodNetworkSpec{
			Ranges: []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}},
			Autoscaling: v1alpha1.PodNetworkAutoscaling{Mode: v1alpha1.AutoscalingAuto, Pools: []v1alpha1.AutoscalingPool{
				{Name: "gpu", CIDR: "10.250.0.0/24", RangePrefixLength: 26, MaxRanges: 1},
				{Name: "spare", CIDR: "10.251.0.0/16", RangePrefixLength: 20},
			}},
		},
		Status: v1alpha1.PodNetworkStatus{
			ObservedGeneration: ptr.To[int64](1),
			Ranges: []v1alpha1.RangeStatus{
				{Name: "a", CIDR: "10.244.0.0/16", Phase: v1alpha1.RangePhaseActive, PhaseSince: at(0)},
				{Name: "gpu-1", CIDR: "10.250.0.0/26", Phase: v1alpha1.RangePhaseActive, PhaseSince: at(0), Pool: "gpu"},
			},
			Autoscaling: &v1alpha1.AutoscalingStatus{Mode: v1alpha1.AutoscalingAuto, Message: "gpu: Exhausted; spare: Steady", Pools: []v1alpha1.AutoscalingPoolStatus{
				{Name: "gpu", State: v1alpha1.PoolExhausted, Message: "maxRanges 1 reached", Ranges: []string{"gpu-1"},
					CapacityBlocks: ptr.To[int64](4), FreeBlocks: ptr.To[int64](0), WaitingNodes: ptr.To[int32](2), ExhaustionSeconds: ptr.To[int64](0),
					Conditions: []metav1.Condition{{Type: v1alpha1.PoolExhaustedCondition, Status: metav1.ConditionTrue, Reason: v1alpha1.MaxRangesReachedReason, Message: "the pool holds maxRanges 1 ranges"}}},
				{Name: "spare", State: v1alpha1.PoolSteady, CapacityBlocks: ptr.To[int64](0), FreeBlocks: ptr.To[int64](0)},
			}},
		},
	}
	set := &v1alpha1.AutoscaledRangeSet{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.AutoscaledRangeSetName},
		Spec: &v1alpha1.AutoscaledRangeSetSpec{Ranges: []v1alpha1.AutoscaledRange{
			{Name: "gpu-1", Pool: "gpu", CIDR: "10.250.0.0/26", NodeMaskSize: 28, AddedTime: at(0)},
		}},
	}
	return &cli.Cluster{PodNetwork: pn, AutoscaledRangeSet: set}
}

func TestStatusPools(t *testing.T) {
	c := autoscaled()
	s := cli.BuildStatus(c, now)
	a := s.Autoscaling
	if a == nil || a.Mode != v1alpha1.AutoscalingAuto || len(a.Pools) != 2 {
		t.Fatalf("autoscaling %+v", a)
	}
	gpu, spare := a.Pools[0], a.Pools[1]
	if gpu.Name != "gpu" || gpu.State != v1alpha1.PoolExhausted || strings.Join(gpu.Ranges, ",") != "gpu-1" || gpu.MaxRanges != 1 ||
		gpu.Exhausted != "MaxRangesReached: the pool holds maxRanges 1 ranges" || ptr.Deref(gpu.WaitingNodes, -1) != 2 {
		t.Errorf("pool gpu %+v", gpu)
	}
	if spare.Name != "spare" || spare.State != v1alpha1.PoolSteady || len(spare.Ranges) != 0 || spare.MaxRanges != v1alpha1.DefaultPoolMaxRanges {
		t.Errorf("pool spare %+v", spare)
	}
	var b bytes.Buffer
	if err := cli.WriteStatusText(&b, &s); err != nil {
		t.Fatal(err)
	}
	golden(t, "status-autoscaled.text", b.Bytes())

	// No autoscaling and nothing autoscaled: no section.
	if s := cli.BuildStatus(transition(t), now); s.Autoscaling != nil {
		t.Errorf("autoscaling of a cluster without it: %+v", s.Autoscaling)
	}
}

func TestAutoscaledOwner(t *testing.T) {
	c := autoscaled()
	if pool, ok := c.AutoscaledOwner("gpu-1"); !ok || pool != "gpu" {
		t.Errorf("owner of gpu-1: %q %v", pool, ok)
	}
	if _, ok := c.AutoscaledOwner("a"); ok {
		t.Errorf("range a of spec.ranges has an owner")
	}
	// Without the set (it could not be read), the status says it.
	c.AutoscaledRangeSet = nil
	if pool, ok := c.AutoscaledOwner("gpu-1"); !ok || pool != "gpu" {
		t.Errorf("owner of gpu-1 from the status: %q %v", pool, ok)
	}
	msg := cli.RemoveAutoscaled("gpu-1", "gpu")
	for _, want := range []string{`range "gpu-1" is not in spec.ranges: pool gpu of AutoscaledRangeSet default added it`, "edit pool gpu in the PodNetwork's spec.autoscaling.pools", "kubectl edit ars default"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
}
