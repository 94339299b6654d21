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
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"podnetwork.io/operator/test/chaos/faultproxy"
	"podnetwork.io/operator/test/framework/invariants/history"
)

// Markdown renders the results side by side, one column per run, with the
// command that produced them.
func Markdown(results []*Result, command string, machine string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Produced by `%s` on %s, %s.\n\n", command, machine, time.Now().UTC().Format("2006-01-02"))
	header := []string{""}
	for _, r := range results {
		header = append(header, r.Label)
	}
	row := func(name string, f func(*Result) string) {
		cells := []string{name}
		for _, r := range results {
			cells = append(cells, f(r))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(header)) + "\n")
	row("configuration", func(r *Result) string { return r.Config.Name })
	if slices.ContainsFunc(results, func(r *Result) bool { return r.Bug != nil }) {
		row("seeded bug (the invariant that must catch it)", func(r *Result) string {
			if r.Bug == nil {
				return "none"
			}
			return fmt.Sprintf("`%s` (%s)", r.Bug.Name, r.Bug.Invariant)
		})
		row("caught by", func(r *Result) string {
			v, ok := r.Verdict()
			if !ok {
				return "n/a"
			}
			return strings.Replace(v.String(), "caught by ", "", 1)
		})
	}
	row("what it holds", func(r *Result) string { return r.Config.Features() })
	row("seed", func(r *Result) string { return fmt.Sprint(r.Config.Seed) })
	row("operator binary", func(r *Result) string { return "`" + r.Binary + "`" })
	row("duration (cluster start to checks)", func(r *Result) string { return r.Duration.Round(time.Second).String() })
	row("fault window", func(r *Result) string { return r.Config.FaultWindow.String() })
	plannedCounts := func(r *Result) map[Kind]int { return Schedule(r.Config).Counts() }
	for _, k := range Kinds {
		row(string(k), func(r *Result) string {
			done, planned := r.FaultCounts()[k], plannedCounts(r)[k]
			if done == planned {
				return fmt.Sprint(done)
			}
			return fmt.Sprintf("%d (of %d planned; no target for the rest)", done, planned)
		})
	}
	row("operator API requests through the proxy / over HTTP/2 / connections", func(r *Result) string {
		return fmt.Sprintf("%d / %d / %d", r.Proxy.Requests, r.Proxy.HTTP2, r.Proxy.Connections)
	})
	row("requests answered with an injected error or reset", func(r *Result) string {
		return fmt.Sprintf("%d (%.1f%%)", r.Proxy.Injected(), 100*float64(r.Proxy.Injected())/float64(max(1, r.Proxy.Requests)))
	})
	for _, f := range faultproxy.Faults {
		row("&nbsp;&nbsp;"+faultName(f), func(r *Result) string { return fmt.Sprint(r.Proxy.Faults[f]) })
	}
	row("operator processes started", func(r *Result) string { return fmt.Sprint(r.Processes) })
	row("nodes created / deleted / most at once", func(r *Result) string {
		return fmt.Sprintf("%d / %d / %d", r.NodesCreated, r.NodesDeleted, r.PeakNodes)
	})
	row("range phase transitions", func(r *Result) string { return transitions(r.Report) })
	row("recorded changes / operator writes", func(r *Result) string {
		return fmt.Sprintf("%d / %d", r.Report.Counts[history.CountObservations], len(r.Writes))
	})
	row("podCIDRs assigned / freed blocks reused / of them across a fail-over / early under ReuseOldest", func(r *Result) string {
		reuses, across := r.Reuses()
		return fmt.Sprintf("%d / %d / %d / %d", r.Report.Counts[history.CountAssigned], reuses, across, r.Report.Counts[history.CountEarlyReusesReuseOldest])
	})
	row("nodes given podCIDRs: dual-stack / IPv4 only / IPv6 only", func(r *Result) string {
		c := r.Report.Counts
		return fmt.Sprintf("%d / %d / %d", c[history.CountDualStackNodes], c[history.CountIPv4OnlyNodes], c[history.CountIPv6OnlyNodes])
	})
	row("ranges the autoscaler added / removed", func(r *Result) string {
		if !r.Config.Autoscaler {
			return "off"
		}
		return fmt.Sprintf("%d / %d", r.AutoscaledAdded, r.AutoscaledRemoved)
	})
	row("adapter writes landed: ConfigMaps / DaemonSets", func(r *Result) string {
		if !r.Config.Adapters {
			return "off"
		}
		cms, dss := r.adapterWrites()
		return fmt.Sprintf("%d / %d", cms, dss)
	})
	row("stale writes (sent without the lease) / of them landed", func(r *Result) string {
		return fmt.Sprintf("%d / %d%s", r.Report.Counts[history.CountStaleWrites], r.Report.Counts[history.CountStaleLanded], staleKinds(r.Report))
	})
	row("**violations**", func(r *Result) string { return fmt.Sprintf("**%d**", r.ViolationCount()) })
	for _, inv := range history.Invariants {
		row("&nbsp;&nbsp;"+inv, func(r *Result) string { return fmt.Sprint(r.Violations()[inv]) })
	}
	row("settled after the last fault", func(r *Result) string {
		if r.NotRecovered != "" {
			return "no: " + r.NotRecovered
		}
		return r.Recovery.Round(100 * time.Millisecond).String()
	})
	return b.String()
}

