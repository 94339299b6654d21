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
	"context"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/audit"
	"podnetwork.io/operator/internal/declared"
	"podnetwork.io/operator/internal/nodeipam"
)

var (
	rangePhaseDesc = prometheus.NewDesc("podnetwork_range_phase",
		"1 for the phase each tracked range is in, 0 for the others.", []string{"range", "cidr", "phase"}, nil)
	rangeBlocksDesc = prometheus.NewDesc("podnetwork_range_blocks",
		"Node blocks of a range by state (allocated, free, quarantined), as NodeIPAM reports them.", []string{"range", "state"}, nil)
	rangeCapacityDesc = prometheus.NewDesc("podnetwork_range_capacity_blocks",
		"Node blocks a range holds in all.", []string{"range"}, nil)
	rangeWaitingDesc = prometheus.NewDesc("podnetwork_range_phase_age_seconds",
		"Seconds since each tracked range entered its current phase.", []string{"range", "phase"}, nil)
	consumerInSyncDesc = prometheus.NewDesc("podnetwork_consumer_in_sync",
		"1 when a consumer has acknowledged the current phase of every range, else 0.", []string{"consumer", "required"}, nil)
	consumerRejectionsDesc = prometheus.NewDesc("podnetwork_consumer_rejections",
		"Ranges whose current phase a consumer rejected.", []string{"consumer", "required"}, nil)
	groupFreeDesc = prometheus.NewDesc("podnetwork_selector_group_free_blocks",
		"Free node blocks of the Active ranges that share one nodeSelector, per IP family.", []string{"selector", "family"}, nil)
	groupCapacityDesc = prometheus.NewDesc("podnetwork_selector_group_capacity_blocks",
		"Node blocks of the Active ranges that share one nodeSelector, per IP family.", []string{"selector", "family"}, nil)
	groupJoinableDesc = prometheus.NewDesc("podnetwork_selector_group_joinable_nodes",
		"How many more nodes the Active ranges that share one nodeSelector can give a block of every family they serve.", []string{"selector"}, nil)
	nodesWithoutPodCIDRsDesc = prometheus.NewDesc("podnetwork_nodes_without_podcidrs",
		"Nodes that are not being deleted and have no podCIDRs yet.", nil, nil)
	foreignPodCIDRsDesc = prometheus.NewDesc("podnetwork_nodeipam_foreign_podcidrs",
		"Node podCIDRs outside every range the PodNetwork tracks that is not Released.", nil, nil)
	malformedPodCIDRsDesc = prometheus.NewDesc("podnetwork_nodeipam_malformed_podcidrs",
		"Nodes whose podCIDRs cannot all be read, or only in a legacy format (leading zeros, IPv4-mapped IPv6).", nil, nil)
	allocationConflictsDesc = prometheus.NewDesc("podnetwork_allocation_conflicts",
		"Pairs of nodes with overlapping podCIDRs listed in the PodNetwork status (at most 20).", nil, nil)
	invalidRangesDesc = prometheus.NewDesc("podnetwork_range_invalid",
		"1 for a tracked range the operator found invalid (reason is its invalidReason), 0 for the others.", []string{"range", "reason"}, nil)
)

// statusCollector reports the PodNetwork status from the informer cache.
// The reader is swapped when a manager starts again in the same process.
type statusCollector struct {
	reader atomic.Pointer[client.Reader]
}

func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{rangePhaseDesc, rangeBlocksDesc, rangeCapacityDesc, rangeWaitingDesc, consumerInSyncDesc,
		consumerRejectionsDesc, groupFreeDesc, groupCapacityDesc, groupJoinableDesc, nodesWithoutPodCIDRsDesc, foreignPodCIDRsDesc, malformedPodCIDRsDesc,
		allocationConflictsDesc, invalidRangesDesc,
		poolBlocksDesc, poolDemandDesc, poolExhaustionDesc, poolStateDesc} {
		ch <- d
	}
}

