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
	"math"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/utils/ptr"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

func TestCollectAutoscaling(t *testing.T) {
	status := &podnetworkv1alpha1.AutoscalingStatus{Pools: []podnetworkv1alpha1.AutoscalingPoolStatus{
		{Name: "busy", State: podnetworkv1alpha1.PoolGrowing, CapacityBlocks: ptr.To(int64(256)), FreeBlocks: ptr.To(int64(40)), WaitingNodes: ptr.To(int32(2)),
			BlocksPerHour: ptr.To(int64(7200)), ExhaustionSeconds: ptr.To(int64(19))},
		{Name: "quiet", State: podnetworkv1alpha1.PoolSteady},
	}}
	ch := make(chan prometheus.Metric, 100)
	collectAutoscaling(ch, status)
	collectAutoscaling(ch, nil)
	close(ch)
	got := map[string]float64{}
	for m := range ch {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		key := m.Desc().String()
		for _, l := range pb.GetLabel() {
			key += "," + l.GetName() + "=" + l.GetValue()
		}
		got[key] = pb.GetGauge().GetValue()
	}
	find := func(desc *prometheus.Desc, labels string) float64 {
		t.Helper()
		v, ok := got[desc.String()+labels]
		if !ok {
			t.Fatalf("no series %s%s", desc, labels)
		}
		return v
	}
	checks := []struct {
		desc   *prometheus.Desc
		labels string
		want   float64
	}{
		{poolBlocksDesc, ",pool=busy,state=capacity", 256},
		{poolBlocksDesc, ",pool=busy,state=free", 40},
		{poolBlocksDesc, ",pool=busy,state=waiting", 2},
		{poolDemandDesc, ",pool=busy", 2},
		{poolExhaustionDesc, ",pool=busy", 19},
		{poolStateDesc, ",pool=busy,state=Growing", 1},
		{poolStateDesc, ",pool=busy,state=Steady", 0},
		{poolStateDesc, ",pool=quiet,state=Steady", 1},
	}
	for _, c := range checks {
		if v := find(c.desc, c.labels); v != c.want {
			t.Errorf("%s%s = %v, want %v", c.desc, c.labels, v, c.want)
		}
	}
	if v := find(poolExhaustionDesc, ",pool=quiet"); !math.IsInf(v, 1) {
		t.Errorf("exhaustion of a pool without demand %v, want +Inf", v)
	}
	if _, ok := got[poolBlocksDesc.String()+",pool=quiet,state=capacity"]; ok {
		t.Error("a pool without numbers reports capacity")
	}
}
