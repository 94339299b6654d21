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

package main

import (
	"strings"
	"testing"
	"time"
)

func TestSummarizeTakesMediansPerConfiguration(t *testing.T) {
	s := scenario{nodes: 1000}
	ours := config{kind: kindOurs, qps: 500, burst: 1000}
	base := ours
	base.baseline = true
	run := func(c config, total time.Duration, cpu float64) result {
		return result{planned: planned{scenario: s, config: c}, total: total, cpuSeconds: cpu}
	}
	// Interleaved as -repeat=3 -baseline plans them.
	results := []result{
		run(ours, 2200*time.Millisecond, 0.6), run(base, 2*time.Second, 0.5),
		run(ours, 4*time.Second, 0.7), run(base, time.Second, 0.4),
		run(ours, 2500*time.Millisecond, 0.5), run(base, 1250*time.Millisecond, 0.6),
	}
	rows := summarize(results)
	if len(rows) != 2 {
		t.Fatalf("got %d rows, want 2 (one per configuration)", len(rows))
	}
	if got, want := rows[0].total, 2500*time.Millisecond; got != want {
		t.Errorf("median total of ours = %s, want %s", got, want)
	}
	if got, want := rows[0].rate(), 400.0; got != want {
		t.Errorf("median rate of ours = %g, want %g", got, want)
	}
	if got, want := rows[0].cell("%.0f", result.rate), "400 (250–455)"; got != want {
		t.Errorf("rate cell = %q, want %q", got, want)
	}
	rep := report{results: results}
	cmp := rep.baselineComparison()
	if !strings.Contains(cmp, "nodes/s 0.50× (every run slower)") {
		t.Errorf("comparison does not call ours slower in every run:\n%s", cmp)
	}
	if !strings.Contains(cmp, "CPU 1.20× (within noise)") {
		t.Errorf("comparison does not call CPU within noise:\n%s", cmp)
	}
}

func TestSummarizeKeepsFailuresApart(t *testing.T) {
	s := scenario{nodes: 10}
	c := config{kind: kindKCM}
	ok := result{planned: planned{scenario: s, config: c}, total: time.Second}
	bad := result{planned: planned{scenario: s, config: c}, err: errTest}
	rows := summarize([]result{bad, ok})
	if len(rows) != 1 || len(rows[0].runs) != 1 || len(rows[0].failed) != 1 {
		t.Fatalf("rows = %+v, want one row with one run and one failure", rows)
	}
	if rows[0].err != nil || rows[0].rate() != 10 {
		t.Errorf("row = err %v rate %g, want the successful run's figures", rows[0].err, rows[0].rate())
	}
	if got := summarize([]result{bad}); got[0].err == nil {
		t.Error("a row without a successful run does not carry the failure")
	}
}

func TestMedianOf(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := medianOf(tc.in); got != tc.want {
			t.Errorf("medianOf(%v) = %g, want %g", tc.in, got, tc.want)
		}
	}
}

var errTest = testError("boom")

type testError string

func (e testError) Error() string { return string(e) }
