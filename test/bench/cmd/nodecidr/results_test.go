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
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testOptions is a small plan: one burst size, at two configurations.
func testOptions() options {
	return options{sizes: []int{200}, only: "500/1000", throttledMax: 1000, clusterCIDR: "10.128.0.0/9", nodeMask: 24, repeat: 1}
}

func keys(plan []planned) []string {
	var out []string
	for _, p := range plan {
		out = append(out, runKey(p))
	}
	return out
}

func TestPlanRuns(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*options)
		want   []string
	}{
		{"one round", func(*options) {}, []string{
			"rep 1: burst 200, kcm 500/1000", "rep 1: burst 200, ours 500/1000", "rep 1: burst 200, ours 500/1000, 16 workers",
		}},
		{"repetitions are whole rounds", func(o *options) { o.repeat = 2; o.only = "kcm 500" }, []string{
			"rep 1: burst 200, kcm 500/1000", "rep 2: burst 200, kcm 500/1000",
		}},
		{"dual-stack and scale follow the bursts in every round", func(o *options) {
			o.only, o.repeat = "500/1000", 2
			o.sizes = nil
			o.dualStack, o.dualStackNodes = true, []int{300}
			o.scaleNodes, o.scaleBurst = []int{3000}, 200
		}, []string{
			"rep 1: burst 300 dual-stack, kcm 500/1000", "rep 1: burst 300 dual-stack, ours 500/1000",
			"rep 1: burst 200 onto 3000, kcm 500/1000", "rep 1: burst 200 onto 3000, ours 500/1000",
			"rep 2: burst 300 dual-stack, kcm 500/1000", "rep 2: burst 300 dual-stack, ours 500/1000",
			"rep 2: burst 200 onto 3000, kcm 500/1000", "rep 2: burst 200 onto 3000, ours 500/1000",
		}},
		{"dual-stack needs nodes", func(o *options) { o.sizes, o.dualStack = nil, true }, nil},
		{"a dual-stack burst of each size, then the dual-stack steady arrival, then each scale point", func(o *options) {
			o.only, o.sizes = "kcm", nil
			o.steadyNodes, o.steadyRate = 100, 50
			o.dualStack, o.dualStackNodes, o.steadyDualStack = true, []int{1000, 5000}, true
			o.scaleNodes, o.scaleBurst = []int{1000, 10000, 100000}, 1000
		}, []string{
			"rep 1: 100 at 50/s, kcm 20/30 (default)", "rep 1: 100 at 50/s, kcm 500/1000",
			"rep 1: burst 1000 dual-stack, kcm 500/1000", "rep 1: burst 5000 dual-stack, kcm 500/1000",
			"rep 1: 100 at 50/s dual-stack, kcm 500/1000",
			"rep 1: burst 1000 onto 1000, kcm 500/1000", "rep 1: burst 1000 onto 10000, kcm 500/1000",
			"rep 1: burst 1000 onto 100000, kcm 500/1000",
		}},
		{"the dual-stack steady arrival alone", func(o *options) {
			o.only, o.sizes, o.steadyNodes, o.steadyRate = "ours 500/1000", nil, 100, 100
			o.dualStack, o.dualStackNodes, o.steadyDualStack = true, nil, true
		}, []string{
			"rep 1: 100 at 100/s, ours 500/1000", "rep 1: 100 at 100/s, ours 500/1000, 16 workers", "rep 1: 100 at 100/s dual-stack, ours 500/1000",
		}},
		{"the dual-stack steady arrival needs -dual-stack", func(o *options) {
			o.sizes, o.steadyNodes, o.steadyRate, o.steadyDualStack, o.only = nil, 100, 100, true, "kcm 500"
		}, []string{"rep 1: 100 at 100/s, kcm 500/1000"}},
		{"and a steady arrival", func(o *options) {
			o.sizes, o.steadyNodes, o.dualStack, o.dualStackNodes, o.steadyDualStack = nil, 0, true, nil, true
		}, nil},
		{"baseline twins", func(o *options) { o.only, o.baseline = "ours 500/1000 (", "bin/old" }, nil},
		{"baseline twins in the sections", func(o *options) {
			o.sizes, o.only, o.baseline, o.scaleNodes, o.scaleBurst = nil, "ours", "bin/old", []int{10}, 2
		}, []string{"rep 1: burst 2 onto 10, ours 500/1000", "rep 1: burst 2 onto 10, ours 500/1000 [baseline]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions()
			tc.modify(&o)
			if got := keys(planRuns(o)); !slices.Equal(got, tc.want) {
				t.Errorf("plan:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestPlanRunsLeavesOutLongThrottledBursts(t *testing.T) {
	o := testOptions()
	o.sizes, o.only = []int{200, 2000}, "kcm 20/30"
	plan := planRuns(o)
	if len(plan) != 2 || plan[0].skip != "" || !strings.Contains(plan[1].skip, "-throttled-max=1000") {
		t.Errorf("plan = %+v, want the 2000-node burst at 20 QPS left out", plan)
	}
}

func TestIdentityDiff(t *testing.T) {
	base := func() identity {
		return identity{Format: resultsFormat, Plan: planFlags(testOptions()), Operator: "aaa", KCM: "Kubernetes v1.37.2"}
	}
	tests := []struct {
		name   string
		modify func(*identity)
		want   []string // substrings, one per difference
	}{
		{"same", func(*identity) {}, nil},
		{"more sizes of a list", func(id *identity) {
			o := testOptions()
			o.scaleNodes, o.scaleBurst = []int{1000, 100000}, 5000
			id.Plan = planFlags(o)
		}, []string{"-scale-burst: unset in the file, 5000 now", "-scale-nodes: unset in the file, 1000,100000 now"}},
		{"-repeat is not part of the plan", func(id *identity) {
			o := testOptions()
			o.repeat = 5
			id.Plan = planFlags(o)
		}, nil},
		{"run time flags are not either", func(id *identity) {
			o := testOptions()
			o.runTimeout, o.out, o.doc, o.results, o.resume = time.Hour, "x", "y", "z", true
			id.Plan = planFlags(o)
		}, nil},
		{"sizes", func(id *identity) {
			o := testOptions()
			o.sizes = []int{200, 1000}
			id.Plan = planFlags(o)
		}, []string{"-sizes: 200 in the file, 200,1000 now"}},
		{"a section turned on", func(id *identity) {
			o := testOptions()
			o.scaleNodes, o.scaleBurst = []int{100000}, 5000
			id.Plan = planFlags(o)
		}, []string{"-scale-burst: unset in the file, 5000 now", "-scale-nodes: unset in the file, 100000 now"}},
		{"the IPv6 range of a section that is off does not count", func(id *identity) {
			o := testOptions()
			o.clusterCIDRv6 = "fd99:1::/48"
			id.Plan = planFlags(o)
		}, nil},
		{"operator binary", func(id *identity) { id.Operator = "bbb" }, []string{"operator binary sha256: aaa in the file, bbb now"}},
		{"baseline added", func(id *identity) { id.Baseline = "ccc" }, []string{"baseline binary sha256: unset in the file, ccc now"}},
		{"kcm", func(id *identity) { id.KCM = "Kubernetes v1.38.0" }, []string{"kube-controller-manager version"}},
		{"format", func(id *identity) { id.Format++ }, []string{"results format"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := base()
			tc.modify(&now)
			got := base().diff(now)
			if len(got) != len(tc.want) {
				t.Fatalf("diff = %q, want %d differences (%q)", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("difference %d = %q, want it to say %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// oldFullPlan is the plan of docs/performance/data/full-plan-1eb6d6a.jsonl,
// made with `-throttled-max=1 -steady-nodes=0 -dual-stack -scale-nodes=100000`
// before -dual-stack-nodes and -scale-nodes took lists.
var oldFullPlan = map[string]string{
	"cache-nodes": "65000", "cluster-cidr": "10.128.0.0/9", "cluster-cidr-v6": "fd99::/48", "dual-stack": "true", "dual-stack-nodes": "5000",
	"node-mask": "24", "node-mask-v6": "64", "only": "", "scale-burst": "5000", "scale-nodes": "100000", "sizes": "1000,5000",
	"steady-nodes": "0", "throttled-max": "1",
}

// TestPlanFlagsKeepOldFiles checks that the list flags at their defaults,
// and -steady-dual-stack off, keep the identity of a file made before
// them, so -resume goes on with it; and that the new options change it.
func TestPlanFlagsKeepOldFiles(t *testing.T) {
	counts := func(list string) []int {
		ns, err := parseCounts("test", list)
		if err != nil {
			t.Fatal(err)
		}
		return ns
	}
	fullPlan := func() options {
		return options{
			sizes: counts("1000,5000"), steadyRate: 100, throttledMax: 1, cacheNodes: 65000, clusterCIDR: "10.128.0.0/9", nodeMask: 24,
			dualStack: true, dualStackNodes: counts("5000"), clusterCIDRv6: "fd99::/48", nodeMaskV6: 64,
			scaleNodes: counts("100000"), scaleBurst: 5000, repeat: 3,
		}
	}
	tests := []struct {
		name   string
		modify func(*options)
		want   []string // differences to oldFullPlan, as diff says them
	}{
		{"the same flags", func(*options) {}, nil},
		// Off, since -steady-nodes=0: -steady-dual-stack alone is refused
		// at parsing, but the plan does not hold it either.
		{"-steady-dual-stack without a steady arrival", func(o *options) { o.steadyDualStack = true }, nil},
		{"a second dual-stack burst", func(o *options) { o.dualStackNodes = counts("1000,5000") },
			[]string{"-dual-stack-nodes: 5000 in the file, 1000,5000 now"}},
		{"the dual-stack steady arrival", func(o *options) { o.steadyNodes, o.steadyDualStack = 1000, true },
			[]string{"-steady-nodes: 0 in the file, 1000 now", "-steady-dual-stack: unset in the file, true now", "-steady-rate: unset in the file, 100 now"}},
		{"three scale points", func(o *options) { o.scaleNodes = counts("1000,10000,100000") },
			[]string{"-scale-nodes: 100000 in the file, 1000,10000,100000 now"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := fullPlan()
			tc.modify(&o)
			got := identity{Plan: oldFullPlan}.diff(identity{Plan: planFlags(o)})
			if !slices.Equal(got, tc.want) {
				t.Errorf("differences to the old file:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// recordOf is the record a finished run of p would leave, with total as its
// time.
func recordOf(p planned, total time.Duration, session string) record {
	r := result{planned: p, total: total, cpuSeconds: 1}
	return record{Session: session, Key: runKey(p), Wall: time.Minute, Run: runRecordOf(r)}
}

func TestRemaining(t *testing.T) {
	o := testOptions()
	o.sizes, o.only, o.repeat = []int{200, 5000}, "kcm", 2
	plan := planRuns(o) // per round: 200 at 20/30, 200 at 500/1000, 5000 at 20/30 (left out), 5000 at 500/1000
	if len(plan) != 8 || plan[2].skip == "" {
		t.Fatalf("unexpected plan %q", keys(plan))
	}
	failed := recordOf(plan[1], 0, "s1")
	failed.Run.Error = "boom"
	tests := []struct {
		name string
		recs []record
		want []int
	}{
		{"nothing done", nil, []int{0, 1, 3, 4, 5, 7}},
		{"first two done", []record{recordOf(plan[0], time.Second, "s1"), recordOf(plan[1], time.Second, "s1")}, []int{3, 4, 5, 7}},
		{"a failed run is done", []record{recordOf(plan[0], time.Second, "s1"), failed}, []int{3, 4, 5, 7}},
		{"done out of order", []record{recordOf(plan[5], time.Second, "s1")}, []int{0, 1, 3, 4, 7}},
		{"the memory measurement and other plans' keys do not count", []record{
			{Key: cacheKey, Cache: &cacheRecord{}}, recordOf(planned{scenario: scenario{nodes: 7}, config: config{kind: kindKCM}, rep: 1}, 0, "s1"),
		}, []int{0, 1, 3, 4, 5, 7}},
		{"everything", func() []record {
			var recs []record
			for _, p := range plan {
				if p.skip == "" {
					recs = append(recs, recordOf(p, time.Second, "s1"))
				}
			}
			return recs
		}(), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := remaining(plan, tc.recs); !slices.Equal(got, tc.want) {
				t.Errorf("remaining = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMergeIntoSummary(t *testing.T) {
	o := testOptions()
	o.sizes, o.only, o.repeat = []int{1000}, "kcm", 2
	plan := planRuns(o) // per round: kcm 20/30, kcm 500/1000
	kcmFast := plan[1]
	extra := kcmFast
	extra.rep = 3 // a third repetition an earlier session ran with -repeat=3
	tests := []struct {
		name      string
		recs      []record
		wantRows  []string // "scenario, config: runs"
		wantTotal time.Duration
		sessions  int
	}{
		{
			name: "two sessions, in the order they ran",
			recs: []record{
				recordOf(plan[0], 50*time.Second, "s1"), recordOf(plan[1], 2*time.Second, "s1"),
				recordOf(plan[2], 48*time.Second, "s2"), recordOf(plan[3], 4*time.Second, "s2"),
			},
			wantRows: []string{"burst 1000, kcm 20/30 (default): 2", "burst 1000, kcm 500/1000: 2"}, wantTotal: 3 * time.Second, sessions: 2,
		},
		{
			name: "out of order, and a repetition the plan no longer holds",
			recs: []record{
				recordOf(plan[3], 4*time.Second, "s2"), recordOf(plan[1], 2*time.Second, "s1"), recordOf(extra, 9*time.Second, "s1"),
			},
			// A run without a record has no row.
			wantRows: []string{"burst 1000, kcm 500/1000: 3"}, wantTotal: 4 * time.Second, sessions: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			results, cache := merge(plan, tc.recs)
			if cache != nil {
				t.Errorf("merge found a memory measurement in %+v", tc.recs)
			}
			var got []string
			var total time.Duration
			for _, r := range summarize(results) {
				got = append(got, r.scenario.String()+", "+r.config.String()+": "+strconv.Itoa(len(r.runs)))
				if r.config.qps == 500 {
					total = r.total
				}
			}
			if !slices.Equal(got, tc.wantRows) {
				t.Errorf("rows = %q, want %q", got, tc.wantRows)
			}
			if total != tc.wantTotal {
				t.Errorf("median total of kcm 500/1000 = %s, want %s", total, tc.wantTotal)
			}
			if n, wall := sessions(tc.recs); n != tc.sessions || wall != time.Duration(len(tc.recs))*time.Minute {
				t.Errorf("sessions = %d, %s; want %d, %d minutes", n, wall, tc.sessions, len(tc.recs))
			}
		})
	}
}

func TestMergeKeepsLeftOutRunsAndTheMemoryMeasurement(t *testing.T) {
	o := testOptions()
	o.sizes, o.only = []int{5000}, "kcm"
	plan := planRuns(o)
	recs := []record{
		recordOf(plan[1], 10*time.Second, "s1"),
		{Key: cacheKey, Cache: cacheRecordOf(cacheResult{nodes: 65000, ours: cacheUsage{rssMiB: 600}})},
	}
	results, cache := merge(plan, recs)
	if len(results) != 2 || results[0].skip == "" || results[1].total != 10*time.Second {
		t.Errorf("results = %+v, want the left-out run, then the recorded one", results)
	}
	if cache == nil || cache.nodes != 65000 || cache.ours.rssMiB != 600 {
		t.Errorf("memory measurement = %+v", cache)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, r := range []result{
		{planned: planned{scenario: scenario{nodes: 1000}, config: config{kind: kindLimit, writers: 16}, rep: 1},
			total: 2100 * time.Millisecond, created: 1900 * time.Millisecond, p50: time.Millisecond, p99: 3 * time.Millisecond, max: time.Second,
			cpuSeconds: 0.3, peakRSSMiB: 52.5, writes: 1000, writesBy: "PATCH nodes 1000"},
		{planned: planned{scenario: scenario{nodes: 300, dualStack: true}, config: config{kind: kindOurs, qps: 500, burst: 1000, baseline: true}, rep: 2},
			err: errTest},
		{planned: planned{scenario: scenario{nodes: 5000, existing: 100000}, config: config{kind: kindKCM, qps: 500, burst: 1000}, rep: 3},
			rebuild: 10 * time.Second, firstAlloc: 12 * time.Second, steadyRSSMiB: 700, cpuSeconds: 11.71, burstCPUSeconds: 2.02},
		{planned: planned{scenario: scenario{nodes: 1000, rate: 100, dualStack: true}, config: config{kind: kindKCM, qps: 500, burst: 1000}, rep: 1}},
		{planned: planned{scenario: scenario{nodes: 1000, rate: 100}, config: config{kind: kindOurs, writers: 30}, rep: 1}},
	} {
		rec := record{Key: runKey(r.planned), Run: runRecordOf(r)}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := parseRecords(append(line, '\n'))
		if err != nil || len(recs) != 1 {
			t.Fatalf("parsing %s: %v", line, err)
		}
		got := recs[0].Run.result()
		if errText(got.err) != errText(r.err) {
			t.Errorf("error %v came back as %v", r.err, got.err)
		}
		got.err, r.err = nil, nil
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", rec.Key, got, r)
		}
	}
}

// TestRecordBurstCPU checks that the burst's CPU is stored only when
// measured, and that a line written before it was loads as not measured.
func TestRecordBurstCPU(t *testing.T) {
	scale := result{planned: planned{scenario: scenario{nodes: 1000, existing: 10000}, config: config{kind: kindOurs, qps: 500, burst: 1000}, rep: 1},
		cpuSeconds: 3, burstCPUSeconds: 0.5}
	for _, tc := range []struct {
		r    result
		want string
	}{{scale, `"burstCPUSeconds":0.5`}, {result{planned: scale.planned}, ""}} {
		line, err := json.Marshal(runRecordOf(tc.r))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(line), "burstCPUSeconds"); got != (tc.want != "") || !strings.Contains(string(line), tc.want) {
			t.Errorf("record %s, want it to hold %q", line, tc.want)
		}
	}
	// The scale run of docs/performance/data/full-plan-1eb6d6a.jsonl.
	old := `{"identity":{"format":1,"plan":{"scale-nodes":"100000"},"kcm":"Kubernetes v1.37.2"},"session":"2026-12-06T03:28:16Z",` +
		`"key":"rep 1: burst 5000 onto 100000, kcm 500/1000","finished":"2026-12-06T03:36:13.775576779Z","wallNs":182591892857,` +
		`"run":{"rep":1,"nodes":5000,"existing":100000,"kind":"kcm","qps":500,"burst":1000,"totalNs":16631360691,"createdNs":16463983767,` +
		`"p50Ns":99458717,"p99Ns":389667038,"maxNs":502039809,"cpuSeconds":11.71,"peakRSSMiB":618.33984375,"writes":5002,` +
		`"writesBy":"PATCH nodes 5000, PUT leases 2","firstAllocNs":8233831723,"steadyRSSMiB":569.44921875}}` + "\n"
	recs, err := parseRecords([]byte(old))
	if err != nil || len(recs) != 1 {
		t.Fatalf("parsing a line written before the burst's CPU: %v", err)
	}
	if r := recs[0].Run.result(); r.burstCPUSeconds != 0 || r.cpuSeconds != 11.71 || r.scenario.existing != 100000 {
		t.Errorf("old line = %+v, want its figures and no burst CPU", r)
	}
}

func TestWholeLines(t *testing.T) {
	for _, tc := range []struct{ in, whole, torn string }{
		{"", "", ""},
		{"{}\n", "{}\n", ""},
		{"{}\n{}\n", "{}\n{}\n", ""},
		{"{}\n{\"ke", "{}\n", "{\"ke"},
		{"{\"ke", "", "{\"ke"},
	} {
		whole, torn := wholeLines([]byte(tc.in))
		if string(whole) != tc.whole || string(torn) != tc.torn {
			t.Errorf("wholeLines(%q) = %q, %q; want %q, %q", tc.in, whole, torn, tc.whole, tc.torn)
		}
	}
}

func TestParseRecordsRefusesNonsense(t *testing.T) {
	for _, in := range []string{"{\n", `{"key":"x"}` + "\n", `{"key":"x","run":{},"cache":{}}` + "\n"} {
		if _, err := parseRecords([]byte(in)); err == nil {
			t.Errorf("parseRecords(%q) succeeded", in)
		}
	}
}

// TestResultsFileResume walks through a session that is killed while
// appending, a resumed one, one with another binary, and a fresh start.
func TestResultsFileResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodecidr.jsonl")
	id := identity{Format: resultsFormat, Plan: planFlags(testOptions()), Operator: "aaa", KCM: "v1"}
	plan := planRuns(testOptions())
	f := resultsFile{path: path, id: id, session: "s1"}
	if recs, err := f.open(true); err != nil || recs != nil {
		t.Fatalf("resuming without a file = %v, %v; want nothing to resume", recs, err)
	}
	for _, p := range plan[:2] {
		rec := recordOf(p, time.Second, "s1")
		rec.Identity = id
		if err := f.append(rec); err != nil {
			t.Fatal(err)
		}
	}
	// Killed while appending the third.
	out, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.WriteString(`{"identity":{"format":1`)
	_ = out.Close()

	recs, err := f.open(true)
	if err != nil {
		t.Fatal(err)
	}
	if got := remaining(plan, recs); !slices.Equal(got, []int{2}) {
		t.Errorf("remaining after resume = %v, want [2]", got)
	}
	rec := recordOf(plan[2], time.Second, "s2")
	rec.Identity = id
	if err := f.append(rec); err != nil {
		t.Fatal(err)
	}
	if recs, err = f.open(true); err != nil || len(recs) != 3 {
		t.Fatalf("after the resumed run: %d records, %v; want 3 (the cut line gone)", len(recs), err)
	}

	other := f
	other.id.Operator = "bbb"
	if _, err := other.open(true); err == nil || !strings.Contains(err.Error(), "operator binary sha256: aaa in the file, bbb now") {
		t.Errorf("resuming with another binary: %v, want a refusal naming the binary", err)
	}
	if recs, err := other.open(false); err != nil || recs != nil {
		t.Fatalf("starting afresh = %v, %v", recs, err)
	}
	if _, err := os.Stat(path + ".prev"); err != nil {
		t.Errorf("the former results were not kept: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("starting afresh left %s in place: %v", path, err)
	}
}
