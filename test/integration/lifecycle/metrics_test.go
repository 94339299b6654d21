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

package lifecycle_test

import (
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// metricValue returns the value of the series of name whose labels include
// labels, or nil when there is none.
func metricValue(name string, labels map[string]string) *float64 {
	return metricValueIn(metrics.Registry, name, labels)
}

// metricValueIn is metricValue in the metrics g gathers.
func metricValueIn(g prometheus.Gatherer, name string, labels map[string]string) *float64 {
	families, err := g.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !hasLabels(m, labels) {
				continue
			}
			var v float64
			switch {
			case m.Gauge != nil:
				v = m.GetGauge().GetValue()
			case m.Counter != nil:
				v = m.GetCounter().GetValue()
			case m.Histogram != nil:
				v = float64(m.GetHistogram().GetSampleCount())
			}
			return &v
		}
	}
	return nil
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
			found++
		}
	}
	return found == len(want)
}
