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

// Package chart renders the Helm chart with bin/helm for tests, and reads
// what its monitoring objects (the PrometheusRule and the Grafana
// dashboard) ask of the operator's metrics.
package chart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Release and Namespace are what Render installs the chart as.
const (
	Release   = "podnetwork-operator"
	Namespace = "podnetwork-system"
)

// Dir is the chart's directory under the repository root.
func Dir(root string) string { return filepath.Join(root, "charts", "podnetwork-operator") }

// MonitoringValues is the values file that turns every monitoring object
// on (the rule unit tests expect its alert labels).
func MonitoringValues(root string) string {
	return filepath.Join(Dir(root), "ci", "monitoring-values.yaml")
}

// Render runs `helm template` with the given extra arguments and returns
// the rendered objects, each as a generic map.
func Render(root string, args ...string) ([]map[string]any, error) {
	cmd := exec.Command(filepath.Join(root, "bin", "helm"), append([]string{"template", Release, Dir(root), "--namespace", Namespace}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm template %v: %w: %s", args, err, stderr.String())
	}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	var objs []map[string]any
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("decoding the rendered chart: %w", err)
		}
		if obj != nil {
			objs = append(objs, obj)
		}
	}
}

// Find returns the rendered object of the given kind, or nil.
func Find(objs []map[string]any, kind string) map[string]any {
	for _, o := range objs {
		if o["kind"] == kind {
			return o
		}
	}
	return nil
}

// RuleFile is the PrometheusRule's spec as a Prometheus rule file.
func RuleFile(objs []map[string]any) ([]byte, error) {
	rule := Find(objs, "PrometheusRule")
	if rule == nil {
		return nil, errors.New("the chart rendered no PrometheusRule")
	}
	return yaml.Marshal(rule["spec"])
}

// Expressions returns every PromQL expression of the PrometheusRule's rules
// and of the dashboard's panels.
func Expressions(objs []map[string]any) ([]string, error) {
	var out []string
	rule := Find(objs, "PrometheusRule")
	if rule == nil {
		return nil, errors.New("the chart rendered no PrometheusRule")
	}
	var spec struct {
		Groups []struct {
			Rules []struct {
				Expr string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	b, err := yaml.Marshal(rule["spec"])
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(b, &spec); err != nil {
		return nil, fmt.Errorf("reading the PrometheusRule: %w", err)
	}
	for _, g := range spec.Groups {
		for _, r := range g.Rules {
			out = append(out, r.Expr)
		}
	}
	dashboards := 0
	for _, o := range objs {
		data, _ := o["data"].(map[string]any)
		for key, v := range data {
			if !strings.HasSuffix(key, ".json") {
				continue
			}
			var d struct {
				Panels []struct {
					Targets []struct {
						Expr string `json:"expr"`
					} `json:"targets"`
				} `json:"panels"`
			}
			if err := json.Unmarshal([]byte(v.(string)), &d); err != nil {
				return nil, fmt.Errorf("reading dashboard %s: %w", key, err)
			}
			dashboards++
			for _, p := range d.Panels {
				for _, t := range p.Targets {
					out = append(out, t.Expr)
				}
			}
		}
	}
	if dashboards == 0 {
		return nil, errors.New("the chart rendered no dashboard")
	}
	return out, nil
}

var metricName = regexp.MustCompile(`\bpodnetwork_[a-z0-9_]+`)

// MetricNames returns the operator metrics the expressions use, sorted,
// histogram series (_bucket, _sum, _count) named by their family.
func MetricNames(exprs []string) []string {
	var out []string
	for _, e := range exprs {
		for _, m := range metricName.FindAllString(e, -1) {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if strings.HasSuffix(m, "_seconds"+suffix) {
					m = strings.TrimSuffix(m, suffix)
				}
			}
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}
