package controllers

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Metrics follow Prometheus conventions: the podnetwork_ prefix, base units
// (seconds, blocks) and _total for counters. State that lives in the
// PodNetwork status (phases, block usage) is read from the cache at scrape
// time by statusCollector, so every replica reports the same numbers and
// nothing is kept only in memory; event-like numbers are counters and
// histograms updated by the leader.
var (
	rangeTransitionsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "podnetwork_range_transitions_total",
		Help: "Range phase transitions, by the phase entered.",
	}, []string{"phase"})

	phaseDurationSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "podnetwork_range_phase_duration_seconds",
		Help:    "How long a range stayed in a phase before it moved on (waiting for consumers or nodes), by phase.",
		Buckets: prometheus.ExponentialBuckets(0.5, 2, 14), // 0.5s .. ~68min
	}, []string{"phase"})

	consumerAckSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "podnetwork_consumer_ack_duration_seconds",
		Help:    "Time from a range entering a phase to a consumer acknowledging it, by consumer and phase.",
		Buckets: prometheus.ExponentialBuckets(0.5, 2, 14),
	}, []string{"consumer", "phase"})

	// AllocationDurationSeconds is observed by NodeIPAM: node seen without a
	// podCIDR → podCIDR written.
	AllocationDurationSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "podnetwork_node_allocation_duration_seconds",
		Help:    "Time from NodeIPAM first seeing a node without podCIDRs to writing them.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 14), // 10ms .. ~82s
	})

	// CIDRNotAvailableTotal counts CIDRNotAvailable events NodeIPAM emitted.
	CIDRNotAvailableTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "podnetwork_cidr_not_available_total",
		Help: "CIDRNotAvailable events: a node needed a block and no matching Active range had one free.",
	})

	collector = &statusCollector{}
	register  sync.Once
)

// registerMetrics registers every metric with controller-runtime's registry
// once per process and points the status collector at reader.
func registerMetrics(reader client.Reader) {
	collector.reader.Store(&reader)
	register.Do(func() {
		metrics.Registry.MustRegister(rangeTransitionsTotal, phaseDurationSeconds, consumerAckSeconds,
			AllocationDurationSeconds, CIDRNotAvailableTotal, collector)
	})
}

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
)

// statusCollector reports the PodNetwork status from the informer cache.
type statusCollector struct {
	reader atomic.Pointer[client.Reader]
}

func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{rangePhaseDesc, rangeBlocksDesc, rangeCapacityDesc, rangeWaitingDesc, consumerInSyncDesc} {
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
		if u := rs.Usage; u != nil {
			ch <- prometheus.MustNewConstMetric(rangeCapacityDesc, prometheus.GaugeValue, float64(u.Capacity), rs.Name)
			ch <- prometheus.MustNewConstMetric(rangeBlocksDesc, prometheus.GaugeValue, float64(u.Allocated), rs.Name, "allocated")
			ch <- prometheus.MustNewConstMetric(rangeBlocksDesc, prometheus.GaugeValue, float64(u.Free), rs.Name, "free")
			ch <- prometheus.MustNewConstMetric(rangeBlocksDesc, prometheus.GaugeValue, float64(u.Quarantined), rs.Name, "quarantined")
		}
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
	}
}

// observeTransitions records the transitions between the previous and the
// new status: the phase entered, how long the old phase lasted and how long
// each consumer took to acknowledge it.
func observeTransitions(before, after []podnetworkv1alpha1.RangeStatus, consumers []podnetworkv1alpha1.PodNetworkConsumer) {
	old := make(map[string]podnetworkv1alpha1.RangeStatus, len(before))
	for _, rs := range before {
		old[rs.Name] = rs
	}
	for _, rs := range after {
		prev, had := old[rs.Name]
		if had && prev.Phase == rs.Phase && prev.CIDR == rs.CIDR {
			continue
		}
		rangeTransitionsTotal.WithLabelValues(string(rs.Phase)).Inc()
		if !had || prev.CIDR != rs.CIDR || prev.PhaseSince.IsZero() {
			continue
		}
		phaseDurationSeconds.WithLabelValues(string(prev.Phase)).Observe(rs.PhaseSince.Sub(prev.PhaseSince.Time).Seconds())
		for i := range consumers {
			for _, ack := range consumers[i].Status.Ranges {
				if ack.Matches(&prev) && ack.Result == podnetworkv1alpha1.AckAccepted && !ack.LastTransitionTime.IsZero() {
					consumerAckSeconds.WithLabelValues(consumers[i].Name, string(prev.Phase)).
						Observe(ack.LastTransitionTime.Sub(prev.PhaseSince.Time).Seconds())
				}
			}
		}
	}
}
