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

package drain

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/ptr"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	draincore "podnetwork.io/operator/internal/drain"
)

// Metrics are drain assist's metrics, registered like controllers/metrics'
// (once per process with controller-runtime's registry). The methods are
// safe on a nil *Metrics, which records nothing.
type Metrics struct {
	nodes     *prometheus.GaugeVec
	evictions *prometheus.CounterVec
}

// nodeStates are the values of the state label of
// podnetwork_drain_assist_nodes: the node states, and Waiting.
var nodeStates = []string{"Waiting", string(podnetworkv1alpha1.DrainNodeRecommended), string(podnetworkv1alpha1.DrainNodeDraining),
	string(podnetworkv1alpha1.DrainNodeBlocked), string(podnetworkv1alpha1.DrainNodeHandedOver), string(podnetworkv1alpha1.DrainNodeSkipped)}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		nodes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "podnetwork_drain_assist_nodes",
			Help: "Nodes holding blocks in Draining ranges, by what drain assist does with them (Waiting, Recommended: what Recommend mode would start next, Draining, Blocked, HandedOver, Skipped); reported by the leader, 0 while the mode is Off.",
		}, []string{"state"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podnetwork_drain_assist_evictions_total",
			Help: "Evictions drain assist asked the Eviction API for, by result: Evicted, Gone (the pod no longer existed), Blocked (a PodDisruptionBudget refused, 429), Failed.",
		}, []string{"result"}),
	}
}

// Register registers the metrics with reg.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.nodes, m.evictions} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// MetricsForProcess returns the metrics registered with controller-runtime's
// registry, registering them on the first call: a test may start the
// manager several times in one process.
var MetricsForProcess = sync.OnceValues(func() (*Metrics, error) {
	m := NewMetrics()
	return m, m.Register(crmetrics.Registry)
})

// Report sets the node gauges from the status written; nil (mode Off)
// sets every state to 0, so the series exist for the chart's alert and
// dashboard whatever the mode.
func (m *Metrics) Report(st *podnetworkv1alpha1.DrainAssistStatus) {
	if m == nil {
		return
	}
	if st == nil {
		for _, s := range nodeStates {
			m.nodes.WithLabelValues(s).Set(0)
		}
		return
	}
	recommended := 0
	for _, n := range st.Nodes {
		if n.State == podnetworkv1alpha1.DrainNodeRecommended {
			recommended++
		}
	}
	values := map[string]int32{
		"Waiting":     ptr.Deref(st.Waiting, 0) - int32(recommended),
		nodeStates[1]: int32(recommended),
		nodeStates[2]: ptr.Deref(st.Draining, 0),
		nodeStates[3]: ptr.Deref(st.Blocked, 0),
		nodeStates[4]: ptr.Deref(st.HandedOver, 0),
		nodeStates[5]: ptr.Deref(st.Skipped, 0),
	}
	for _, s := range nodeStates {
		m.nodes.WithLabelValues(s).Set(float64(values[s]))
	}
}

// Evicted counts the outcome of one eviction.
func (m *Metrics) Evicted(outcome draincore.EvictionOutcome) {
	if m == nil {
		return
	}
	m.evictions.WithLabelValues(string(outcome)).Inc()
}