// staleKinds lists the resources of the stale writes, " (events 2)".
func staleKinds(rep history.Report) string {
	byResource := map[string]int{}
	for _, w := range rep.Stale {
		byResource[w.Resource]++
	}
	if len(byResource) == 0 {
		return ""
	}
	var parts []string
	for _, res := range slices.Sorted(maps.Keys(byResource)) {
		parts = append(parts, fmt.Sprintf("%s %d", res, byResource[res]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// transitions sums the range transitions of a report and lists them.
func transitions(rep history.Report) string {
	var parts []string
	total := 0
	for _, k := range slices.Sorted(maps.Keys(rep.Counts)) {
		if t, ok := strings.CutPrefix(k, history.CountTransition); ok {
			total += rep.Counts[k]
			parts = append(parts, fmt.Sprintf("%s %d", t, rep.Counts[k]))
		}
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

func faultName(f faultproxy.Fault) string {
	switch f {
	case faultproxy.TooManyRequests:
		return "429 before forwarding"
	case faultproxy.InternalError:
		return "500 before forwarding"
	case faultproxy.Unavailable:
		return "503 before forwarding"
	case faultproxy.ErrorAfter500:
		return "500 after the apiserver acted"
	case faultproxy.ErrorAfter503:
		return "503 after the apiserver acted"
	case faultproxy.ResetBefore:
		return "reset before forwarding (the stream alone on HTTP/2)"
	case faultproxy.ResetAfter:
		return "reset after the apiserver acted (the stream alone on HTTP/2)"
	case faultproxy.WatchCut:
		return "watches cut (not counted above)"
	}
	return string(f)
}

// Problems returns what makes a run of the real operator fail: any
// violation, a write sent without the lease among them (history's
// no-write-without-lease), a gap in the history, or no recovery.
func (r *Result) Problems() error {
	var errs []error
	if n := r.ViolationCount(); n > 0 {
		what := fmt.Sprintf("%d invariant violations", n)
		if stale := r.Violations()[history.InvWriteWithoutLease]; stale > 0 {
			what += fmt.Sprintf(" (%d of them writes sent without the lease)", stale)
		}
		errs = append(errs, fmt.Errorf("%s: %s", what, strings.Join(r.Details(), "; ")))
	}
	if r.HistoryErr != nil {
		errs = append(errs, r.HistoryErr)
	}
	if r.NotRecovered != "" {
		errs = append(errs, errors.New(r.NotRecovered))
	}
	return errors.Join(errs...)
}

// ReplaceGenerated replaces the block named block (between the markers
// "<!-- BEGIN GENERATED: <block> -->" and "<!-- END GENERATED: <block> -->")
// in path with text.
func ReplaceGenerated(path, block, text string) error {
	beginMarker := "<!-- BEGIN GENERATED: " + block + " -->"
	endMarker := "<!-- END GENERATED: " + block + " -->"
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	s := string(data)
	i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s ... %s block", path, beginMarker, endMarker)
	}
	out := s[:i+len(beginMarker)] + "\n" + text + s[j:]
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil { //nolint:gosec // documentation
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
