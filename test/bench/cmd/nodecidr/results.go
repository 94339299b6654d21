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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A full repeated run takes longer than one working session, so every
// finished run is appended to a results file (JSON lines) as it ends, and
// -resume runs only what the file does not hold yet; the report is made from
// every line of the file. Each line carries the identity of the plan and
// binaries that made it, and a resumed run refuses a file made by another.

// resultsFormat changes whenever a record's meaning changes, so records
// written by an older benchmark are refused like another plan's.
const resultsFormat = 1

// identity is what makes runs comparable: the flags that define the plan
// (by name, effective values; -repeat is not one of them, so a resumed run
// may add repetitions) and the binaries under test.
type identity struct {
	Format int               `json:"format"`
	Plan   map[string]string `json:"plan"`
	// Operator and Baseline are the sha256 of the operator binaries; a Go
	// binary embeds the commit it was built from, so rebuilding after a
	// commit changes it.
	Operator string `json:"operator"`
	Baseline string `json:"baseline,omitempty"`
	// KCM is `kube-controller-manager --version`.
	KCM string `json:"kcm"`
}

// planFlags are the flags that define the plan, with their effective values
// (so -quick and the flags it stands for are one plan). The flags of a
// section that is off are left out, and so is -steady-dual-stack when it is
// off: a file made before a flag existed keeps its identity as long as the
// flag keeps the value that plans what the file holds (a list flag that
// was one number joins to that number).
func planFlags(o options) map[string]string {
	m := map[string]string{
		"sizes":         joinCounts(o.sizes),
		"steady-nodes":  strconv.Itoa(o.steadyNodes),
		"throttled-max": strconv.Itoa(o.throttledMax),
		"cache-nodes":   strconv.Itoa(o.cacheNodes),
		"only":          o.only,
		"cluster-cidr":  o.clusterCIDR,
		"node-mask":     strconv.Itoa(o.nodeMask),
	}
	if o.steadyNodes > 0 {
		m["steady-rate"] = strconv.FormatFloat(o.steadyRate, 'g', -1, 64)
	}
	if o.dualStackOn() {
		m["dual-stack"] = "true"
		m["dual-stack-nodes"] = joinCounts(o.dualStackNodes)
		m["cluster-cidr-v6"] = o.clusterCIDRv6
		m["node-mask-v6"] = strconv.Itoa(o.nodeMaskV6)
	}
	if o.steadyDualStackOn() {
		m["steady-dual-stack"] = "true"
	}
	if len(o.operatorArgs) > 0 {
		m["operator-args"] = strings.Join(o.operatorArgs, " ")
	}
	if len(o.scaleNodes) > 0 {
		m["scale-nodes"] = joinCounts(o.scaleNodes)
		m["scale-burst"] = strconv.Itoa(o.scaleBurst)
	}
	return m
}

