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

package chaos

import (
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/chaos/faultproxy"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/invariants/history"
)

// Result is what one run did and found.
type Result struct {
	Config Config
	Label  string
	Binary string
	// Bug is the seeded bug the run had active, nil for the operator under
	// test.
	Bug *SeededBug

	// Duration is the whole run, cluster start to checks.
	Duration time.Duration
	// FaultsEnd is when the last fault ended; Recovery how long after it
	// the system settled, unless NotRecovered says what was missing.
	FaultsEnd    time.Time
	Recovery     time.Duration
	NotRecovered string

	// Injected are the process faults performed; Skipped counts those that
	// found no target (no leader during a failover).
	Injected []Injected
	Skipped  map[Kind]int
	// Proxy counts the operators' requests and the faults injected.
	Proxy faultproxy.Stats
	// Writes are the operators' mutating requests; Identities maps Lease
	// holder identities to operator processes.
	Writes     []faultproxy.Entry
	Identities map[string]string
	// Processes is how many operator processes ran.
	Processes int

	NodesCreated, NodesDeleted, PeakNodes int
	// AutoscaledAdded and AutoscaledRemoved count the ranges that entered
	// and left AutoscaledRangeSet default.
	AutoscaledAdded, AutoscaledRemoved int
	// HistoryErr is a gap in the recorded history.
	HistoryErr error

	// Report is what test/framework/invariants/history found in the history.
	Report history.Report
}

// ViolationCount is the total number of violations.
func (r *Result) ViolationCount() int { return len(r.Report.Violations) }

// Verdict judges a seeded-bug run by its bug's invariant; false for a run
// without a seeded bug.
func (r *Result) Verdict() (Verdict, bool) {
	if r.Bug == nil {
		return Verdict{}, false
	}
	return Judge(*r.Bug, r.Violations()), true
}

// Reuses returns how many freed blocks NodeIPAM handed out again, and how
// many of them after the lease changed hands since the free.
func (r *Result) Reuses() (reuses, acrossFailover int) {
	return r.Report.Counts[history.CountReuses], r.Report.Counts[history.CountReusesAcrossFailover]
}

// Violations counts the violations by invariant.
func (r *Result) Violations() map[string]int {
	out := map[string]int{}
	for _, v := range r.Report.Violations {
		out[v.Invariant]++
	}
	return out
}

// maxDetails bounds the violations Details describes.
const maxDetails = 20

// Details describes the first violations: the writes sent without the
// lease first, since each names the one write that broke the fence (and
// sorts by its RV, so after many others when it landed), then the others in
// RV order.
func (r *Result) Details() []string {
	vs := make([]history.Violation, 0, len(r.Report.Violations))
	for _, first := range []bool{true, false} {
		for _, v := range r.Report.Violations {
			if (v.Invariant == history.InvWriteWithoutLease) == first {
				vs = append(vs, v)
			}
		}
	}
	var out []string
	for _, v := range vs[:min(len(vs), maxDetails)] {
		d := fmt.Sprintf("%s at resourceVersion %d (%s): %s", v.Invariant, v.RV, v.Time.Format("15:04:05.000"), v.Message)
		if v.Process != "" {
			d += " [written by " + v.Process
			if v.StaleWrite {
				d += ", a stale write"
			}
			d += "]"
		}
		out = append(out, d)
	}
	return out
}

// adapterWrites counts the operators' landed writes of the adapters'
// ConfigMaps and DaemonSets: a configuration and a rollout each.
func (r *Result) adapterWrites() (configMaps, daemonSets int) {
	for _, w := range r.Writes {
		if w.Code < 200 || w.Code >= 300 {
			continue
		}
		switch {
		case w.Resource == "configmaps" && (w.Name == kubeProxyName && w.Namespace == kubeProxyNamespace || w.Name == flannelConfigMap):
			configMaps++
		case w.Resource == "daemonsets" && (w.Name == kubeProxyName || w.Name == flannelDaemonSet):
			daemonSets++
		}
	}
	return configMaps, daemonSets
}

// FaultCounts counts the performed process faults by kind.
func (r *Result) FaultCounts() map[Kind]int {
	out := map[Kind]int{}
	for _, f := range r.Injected {
		out[f.Kind]++
	}
	return out
}

// collect fills res from the run's state and its history, and checks it.
func (r *run) collect(res *Result, events []framework.Event) {
	r.mu.Lock()
	res.Injected = append(res.Injected, r.injected...)
	res.Skipped = maps.Clone(r.skipped)
	r.mu.Unlock()
	res.Proxy = r.proxy.Stats()
	res.Writes = r.wlog.Entries()
	res.Identities = r.wlog.Identities()
	res.Processes = r.ops.processes()
	res.NodesCreated, res.NodesDeleted = r.storm.counts()
	live := map[string]bool{}
	declared := map[string]bool{} // the autoscaler's ranges, "name cidr"
	for _, ev := range events {
		switch o := ev.Object.(type) {
		case *corev1.Node:
			if ev.Deleted {
				delete(live, o.Name)
			} else {
				live[o.Name] = true
			}
			res.PeakNodes = max(res.PeakNodes, len(live))
		case *v1alpha1.AutoscaledRangeSet:
			now := map[string]bool{}
			if !ev.Deleted && o.Spec != nil {
				for _, ar := range o.Spec.Ranges {
					now[ar.Name+" "+string(ar.CIDR)] = true
				}
			}
			for k := range now {
				if !declared[k] {
					res.AutoscaledAdded++
				}
			}
			for k := range declared {
				if !now[k] {
					res.AutoscaledRemoved++
				}
			}
			declared = now
		}
	}
	res.Report = check(events, res)
}
