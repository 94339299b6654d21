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
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"podnetwork.io/operator/test/framework/chart"
)

type alertRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// alertRules renders the chart with args and returns its alerting rules.
func alertRules(t *testing.T, root string, args ...string) []alertRule {
	t.Helper()
	tool(t, root, "helm")
	objs, err := chart.Render(root, args...)
	if err != nil {
		t.Fatal(err)
	}
	file, err := chart.RuleFile(objs)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Groups []struct {
			Rules []alertRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(file, &spec); err != nil {
		t.Fatal(err)
	}
	var out []alertRule
	for _, g := range spec.Groups {
		out = append(out, g.Rules...)
	}
	if len(out) == 0 {
		t.Fatal("no alerting rule rendered")
	}
	return out
}

// TestRunbookURLs: with runbookBaseURL set every alert links its section of
// docs/alerts.md by an absolute URL; without it no alert has a runbook_url
// (a relative one resolves nowhere), and the schema refuses a relative base.
func TestRunbookURLs(t *testing.T) {
	root := repoRoot(t)
	for _, r := range alertRules(t, root, "--set", "metrics.prometheusRule.enabled=true") {
		if u, ok := r.Annotations["runbook_url"]; ok {
			t.Errorf("%s (%s): runbook_url %q without metrics.prometheusRule.runbookBaseURL", r.Alert, r.Labels["severity"], u)
		}
	}
	values, err := os.ReadFile(chart.MonitoringValues(root))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Metrics struct {
			PrometheusRule struct {
				RunbookBaseURL string `yaml:"runbookBaseURL"`
			} `yaml:"prometheusRule"`
		} `yaml:"metrics"`
	}
	if err := yaml.Unmarshal(values, &v); err != nil {
		t.Fatal(err)
	}
	base := v.Metrics.PrometheusRule.RunbookBaseURL
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("ci/monitoring-values.yaml: runbookBaseURL %q, want an absolute https URL", base)
	}
	for _, args := range [][]string{
		{"-f", chart.MonitoringValues(root)},
		{"-f", chart.MonitoringValues(root), "--set", "metrics.prometheusRule.runbookBaseURL=" + base + "#"},
	} {
		for _, r := range alertRules(t, root, args...) {
			if want := base + "#" + strings.ToLower(r.Alert); r.Annotations["runbook_url"] != want {
				t.Errorf("%v: %s (%s): runbook_url %q, want %q", args[2:], r.Alert, r.Labels["severity"], r.Annotations["runbook_url"], want)
			}
		}
	}
	helmRefuses(t, root, "metrics:\n  prometheusRule:\n    runbookBaseURL: docs/alerts.md\n", "/metrics/prometheusRule/runbookBaseURL")
}

var (
	firstStepInDescription = regexp.MustCompile(`First step: (.+)$`)
	firstStepInDocs        = regexp.MustCompile(`(?s)\*\*First step:\*\* (.+?)\n\n`)
	severityInDocs         = regexp.MustCompile(`\*\*Severity:\*\* ([^\n]+)`)
	space                  = regexp.MustCompile(`\s+`)
)

// TestAlertsMatchTheirRunbooks: every alert has a `for`, a known severity
// its runbook names, and a description that ends with the first step of
// its runbook, word for word.
func TestAlertsMatchTheirRunbooks(t *testing.T) {
	root := repoRoot(t)
	docs, err := os.ReadFile(filepath.Join(root, "docs", "alerts.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, s := range strings.Split(string(docs), "\n## ")[1:] {
		name, body, _ := strings.Cut(s, "\n")
		sections[name] = body
	}
	for _, r := range alertRules(t, root, "-f", chart.MonitoringValues(root)) {
		sev := r.Labels["severity"]
		if r.For == "" || r.For == "0s" {
			t.Errorf("%s (%s) has no `for`", r.Alert, sev)
		}
		if sev != "critical" && sev != "warning" && sev != "info" {
			t.Errorf("%s: severity %q", r.Alert, sev)
		}
		section, ok := sections[r.Alert]
		if !ok {
			t.Errorf("%s has no section in docs/alerts.md", r.Alert)
			continue
		}
		if m := severityInDocs.FindStringSubmatch(section); m == nil || !strings.Contains(m[1], sev) {
			t.Errorf("docs/alerts.md, %s: no **Severity:** line naming %s", r.Alert, sev)
		}
		if !strings.Contains(section, "**For:**") || !strings.Contains(section, "**Silence:**") {
			t.Errorf("docs/alerts.md, %s: no **For:** or **Silence:**", r.Alert)
		}
		desc := firstStepInDescription.FindStringSubmatch(r.Annotations["description"])
		doc := firstStepInDocs.FindStringSubmatch(section)
		if desc == nil || doc == nil {
			t.Errorf("%s (%s): no first step in its description (%v) or in docs/alerts.md (%v)", r.Alert, sev, desc != nil, doc != nil)
			continue
		}
		if got := space.ReplaceAllString(strings.ReplaceAll(doc[1], "`", ""), " "); got != desc[1] {
			t.Errorf("%s (%s): the description's first step\n  %s\ndiffers from docs/alerts.md's\n  %s", r.Alert, sev, desc[1], got)
		}
	}
}

var podnetworkSelector = regexp.MustCompile(`\bpodnetwork_[a-z0-9_]+(\{[^}]*\})?`)

// TestDashboardFiltersByClusterNamespaceJob: the dashboard has cluster,
// namespace and job variables filled from the data source, and every
// operator metric of every panel is filtered by all three.
func TestDashboardFiltersByClusterNamespaceJob(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(chart.Dir(root), "dashboards", "podnetwork-operator.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Type       string `json:"type"`
				Query      any    `json:"query"`
				Datasource struct {
					UID string `json:"uid"`
				} `json:"datasource"`
			} `json:"list"`
		} `json:"templating"`
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		q, _ := v.Query.(string)
		if v.Type == "query" && v.Datasource.UID == "${datasource}" && strings.HasPrefix(q, "label_values(") && strings.HasSuffix(q, ", "+v.Name+")") {
			vars[v.Name] = true
		}
	}
	for _, name := range []string{"cluster", "namespace", "job"} {
		if !vars[name] {
			t.Errorf("no query variable %s with label_values(..., %s) on ${datasource}", name, name)
		}
	}
	for _, p := range d.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			sels := podnetworkSelector.FindAllString(target.Expr, -1)
			if len(sels) == 0 {
				t.Errorf("panel %q: %s uses no operator metric", p.Title, target.Expr)
			}
			for _, s := range sels {
				for _, m := range []string{`cluster=~"$cluster"`, `namespace=~"$namespace"`, `job=~"$job"`} {
					if !strings.Contains(s, m) {
						t.Errorf("panel %q: %s lacks %s", p.Title, s, m)
					}
				}
			}
		}
	}
}
