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
	"fmt"
	"slices"
	"strings"
	"time"
)

// row is one configuration of one scenario over every repetition. Its
// embedded result holds the medians of the successful runs, which the
// ratios and goals compare; runs keeps each run for the min–max the table
// shows beside them.
type row struct {
	result
	runs   []result
	failed []result
}

// summarize groups results by scenario and configuration, in the order they
// were first planned, and computes each metric's median.
func summarize(results []result) []row {
	var rows []row
	index := map[planned]int{}
	for _, r := range results {
		key := planned{scenario: r.scenario, config: r.config}
		i, seen := index[key]
		if !seen {
			i = len(rows)
			index[key] = i
			rows = append(rows, row{result: result{planned: r.planned}})
		}
		switch {
		case r.skip != "":
		case r.err != nil:
			rows[i].failed = append(rows[i].failed, r)
		default:
			rows[i].runs = append(rows[i].runs, r)
		}
	}
	for i := range rows {
		rows[i].result = rows[i].median()
	}
	return rows
}

// median is a result whose every metric is the median of the runs' (each
// metric on its own). With no successful run it carries the first failure.
func (w row) median() result {
	m := result{planned: w.planned}
	if len(w.runs) == 0 {
		if len(w.failed) > 0 {
			m.err = w.failed[0].err
		}
		return m
	}
	dur := func(f func(result) time.Duration) time.Duration {
		return time.Duration(medianOf(w.values(func(r result) float64 { return float64(f(r)) })))
	}
	num := func(f func(result) float64) float64 { return medianOf(w.values(f)) }
	m.total = dur(func(r result) time.Duration { return r.total })
	m.created = dur(func(r result) time.Duration { return r.created })
	m.p50 = dur(func(r result) time.Duration { return r.p50 })
	m.p99 = dur(func(r result) time.Duration { return r.p99 })
	m.max = dur(func(r result) time.Duration { return r.max })
	m.cpuSeconds = num(func(r result) float64 { return r.cpuSeconds })
	m.peakRSSMiB = num(func(r result) float64 { return r.peakRSSMiB })
	m.writes = num(func(r result) float64 { return r.writes })
	m.rebuild = dur(func(r result) time.Duration { return r.rebuild })
	m.firstAlloc = dur(func(r result) time.Duration { return r.firstAlloc })
	m.steadyRSSMiB = num(func(r result) float64 { return r.steadyRSSMiB })
	m.burstCPUSeconds = num(func(r result) float64 { return r.burstCPUSeconds })
	m.writesBy = w.runs[len(w.runs)/2].writesBy
	return m
}

func (w row) values(f func(result) float64) []float64 {
	out := make([]float64, 0, len(w.runs))
	for _, r := range w.runs {
		out = append(out, f(r))
	}
	return out
}

// cell renders a metric of every run: the value alone for one run, else the
// median with min–max, each with format.
func (w row) cell(format string, f func(result) float64) string {
	vs := w.values(f)
	if len(vs) == 0 {
		return fmt.Sprintf(format, f(w.result))
	}
	return spread(format, vs)
}

// spread renders values: the value alone for one, else the median with
// min–max, each with format; "–" for none.
func spread(format string, vs []float64) string {
	switch len(vs) {
	case 0:
		return "–"
	case 1:
		return fmt.Sprintf(format, vs[0])
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", medianOf(vs), slices.Min(vs), slices.Max(vs))
}

// medianOf is the median of vs (the mean of the middle two for an even
// count); 0 for none.
func medianOf(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// rate is the median of the runs' nodes per second.
func (w row) rate() float64 { return medianOf(w.values(result.rate)) }

// baselineComparison compares every operator configuration with its
// -baseline twin: ratios of medians, and whether the two sets of runs
// overlap at all. Overlapping ranges are what "within noise" means here;
// only when every run of one is slower than every run of the other is a
// difference called a change.
func (rep report) baselineComparison() string {
	rows := rep.rows()
	var b strings.Builder
	for _, r := range rows {
		if r.config.kind != kindOurs || r.config.baseline || len(r.runs) == 0 {
			continue
		}
		twin := r.config
		twin.baseline = true
		base, ok := rep.find(r.scenario, func(c config) bool { return c == twin })
		if !ok {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("Against the baseline binary (medians; \"within noise\" when the runs' ranges overlap):\n\n")
		}
		fmt.Fprintf(&b, "- %s, %s: nodes/s %s (%s), CPU %s (%s), peak RSS %s\n",
			r.scenario, r.config, ratio(r.rate(), base.rate()), verdict(r.values(result.rate), base.values(result.rate), "slower", "faster"),
			ratio(r.cpuSeconds, base.cpuSeconds), verdict(r.values(cpuOf), base.values(cpuOf), "less", "more"),
			ratio(r.peakRSSMiB, base.peakRSSMiB))
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

func cpuOf(r result) float64 { return r.cpuSeconds }

// verdict says whether every value of a is below (below) or above (above)
// every value of b, or neither.
func verdict(a, b []float64, below, above string) string {
	switch {
	case len(a) == 0 || len(b) == 0:
		return "no runs"
	case slices.Max(a) < slices.Min(b):
		return "every run " + below
	case slices.Min(a) > slices.Max(b):
		return "every run " + above
	}
	return "within noise"
}

// ratio renders a ÷ b, or "–" when b is not known.
func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}