// joinCounts is a list of node counts as the flags take it.
func joinCounts(ns []int) string {
	s := make([]string, 0, len(ns))
	for _, n := range ns {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

// diff lists how now differs from was, one phrase per difference.
func (was identity) diff(now identity) []string {
	var out []string
	show := func(s string) string {
		if s == "" {
			return "unset"
		}
		return s
	}
	if was.Format != now.Format {
		out = append(out, fmt.Sprintf("results format %d in the file, %d now", was.Format, now.Format))
	}
	keys := slices.Sorted(maps.Keys(was.Plan))
	for _, k := range slices.Sorted(maps.Keys(now.Plan)) {
		if _, ok := was.Plan[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if was.Plan[k] != now.Plan[k] {
			out = append(out, fmt.Sprintf("-%s: %s in the file, %s now", k, show(was.Plan[k]), show(now.Plan[k])))
		}
	}
	for _, b := range []struct{ name, was, now string }{
		{"operator binary sha256", was.Operator, now.Operator},
		{"baseline binary sha256", was.Baseline, now.Baseline},
		{"kube-controller-manager version", was.KCM, now.KCM},
	} {
		if b.was != b.now {
			out = append(out, fmt.Sprintf("%s: %s in the file, %s now", b.name, show(b.was), show(b.now)))
		}
	}
	return out
}

// record is one line of the results file: one finished run, or the memory
// measurement with many cached nodes.
type record struct {
	Identity identity `json:"identity"`
	// Session is when the benchmark process that made the run started.
	Session  string        `json:"session"`
	Key      string        `json:"key"`
	Finished time.Time     `json:"finished"`
	Wall     time.Duration `json:"wallNs"` // the run with its set-up and clean-up
	Run      *runRecord    `json:"run,omitempty"`
	Cache    *cacheRecord  `json:"cache,omitempty"`
}

// runRecord is a result as stored; durations in nanoseconds.
type runRecord struct {
	Rep          int           `json:"rep"`
	Nodes        int           `json:"nodes"`
	Rate         float64       `json:"rate,omitempty"`
	DualStack    bool          `json:"dualStack,omitempty"`
	Existing     int           `json:"existing,omitempty"`
	Kind         string        `json:"kind"`
	QPS          int           `json:"qps,omitempty"`
	Burst        int           `json:"burst,omitempty"`
	Writers      int           `json:"writers,omitempty"`
	Baseline     bool          `json:"baseline,omitempty"`
	Total        time.Duration `json:"totalNs"`
	Created      time.Duration `json:"createdNs"`
	P50          time.Duration `json:"p50Ns"`
	P99          time.Duration `json:"p99Ns"`
	Max          time.Duration `json:"maxNs"`
	CPUSeconds   float64       `json:"cpuSeconds"`
	PeakRSSMiB   float64       `json:"peakRSSMiB"`
	Writes       float64       `json:"writes"`
	WritesBy     string        `json:"writesBy,omitempty"`
	Rebuild      time.Duration `json:"rebuildNs,omitempty"`
	FirstAlloc   time.Duration `json:"firstAllocNs,omitempty"`
	SteadyRSSMiB float64       `json:"steadyRSSMiB,omitempty"`
	// BurstCPUSeconds came after the format's first lines: older lines
	// load without it, as 0, which the report shows as not measured.
	BurstCPUSeconds float64 `json:"burstCPUSeconds,omitempty"`
	Error           string  `json:"error,omitempty"`
}

// cacheRecord is a cacheResult as stored.
type cacheRecord struct {
	Nodes     int              `json:"nodes"`
	NodeBytes int              `json:"nodeBytes"`
	Mask      int              `json:"mask"`
	Create    time.Duration    `json:"createNs"`
	Ours      cacheUsageRecord `json:"ours"`
	KCM       cacheUsageRecord `json:"kcm"`
	Error     string           `json:"error,omitempty"`
}

type cacheUsageRecord struct {
	RSSMiB     float64       `json:"rssMiB"`
	PeakMiB    float64       `json:"peakMiB"`
	CPUSeconds float64       `json:"cpuSeconds"`
	Ready      time.Duration `json:"readyNs"`
	Rebuild    string        `json:"rebuild,omitempty"`
	Error      string        `json:"error,omitempty"`
}

// cacheKey is the key of the memory measurement's record.
const cacheKey = "cache"

// runKey identifies a planned run across sessions.
func runKey(p planned) string {
	return fmt.Sprintf("rep %d: %s, %s", p.rep, p.scenario, p.config)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func errOf(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}

func runRecordOf(r result) *runRecord {
	return &runRecord{
		Rep: r.rep, Nodes: r.scenario.nodes, Rate: r.scenario.rate, DualStack: r.scenario.dualStack, Existing: r.scenario.existing,
		Kind: r.config.kind, QPS: r.config.qps, Burst: r.config.burst, Writers: r.config.writers, Baseline: r.config.baseline,
		Total: r.total, Created: r.created, P50: r.p50, P99: r.p99, Max: r.max,
		CPUSeconds: r.cpuSeconds, PeakRSSMiB: r.peakRSSMiB, Writes: r.writes, WritesBy: r.writesBy,
		Rebuild: r.rebuild, FirstAlloc: r.firstAlloc, SteadyRSSMiB: r.steadyRSSMiB, BurstCPUSeconds: r.burstCPUSeconds,
		Error: errText(r.err),
	}
}

func (rr *runRecord) result() result {
	return result{
		planned: planned{
			scenario: scenario{nodes: rr.Nodes, rate: rr.Rate, dualStack: rr.DualStack, existing: rr.Existing},
			config:   config{kind: rr.Kind, qps: rr.QPS, burst: rr.Burst, writers: rr.Writers, baseline: rr.Baseline},
			rep:      rr.Rep,
		},
		total: rr.Total, created: rr.Created, p50: rr.P50, p99: rr.P99, max: rr.Max,
		cpuSeconds: rr.CPUSeconds, peakRSSMiB: rr.PeakRSSMiB, writes: rr.Writes, writesBy: rr.WritesBy,
		rebuild: rr.Rebuild, firstAlloc: rr.FirstAlloc, steadyRSSMiB: rr.SteadyRSSMiB, burstCPUSeconds: rr.BurstCPUSeconds,
		err: errOf(rr.Error),
	}
}

func usageRecordOf(u cacheUsage) cacheUsageRecord {
	return cacheUsageRecord{RSSMiB: u.rssMiB, PeakMiB: u.peakMiB, CPUSeconds: u.cpuSeconds, Ready: u.ready, Rebuild: u.rebuild, Error: errText(u.err)}
}

func (u cacheUsageRecord) usage() cacheUsage {
	return cacheUsage{rssMiB: u.RSSMiB, peakMiB: u.PeakMiB, cpuSeconds: u.CPUSeconds, ready: u.Ready, rebuild: u.Rebuild, err: errOf(u.Error)}
}

func cacheRecordOf(cr cacheResult) *cacheRecord {
	return &cacheRecord{Nodes: cr.nodes, NodeBytes: cr.nodeBytes, Mask: cr.mask, Create: cr.create,
		Ours: usageRecordOf(cr.ours), KCM: usageRecordOf(cr.kcm), Error: errText(cr.err)}
}

func (c *cacheRecord) result() cacheResult {
	return cacheResult{nodes: c.Nodes, nodeBytes: c.NodeBytes, mask: c.Mask, create: c.Create,
		ours: c.Ours.usage(), kcm: c.KCM.usage(), err: errOf(c.Error)}
}

// wholeLines splits data into its complete lines and a last line cut short
// (a process killed while appending), which is dropped.
func wholeLines(data []byte) (whole, torn []byte) {
	i := bytes.LastIndexByte(data, '\n')
	return data[:i+1], data[i+1:]
}

// parseRecords parses the complete lines of a results file.
func parseRecords(data []byte) ([]record, error) {
	var out []record
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec record
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if (rec.Run == nil) == (rec.Cache == nil) {
			return nil, fmt.Errorf("line %d: neither one run nor the memory measurement", i+1)
		}
		out = append(out, rec)
	}
	return out, nil
}

// checkIdentity refuses records made by another plan or other binaries.
func checkIdentity(path string, recs []record, id identity) error {
	for i, rec := range recs {
		if d := rec.Identity.diff(id); len(d) > 0 {
			return fmt.Errorf("%s holds runs of another plan or binary (record %d): %s; resume with the flags and binaries that made it, "+
				"or run without -resume to start afresh (the file is then kept as %s.prev)", path, i+1, strings.Join(d, "; "), path)
		}
	}
	return nil
}

// remaining returns the indexes of the planned runs the records do not
// hold, in plan order; a run left out (skip) is never run. A failed run has
// its record too: delete its line to run it again.
func remaining(plan []planned, recs []record) []int {
	done := map[string]bool{}
	for _, rec := range recs {
		if rec.Run != nil {
			done[rec.Key] = true
		}
	}
	var out []int
	for i, p := range plan {
		if p.skip == "" && !done[runKey(p)] {
			out = append(out, i)
		}
	}
	return out
}

// cacheDone reports whether the records hold the memory measurement.
func cacheDone(recs []record) bool {
	return slices.ContainsFunc(recs, func(rec record) bool { return rec.Cache != nil })
}

// merge turns the records into the report's results: the planned runs in
// plan order (a run left out from the plan, a run made from its records),
// then the records the plan does not hold (an earlier session's higher
// -repeat); and the last memory measurement.
func merge(plan []planned, recs []record) ([]result, *cacheResult) {
	byKey := map[string][]result{}
	var cache *cacheResult
	for _, rec := range recs {
		switch {
		case rec.Run != nil:
			byKey[rec.Key] = append(byKey[rec.Key], rec.Run.result())
		case rec.Cache != nil:
			cr := rec.Cache.result()
			cache = &cr
		}
	}
	var out []result
	used := map[string]bool{}
	for _, p := range plan {
		if p.skip != "" {
			out = append(out, result{planned: p})
			continue
		}
		k := runKey(p)
		out = append(out, byKey[k]...)
		used[k] = true
	}
	for _, rec := range recs {
		if rec.Run != nil && !used[rec.Key] {
			out = append(out, rec.Run.result())
		}
	}
	return out, cache
}

// sessions counts the benchmark processes that made the records, and the
// time their runs took in all.
func sessions(recs []record) (int, time.Duration) {
	seen := map[string]bool{}
	var wall time.Duration
	for _, rec := range recs {
		seen[rec.Session] = true
		wall += rec.Wall
	}
	return len(seen), wall
}

// resultsFile is the results file of one benchmark process.
type resultsFile struct {
	path    string
	id      identity
	session string
}

// open returns the records to go on from. With resume they are the file's
// (a missing file is none; a last line cut short is cut off); without, an
// existing file is moved aside to <path>.prev and none are.
func (f resultsFile) open(resume bool) ([]record, error) {
	data, err := os.ReadFile(f.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading results: %w", err)
	case !resume:
		if err := os.Rename(f.path, f.path+".prev"); err != nil {
			return nil, fmt.Errorf("moving the former results aside: %w", err)
		}
		progress("starting afresh: the former results are now %s.prev (-resume goes on with them)", f.path)
		return nil, nil
	}
	whole, torn := wholeLines(data)
	if len(torn) > 0 {
		progress("dropping the last line of %s, cut short (%d bytes)", f.path, len(torn))
		if err := os.Truncate(f.path, int64(len(whole))); err != nil {
			return nil, fmt.Errorf("cutting off the partial last line of %s: %w", f.path, err)
		}
	}
	recs, err := parseRecords(whole)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.path, err)
	}
	if err := checkIdentity(f.path, recs, f.id); err != nil {
		return nil, err
	}
	return recs, nil
}

// append writes one record as a line and syncs it, so a run that finished
// survives the benchmark being killed.
func (f resultsFile) append(rec record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding a result: %w", err)
	}
	out, err := os.OpenFile(f.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("opening results: %w", err)
	}
	_, err = out.Write(append(line, '\n'))
	if err == nil {
		err = out.Sync()
	}
	return errors.Join(err, out.Close())
}