func (c *statusCollector) Collect(ch chan<- prometheus.Metric) {
	r := c.reader.Load()
	if r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pn := &podnetworkv1alpha1.PodNetwork{}
	if err := (*r).Get(ctx, client.ObjectKey{Name: podnetworkv1alpha1.PodNetworkName}, pn); err != nil {
		return
	}
	phases := []podnetworkv1alpha1.RangePhase{podnetworkv1alpha1.RangePhasePending, podnetworkv1alpha1.RangePhaseActive,
		podnetworkv1alpha1.RangePhaseDraining, podnetworkv1alpha1.RangePhaseReleased}
	for _, rs := range pn.Status.Ranges {
		for _, p := range phases {
			v := 0.0
			if rs.Phase == p {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(rangePhaseDesc, prometheus.GaugeValue, v, rs.Name, rs.CIDR, string(p))
		}
		if !rs.PhaseSince.IsZero() {
			ch <- prometheus.MustNewConstMetric(rangeWaitingDesc, prometheus.GaugeValue, time.Since(rs.PhaseSince.Time).Seconds(), rs.Name, string(rs.Phase))
		}
		if u := rs.Usage; !u.IsZero() {
			ch <- prometheus.MustNewConstMetric(rangeCapacityDesc, prometheus.GaugeValue, float64(u.Capacity), rs.Name)
			ch <- prometheus.MustNewConstMetric(rangeBlocksDesc, prometheus.GaugeValue, float64(ptr.Deref(u.Allocated, 0)), rs.Name, "allocated")
			ch <- prometheus.MustNewConstMetric(rangeBlocksDesc, prometheus.GaugeValue, float64(ptr.Deref(u.Free, 0)), rs.Name, "free")
			ch <- prometheus.MustNewConstMetric(rangeBlocksDesc, prometheus.GaugeValue, float64(ptr.Deref(u.Quarantined, 0)), rs.Name, "quarantined")
		}
	}
	rejections := map[string]int{}
	for _, rs := range pn.Status.Ranges {
		for _, r := range rs.Rejections {
			rejections[r.Consumer]++
		}
		// Every tracked range has the series, so an alert on it is never
		// an alert on a series that does not exist yet.
		invalid := 0.0
		if rs.InvalidReason != "" {
			invalid = 1
		}
		ch <- prometheus.MustNewConstMetric(invalidRangesDesc, prometheus.GaugeValue, invalid, rs.Name, string(rs.InvalidReason))
	}
	for _, cs := range pn.Status.Consumers {
		v := 0.0
		if cs.InSync {
			v = 1
		}
		required := "false"
		if cs.Required {
			required = "true"
		}
		ch <- prometheus.MustNewConstMetric(consumerInSyncDesc, prometheus.GaugeValue, v, cs.Name, required)
		ch <- prometheus.MustNewConstMetric(consumerRejectionsDesc, prometheus.GaugeValue, float64(rejections[cs.Name]), cs.Name, required)
	}
	// The groups are those of the declared ranges, the autoscaler's
	// included; without the set (none, or not readable) spec.ranges alone.
	set, _ := watches.AutoscaledRangeSet(ctx, *r)
	for _, g := range nodeipam.SelectorGroups(declared.View(pn, set)) {
		for _, f := range g.Families {
			ch <- prometheus.MustNewConstMetric(groupFreeDesc, prometheus.GaugeValue, float64(f.Free), g.Selector, string(f.Family))
			ch <- prometheus.MustNewConstMetric(groupCapacityDesc, prometheus.GaugeValue, float64(f.Capacity), g.Selector, string(f.Family))
		}
		ch <- prometheus.MustNewConstMetric(groupJoinableDesc, prometheus.GaugeValue, float64(g.Joinable), g.Selector)
	}
	ch <- prometheus.MustNewConstMetric(allocationConflictsDesc, prometheus.GaugeValue, float64(len(pn.Status.AllocationConflicts)))
	// One pass over the cached nodes for the three node gauges (about 20 ms
	// at 100,000 nodes, internal/audit's BenchmarkCountNodePodCIDRs).
	if nodes, err := watches.CachedNodes(ctx, *r); err == nil {
		counts := audit.CountNodePodCIDRs(pn.Status.Ranges, nodes)
		ch <- prometheus.MustNewConstMetric(nodesWithoutPodCIDRsDesc, prometheus.GaugeValue, float64(counts.Waiting))
		ch <- prometheus.MustNewConstMetric(foreignPodCIDRsDesc, prometheus.GaugeValue, float64(counts.Foreign))
		ch <- prometheus.MustNewConstMetric(malformedPodCIDRsDesc, prometheus.GaugeValue, float64(counts.Malformed))
	}
	collectAutoscaling(ch, pn.Status.Autoscaling)
}
