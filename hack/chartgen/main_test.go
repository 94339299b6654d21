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
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/adapterstest"
	"podnetwork.io/operator/internal/adapters/registry"
)

const (
	configDir = "../../config"
	chartDir  = "../../charts/podnetwork-operator"
)

// copyTree copies the directory from into to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// generate runs chartgen with descs on copies of config/ and the chart and
// returns the copies' directories.
func generate(t *testing.T, descs []adapters.Descriptor) (config, chart string, err error) {
	t.Helper()
	tmp := t.TempDir()
	config, chart = filepath.Join(tmp, "config"), filepath.Join(tmp, "chart")
	copyTree(t, configDir, config)
	copyTree(t, chartDir, chart)
	return config, chart, run(config, chart, descs)
}

// TestGeneratedFilesAreCurrent is `make verify-generated` for chartgen's
// part, in the unit loop: the adapters' ClusterRole in config/ (generated
// from the registry, no longer by controller-gen) and the chart's copies
// of the CRDs and roles are what chartgen writes.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	config, chart, err := generate(t, registry.All())
	if err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join("rbac", "adapters", "role.yaml")}
	for _, f := range files {
		same(t, filepath.Join(configDir, f), filepath.Join(config, f))
	}
	generated, err := filepath.Glob(filepath.Join(chart, "crds", "*.yaml"))
	if err != nil || len(generated) == 0 {
		t.Fatalf("no CRD generated: %v", err)
	}
	generated = append(generated, filepath.Join(chart, "templates", "rbac", "clusterrole.yaml"), filepath.Join(chart, "templates", "rbac", "adapters-clusterrole.yaml"),
		filepath.Join(chart, "templates", "rbac", "audit-clusterrole.yaml"))
	for _, g := range generated {
		rel, _ := filepath.Rel(chart, g)
		same(t, filepath.Join(chartDir, rel), g)
	}
}

func same(t *testing.T, committed, generated string) {
	t.Helper()
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s is stale (run make manifests):\n--- committed\n%s\n--- generated\n%s", committed, want, got)
	}
}

// TestAdaptersFromRegistry shows that the adapters' RBAC and the chart's
// adapter parts follow the registry: with a third descriptor, chartgen
// refuses the chart until every hand-written place lists it, and its rule
// and values key reach the generated role and guard.
func TestAdaptersFromRegistry(t *testing.T) {
	descs := append(registry.All(), adapterstest.FakeAdapter())
	_, _, err := generate(t, descs)
	if err == nil {
		t.Fatal("chartgen accepted a chart that lacks the third adapter")
	}
	for _, place := range []string{
		"values.yaml: adapters.exampleCNI is missing",
		"values.schema.json: adapters.properties.exampleCNI",
		`values.schema.json: definitions.builtInConsumerName.enum is ["node-ipam" "kube-proxy" "flannel"], want ["node-ipam" "kube-proxy" "flannel" "example-cni"]`,
		`templates/_helpers.tpl: adapter example-cni needs "- --enable-example-cni-adapter={{ .Values.adapters.exampleCNI.enabled }}`,
		`templates/_helpers.tpl: adapter example-cni needs "- --example-cni-daemonset={{ .Values.adapters.exampleCNI.daemonSet }}`,
		"templates/consumers.yaml: adapter example-cni needs",
		"templates/rbac/adapters-rolebindings.yaml: adapter example-cni needs",
		"templates/rbac/audit-rbac.yaml: adapter example-cni needs",
	} {
		if !strings.Contains(err.Error(), place) {
			t.Errorf("the refusal does not say %q:\n%v", place, err)
		}
	}

	role := filepath.Join(t.TempDir(), "role.yaml")
	if err := writeAdapterRole(role, adapterRoleName, descs); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(role)
	if err != nil {
		t.Fatal(err)
	}
	// Merged with the pods' rule, whose verbs are the same, as
	// controller-gen merges them.
	if want := "- apiGroups:\n  - \"\"\n  resources:\n  - pods\n  - secrets\n  verbs:\n  - get\n  - list\n  - watch\n"; !strings.Contains(string(data), want) {
		t.Errorf("the third adapter's rule is not in the role:\n%s", data)
	}
	if got, want := anyAdapterEnabled(descs), "{{- if or .Values.adapters.kubeProxy.enabled .Values.adapters.flannel.enabled .Values.adapters.exampleCNI.enabled }}\n"; got != want {
		t.Errorf("guard %q, want %q", got, want)
	}
}

// TestChartExtraAdapter: a values entry no descriptor has is refused too,
// and so is its name among the plugin names the schema refuses.
func TestChartExtraAdapter(t *testing.T) {
	all := registry.All()
	problems, err := checkChart(chartDir, all[:1])
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "adapters."+all[1].ValuesKey+" is no adapter") ||
		!strings.Contains(problems[1], "definitions.builtInConsumerName.enum is") {
		t.Errorf("problems %q", problems)
	}
}

// TestSchemaRefusesBuiltInConsumerNames: the schema must apply the list of
// built-in consumer names to plugin names, not only define it.
func TestSchemaRefusesBuiltInConsumerNames(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	unused := strings.Replace(string(schema), `"not": {"$ref": "`+builtInConsumerRef+`"}`, `"not": {}`, 1)
	if unused == string(schema) {
		t.Fatal("values.schema.json does not refuse the built-in consumer names as plugin names")
	}
	problems, err := checkSchema(unused, registry.All())
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "plugins.items.properties.name needs") {
		t.Errorf("problems %q", problems)
	}
}
