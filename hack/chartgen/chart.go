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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/nodeipam"
)

// checkChart returns what the chart's hand-written templates and values
// lack, or hold in excess, for the adapters descs: each adapter's entry in
// values.yaml with the descriptor's defaults, its schema entry and its name
// among the plugin names the schema refuses, its four
// flags among the operator's args, its PodNetworkConsumer, its
// namespaces among the adapters' RoleBindings and its ConfigMap among
// those the audit may read. chartgen refuses to run
// while any is missing, so the registry stays the one list of adapters.
func checkChart(chartDir string, descs []adapters.Descriptor) ([]string, error) {
	read := func(rel string) (string, error) {
		b, err := os.ReadFile(filepath.Join(chartDir, rel))
		return string(b), err
	}
	var problems []string
	values, err := read("values.yaml")
	if err != nil {
		return nil, err
	}
	valueProblems, err := checkValues(values, descs)
	if err != nil {
		return nil, err
	}
	problems = append(problems, valueProblems...)
	schema, err := read("values.schema.json")
	if err != nil {
		return nil, err
	}
	schemaProblems, err := checkSchema(schema, descs)
	if err != nil {
		return nil, err
	}
	problems = append(problems, schemaProblems...)
	for _, t := range []struct {
		file string
		want func(d *adapters.Descriptor) []string
	}{
		{"templates/_helpers.tpl", func(d *adapters.Descriptor) []string {
			v := ".Values.adapters." + d.ValuesKey
			return []string{
				"- --" + d.EnableFlag() + "={{ " + v + ".enabled }}\n",
				"- --" + d.ConfigMapFlag() + "={{ " + v + ".configMap }}\n",
				"- --" + d.ConfigMapKeyFlag() + "={{ " + v + ".configMapKey }}\n",
				"- --" + d.DaemonSetFlag() + "={{ " + v + ".daemonSet }}\n",
			}
		}},
		{"templates/consumers.yaml", func(d *adapters.Descriptor) []string {
			return []string{"{{- if .Values.adapters." + d.ValuesKey + ".enabled }}\n---\napiVersion: podnetwork.io/v1alpha1\nkind: PodNetworkConsumer\nmetadata:\n  name: " + d.Name + "\n"}
		}},
		{"templates/rbac/adapters-rolebindings.yaml", func(d *adapters.Descriptor) []string {
			return []string{`"` + d.ValuesKey + `" .Values.adapters.` + d.ValuesKey + " "}
		}},
		{"templates/rbac/audit-rbac.yaml", func(d *adapters.Descriptor) []string {
			return []string{`"` + d.ValuesKey + `" .Values.adapters.` + d.ValuesKey + " "}
		}},
	} {
		text, err := read(t.file)
		if err != nil {
			return nil, err
		}
		for i := range descs {
			for _, want := range t.want(&descs[i]) {
				if !strings.Contains(text, want) {
					problems = append(problems, fmt.Sprintf("%s: adapter %s needs %q", t.file, descs[i].Name, want))
				}
			}
		}
	}
	return problems, nil
}

// checkValues compares the adapter entries of values.yaml (the entries of
// adapters: that have an enabled field) with descs.
func checkValues(text string, descs []adapters.Descriptor) ([]string, error) {
	var values struct {
		Adapters map[string]json.RawMessage `json:"adapters"`
	}
	if err := yaml.Unmarshal([]byte(text), &values); err != nil {
		return nil, fmt.Errorf("reading values.yaml: %w", err)
	}
	type entry struct {
		Enabled      *bool  `json:"enabled"`
		ConfigMap    string `json:"configMap"`
		ConfigMapKey string `json:"configMapKey"`
		DaemonSet    string `json:"daemonSet"`
	}
	entries := map[string]entry{}
	for key, raw := range values.Adapters {
		var e entry
		if json.Unmarshal(raw, &e) == nil && e.Enabled != nil && e.ConfigMap != "" {
			entries[key] = e
		}
	}
	var problems []string
	for _, d := range descs {
		want := entry{Enabled: new(bool), ConfigMap: d.DefaultConfigMap.NamespacedName.String(),
			ConfigMapKey: d.DefaultConfigMap.Key, DaemonSet: d.DefaultDaemonSet.String()}
		got, ok := entries[d.ValuesKey]
		delete(entries, d.ValuesKey)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("values.yaml: adapters.%s is missing (enabled: false, configMap: %s, configMapKey: %s, daemonSet: %s)",
				d.ValuesKey, want.ConfigMap, want.ConfigMapKey, want.DaemonSet))
		case *got.Enabled || got.ConfigMap != want.ConfigMap || got.ConfigMapKey != want.ConfigMapKey || got.DaemonSet != want.DaemonSet:
			problems = append(problems, fmt.Sprintf("values.yaml: adapters.%s is %+v, want the operator's defaults (enabled: false, configMap: %s, configMapKey: %s, daemonSet: %s)",
				d.ValuesKey, got, want.ConfigMap, want.ConfigMapKey, want.DaemonSet))
		}
	}
	for _, key := range sortedKeys(entries) {
		problems = append(problems, fmt.Sprintf("values.yaml: adapters.%s is no adapter of internal/adapters/registry", key))
	}
	return problems, nil
}

// builtInConsumerRef is the schema definition listing the names a plugin
// must not take.
const builtInConsumerRef = "#/definitions/builtInConsumerName"

// checkSchema checks that values.schema.json types each adapter's entry,
// and that it refuses exactly the built-in consumers' names (NodeIPAM's and
// each adapter's) as plugin names: a plugin named like one would get write
// access to the operator's own acknowledgements.
func checkSchema(text string, descs []adapters.Descriptor) ([]string, error) {
	var schema struct {
		Properties struct {
			Adapters struct {
				Properties map[string]struct {
					Ref string `json:"$ref"`
				} `json:"properties"`
			} `json:"adapters"`
			Plugins struct {
				Items struct {
					Properties struct {
						Name struct {
							Not struct {
								Ref string `json:"$ref"`
							} `json:"not"`
						} `json:"name"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"plugins"`
		} `json:"properties"`
		Definitions struct {
			BuiltInConsumerName struct {
				Enum []string `json:"enum"`
			} `json:"builtInConsumerName"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal([]byte(text), &schema); err != nil {
		return nil, fmt.Errorf("reading values.schema.json: %w", err)
	}
	var problems []string
	for _, d := range descs {
		if schema.Properties.Adapters.Properties[d.ValuesKey].Ref != "#/definitions/adapter" {
			problems = append(problems, fmt.Sprintf(`values.schema.json: adapters.properties.%s needs {"$ref": "#/definitions/adapter"}`, d.ValuesKey))
		}
	}
	if schema.Properties.Plugins.Items.Properties.Name.Not.Ref != builtInConsumerRef {
		problems = append(problems, fmt.Sprintf(`values.schema.json: plugins.items.properties.name needs "not": {"$ref": %q}`, builtInConsumerRef))
	}
	want := []string{nodeipam.ConsumerName}
	for _, d := range descs {
		want = append(want, d.Name)
	}
	got := schema.Definitions.BuiltInConsumerName.Enum
	if !slices.Equal(got, want) {
		problems = append(problems, fmt.Sprintf("values.schema.json: definitions.builtInConsumerName.enum is %q, want %q (NodeIPAM's consumer, then the registry's adapters)", got, want))
	}
	return problems, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
