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
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/ptr"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	draincore "podnetwork.io/operator/internal/drain"
)

// drainNodeStates are the values of the state label of
// podnetwork_drain_assist_nodes: the node states, and Waiting.
var drainNodeStates = []string{"Waiting", string(podnetworkv1alpha1.DrainNodeRecommended), string(podnetworkv1alpha1.DrainNodeDraining),
	string(podnetworkv1alpha1.DrainNodeBlocked), string(podnetworkv1alpha1.DrainNodeHandedOver), string(podnetworkv1alpha1.DrainNodeSkipped)}

func newDrainNodes() *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "podnetwork_drain_assist_nodes",
		Help: "Nodes holding blocks in Draining ranges, by what drain assist does with them (Waiting, Recommended: what Recommend mode would start next, Draining, Blocked, HandedOver, Skipped); reported by the leader, 0 while the mode is Off.",
	}, []string{"state"})
}

func newDrainEvictions() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "podnetwork_drain_assist_evictions_total",
		Help: "Evictions drain assist asked the Eviction API for, by result: Evicted, Gone (the pod no longer existed), Blocked (a PodDisruptionBudget refused, 429), Failed.",
	}, []string{"result"})
}

// DrainReport sets drain assist's node gauges from the status it wrote;
// nil (mode Off) sets every state to 0, so the series exist for the
// chart's alert and dashboard whatever the mode.
func (m *Metrics) DrainReport(st *podnetworkv1alpha1.DrainAssistStatus) {
	if m == nil {
		return
	}
	if st == nil {
		for _, s := range drainNodeStates {
			m.drainNodes.WithLabelValues(s).Set(0)
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
		"Waiting":          ptr.Deref(st.Waiting, 0) - int32(recommended),
		drainNodeStates[1]: int32(recommended),
		drainNodeStates[2]: ptr.Deref(st.Draining, 0),
		drainNodeStates[3]: ptr.Deref(st.Blocked, 0),
		drainNodeStates[4]: ptr.Deref(st.HandedOver, 0),
		drainNodeStates[5]: ptr.Deref(st.Skipped, 0),
	}
	for _, s := range drainNodeStates {
		m.drainNodes.WithLabelValues(s).Set(float64(values[s]))
	}
}

// DrainEvicted counts the outcome of one eviction drain assist asked for.
func (m *Metrics) DrainEvicted(outcome draincore.EvictionOutcome) {
	if m == nil {
		return
	}
	m.drainEvictions.WithLabelValues(string(outcome)).Inc()
}
