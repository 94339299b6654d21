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

package chart_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"podnetwork.io/operator/controllers/metrics"
	"podnetwork.io/operator/test/framework/chart"
	"podnetwork.io/operator/test/framework/cluster"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := cluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func tool(t *testing.T, root, name string) string {
	t.Helper()
	path := filepath.Join(root, "bin", name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s: %v (make %s builds it; make test does)", path, err, name)
	}
	return path
}

// TestAlertRulesWithPromtool runs the real promtool on the rendered
// PrometheusRule: `promtool check rules` and the rule unit tests of
// charts/podnetwork-operator/tests/alerts_test.yaml, which give every alert
// a firing and a non-firing case on synthetic series.
func TestAlertRulesWithPromtool(t *testing.T) {
	root := repoRoot(t)
	tool(t, root, "helm")
	promtool := tool(t, root, "promtool")
	objs, err := chart.Render(root, "-f", chart.MonitoringValues(root))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := chart.RuleFile(objs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), rules, 0o600); err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(filepath.Join(chart.Dir(root), "tests", "alerts_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alerts_test.yaml"), tests, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, {"test", "rules", "alerts_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		} else {
			t.Logf("promtool %v:\n%s", args, out)
		}
	}
}

// TestEveryAlertHasARunbookAndATest checks that each alert of the rendered
// rules has a section in docs/alerts.md and a case in the unit tests.
func TestEveryAlertHasARunbookAndATest(t *testing.T) {
	root := repoRoot(t)
	tool(t, root, "helm")
	objs, err := chart.Render(root, "-f", chart.MonitoringValues(root))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := chart.RuleFile(objs)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile(filepath.Join(root, "docs", "alerts.md"))
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(filepath.Join(chart.Dir(root), "tests", "alerts_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	alerts := regexp.MustCompile(`(?m)^\s*- alert: (\S+)$`).FindAllStringSubmatch(string(rules), -1)
	if len(alerts) == 0 {
		t.Fatal("no alert in the rendered rules")
	}
	for _, a := range alerts {
		name := a[1]
		if !regexp.MustCompile(`(?m)^## ` + name + `$`).Match(docs) {
			t.Errorf("alert %s has no section \"## %s\" in docs/alerts.md", name, name)
		}
		if !regexp.MustCompile(`alertname: ` + name + `\n\s+exp_alerts:\n(\s+#.*\n)*\s+- exp_labels`).Match(tests) {
			t.Errorf("alert %s has no firing case in alerts_test.yaml", name)
		}
		if !regexp.MustCompile(`alertname: ` + name + `\n\s+exp_alerts: \[\]`).Match(tests) {
			t.Errorf("alert %s has no non-firing case (exp_alerts: []) in alerts_test.yaml", name)
		}
	}
}

// TestMonitoringUsesOnlyExportedMetrics checks that every podnetwork_
// metric the alerts and the dashboard use is one the operator describes.
// The e2e suite checks the same names against a live /metrics.
func TestMonitoringUsesOnlyExportedMetrics(t *testing.T) {
	root := repoRoot(t)
	tool(t, root, "helm")
	objs, err := chart.Render(root, "-f", chart.MonitoringValues(root))
	if err != nil {
		t.Fatal(err)
	}
	exprs, err := chart.Expressions(objs)
	if err != nil {
		t.Fatal(err)
	}
	described := describedNames(t)
	used := chart.MetricNames(exprs)
	if len(used) < 10 {
		t.Fatalf("only %d metrics used: %v", len(used), used)
	}
	for _, name := range used {
		if !described[name] {
			t.Errorf("the alerts or the dashboard use %s, which the operator does not export", name)
		}
	}
}

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// describedNames registers the operator's metrics with a registerer that
// only collects the names their collectors describe.
func describedNames(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	reg := describer(func(c prometheus.Collector) {
		ch := make(chan *prometheus.Desc)
		go func() {
			c.Describe(ch)
			close(ch)
		}()
		for d := range ch {
			if m := fqName.FindStringSubmatch(d.String()); m != nil {
				names[m[1]] = true
			}
		}
	})
	if err := metrics.New().Register(reg); err != nil {
		t.Fatal(err)
	}
	return names
}

type describer func(prometheus.Collector)

func (d describer) Register(c prometheus.Collector) error { d(c); return nil }
func (d describer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		d(c)
	}
}
func (d describer) Unregister(prometheus.Collector) bool { return true }
