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

	"github.com/prometheus/client_golang/prometheus"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// The autoscaler's pool gauges are read, like the range gauges, from the
// PodNetwork status (status.autoscaling) at scrape time.
var (
	poolBlocksDesc = prometheus.NewDesc("podnetwork_autoscaler_pool_blocks",
		"Node blocks of the Active ranges serving an autoscaling pool's nodes (capacity, free), and the pool's nodes waiting for one (waiting).", []string{"pool", "state"}, nil)
	poolDemandDesc = prometheus.NewDesc("podnetwork_autoscaler_pool_demand_blocks_per_second",
		"Observed arrival rate of an autoscaling pool's nodes, each needing a block.", []string{"pool"}, nil)
	poolExhaustionDesc = prometheus.NewDesc("podnetwork_autoscaler_pool_exhaustion_seconds",
		"Forecast time until an autoscaling pool's serving ranges have no free block at the observed rate; +Inf when no node arrives.", []string{"pool"}, nil)
	poolStateDesc = prometheus.NewDesc("podnetwork_autoscaler_pool_state",
		"1 for the state each autoscaling pool is in (Steady, Growing, Shrinking, Recommending, Exhausted, Blocked), 0 for the others.", []string{"pool", "state"}, nil)
)

var poolStates = []podnetworkv1alpha1.PoolState{podnetworkv1alpha1.PoolSteady, podnetworkv1alpha1.PoolGrowing, podnetworkv1alpha1.PoolShrinking,
	podnetworkv1alpha1.PoolRecommending, podnetworkv1alpha1.PoolExhausted, podnetworkv1alpha1.PoolBlocked}

// collectAutoscaling reports status.autoscaling.
func collectAutoscaling(ch chan<- prometheus.Metric, s *podnetworkv1alpha1.AutoscalingStatus) {
	if s == nil {
		return
	}
	for _, p := range s.Pools {
		for _, st := range poolStates {
			v := 0.0
			if p.State == st {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(poolStateDesc, prometheus.GaugeValue, v, p.Name, string(st))
		}
		if p.CapacityBlocks != nil {
			ch <- prometheus.MustNewConstMetric(poolBlocksDesc, prometheus.GaugeValue, float64(*p.CapacityBlocks), p.Name, "capacity")
		}
		if p.FreeBlocks != nil {
			ch <- prometheus.MustNewConstMetric(poolBlocksDesc, prometheus.GaugeValue, float64(*p.FreeBlocks), p.Name, "free")
		}
		if p.WaitingNodes != nil {
			ch <- prometheus.MustNewConstMetric(poolBlocksDesc, prometheus.GaugeValue, float64(*p.WaitingNodes), p.Name, "waiting")
		}
		if p.BlocksPerHour != nil {
			ch <- prometheus.MustNewConstMetric(poolDemandDesc, prometheus.GaugeValue, float64(*p.BlocksPerHour)/3600, p.Name)
		}
		exhaustion := math.Inf(1)
		if p.ExhaustionSeconds != nil {
			exhaustion = float64(*p.ExhaustionSeconds)
		}
		ch <- prometheus.MustNewConstMetric(poolExhaustionDesc, prometheus.GaugeValue, exhaustion, p.Name)
	}
}
