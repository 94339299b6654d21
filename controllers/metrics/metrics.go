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

// Package metrics holds the operator's Prometheus metrics: the counters and
// histograms the leader updates as things happen, and a collector that reads
// the PodNetwork status at scrape time.
//
// Metrics follow Prometheus conventions: the podnetwork_ prefix, base units
// (seconds, blocks) and _total for counters. State that lives in the
// PodNetwork status (phases, block usage) is read from the cache at scrape
// time, so every replica reports the same numbers and nothing is kept only
// in memory; so are the nodes' foreign and malformed podCIDRs, from the
// cached nodes. Event-like numbers are counters and histograms updated by
// the leader, and so are the audit's findings: only the leader's periodic
// audit lists every pod and NetworkPolicy.
package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"podnetwork.io/operator/internal/audit"
)

// Metrics are the operator's metrics. The methods are safe on a nil
// *Metrics, which records nothing, so a reconciler built by a unit test
// needs none.
type Metrics struct {
	rangeTransitions   *prometheus.CounterVec
	phaseDuration      *prometheus.HistogramVec
	consumerAck        *prometheus.HistogramVec
	allocationDuration prometheus.Histogram
	cidrNotAvailable   prometheus.Counter
	autoscalerSteps    *prometheus.CounterVec
	storeCoarsened     prometheus.Counter
	drainNodes         *prometheus.GaugeVec
	drainEvictions     *prometheus.CounterVec
	auditFindings      *prometheus.GaugeVec
	auditRuns          *prometheus.CounterVec
	auditDuration      prometheus.Histogram
	status             *statusCollector
}

// New returns unregistered metrics; Register them, or use ForProcess.
func New() *Metrics {
	return &Metrics{
		rangeTransitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podnetwork_range_transitions_total",
			Help: "Range phase transitions, by the phase entered.",
		}, []string{"phase"}),
		phaseDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "podnetwork_range_phase_duration_seconds",
			Help:    "How long a range stayed in a phase before it moved on (waiting for consumers or nodes), by phase.",
			Buckets: prometheus.ExponentialBuckets(0.5, 2, 14), // 0.5s .. ~68min
		}, []string{"phase"}),
		consumerAck: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "podnetwork_consumer_ack_duration_seconds",
			Help:    "Time from a range entering a phase to a consumer acknowledging it, by consumer and phase.",
			Buckets: prometheus.ExponentialBuckets(0.5, 2, 14),
		}, []string{"consumer", "phase"}),
		allocationDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "podnetwork_node_allocation_duration_seconds",
			Help:    "Time from NodeIPAM first seeing a node without podCIDRs to writing them.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 14), // 10ms .. ~82s
		}),
		cidrNotAvailable: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "podnetwork_cidr_not_available_total",
			Help: "CIDRNotAvailable events: a node needed a block and no matching Active range had one free.",
		}),
		autoscalerSteps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podnetwork_autoscaler_steps_total",
			Help: "Steps of the autoscaler by pool and action (Expand, Add, Remove, Consolidate); recommended=\"true\" counts the steps Recommend mode reported without taking them.",
		}, []string{"pool", "action", "recommended"}),
		storeCoarsened: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "podnetwork_nodeipam_store_coarsened_total",
			Help: "Writes of NodeIPAM's block store over its size budget, stored coarser: more blocks wait a full recycle delay after a fail-over.",
		}),
		auditFindings: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "podnetwork_audit_findings",
			Help: "Objects the last audit found at odds with the pod network, by kind (pod-ip-outside-node-podcidrs, pod-ip-outside-ranges, networkpolicy-missing-range, adapter-config-drift); reported by the leader, only with --enable-audit.",
		}, []string{"kind"}),
		auditRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podnetwork_audit_runs_total",
			Help: "Audits of the cluster against the pod network, by result (success, error: a read failed and the findings were not updated).",
		}, []string{"result"}),
		auditDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "podnetwork_audit_duration_seconds",
			Help:    "How long one audit took, its paced LISTs of pods and NetworkPolicies included.",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 14), // 0.1s .. ~14min
		}),
		drainNodes:     newDrainNodes(),
		drainEvictions: newDrainEvictions(),
		status:         &statusCollector{},
	}
}

// Register registers every metric with reg.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.rangeTransitions, m.phaseDuration, m.consumerAck,
		m.allocationDuration, m.cidrNotAvailable, m.autoscalerSteps, m.storeCoarsened, m.auditFindings, m.auditRuns, m.auditDuration,
		m.drainNodes, m.drainEvictions, m.status} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// process is the one set of metrics registered with controller-runtime's
// registry. A registry refuses a second collector of the same name, and a
// test may start the manager several times in one process.
var process = sync.OnceValues(func() (*Metrics, error) {
	m := New()
	return m, m.Register(crmetrics.Registry)
})

// ForProcess returns the metrics registered with controller-runtime's
// registry, registering them on the first call, and points the status
// collector at reader (the cache of the manager started last).
func ForProcess(reader client.Reader) (*Metrics, error) {
	m, err := process()
	if err != nil {
		return nil, err
	}
	m.status.reader.Store(&reader)
	return m, nil
}

// ObserveAllocation records how long a node waited for its podCIDRs, from
// NodeIPAM first seeing it without any to writing them.
func (m *Metrics) ObserveAllocation(waited time.Duration) {
	if m == nil {
		return
	}
	m.allocationDuration.Observe(waited.Seconds())
}

// BlockStoreCoarsened counts one write of NodeIPAM's block store that the
// size budget coarsened.
func (m *Metrics) BlockStoreCoarsened() {
	if m == nil {
		return
	}
	m.storeCoarsened.Inc()
}

// CIDRNotAvailable counts one CIDRNotAvailable event.
func (m *Metrics) CIDRNotAvailable() {
	if m == nil {
		return
	}
	m.cidrNotAvailable.Inc()
}

// AutoscalerStep counts one step of the autoscaler (or, recommended, one
// step Recommend mode reported).
func (m *Metrics) AutoscalerStep(pool, action string, recommended bool) {
	if m == nil {
		return
	}
	r := "false"
	if recommended {
		r = "true"
	}
	m.autoscalerSteps.WithLabelValues(pool, action, r).Inc()
}

// AuditRun counts one audit and how long it took; err is its failure, nil
// when it succeeded.
func (m *Metrics) AuditRun(took time.Duration, err error) {
	if m == nil {
		return
	}
	success, failure := m.auditRuns.WithLabelValues("success"), m.auditRuns.WithLabelValues("error")
	if err != nil {
		failure.Inc()
	} else {
		success.Inc()
	}
	m.auditDuration.Observe(took.Seconds())
}

// AuditFindings sets the findings of every kind an audit checked; the
// kinds it did not check keep no series.
func (m *Metrics) AuditFindings(counts map[audit.Kind]int) {
	if m == nil {
		return
	}
	for kind, n := range counts {
		m.auditFindings.WithLabelValues(string(kind)).Set(float64(n))
	}
}
