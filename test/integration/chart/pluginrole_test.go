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
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"podnetwork.io/operator/test/framework/chart"
)

// TestPluginRoleIsTheDocumentedOne: the ClusterRole and ClusterRoleBinding
// the chart renders for a plugin are those of
// docs/examples/plugin-clusterrole.yaml, rule for rule, so the role the
// protocol documents (and test/sampleplugin runs under) is the one
// installed.
func TestPluginRoleIsTheDocumentedOne(t *testing.T) {
	root := repoRoot(t)
	tool(t, root, "helm")
	example, err := os.ReadFile(filepath.Join(root, "docs", "examples", "plugin-clusterrole.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	documented, err := splitYAML(example)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := chart.Render(root, "--set", "plugins[0].name=my-plugin",
		"--set", "plugins[0].serviceAccount.name=my-plugin", "--set", "plugins[0].serviceAccount.namespace=my-plugin")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"ClusterRole", "ClusterRoleBinding"} {
		want := named(documented, kind, "podnetwork-consumer-my-plugin")
		got := named(objs, kind, "podnetwork-consumer-my-plugin")
		switch {
		case want == nil:
			t.Errorf("the example has no %s podnetwork-consumer-my-plugin", kind)
		case got == nil:
			t.Errorf("the chart renders no %s podnetwork-consumer-my-plugin for plugin my-plugin", kind)
		default:
			for _, field := range []string{"rules", "roleRef", "subjects"} {
				if !reflect.DeepEqual(got[field], want[field]) {
					t.Errorf("%s %s: the chart renders\n%v\nthe example says\n%v", kind, field, got[field], want[field])
				}
			}
		}
	}
}

// named returns the object of kind and name, or nil.
func named(objs []map[string]any, kind, name string) map[string]any {
	for _, o := range objs {
		meta, _ := o["metadata"].(map[string]any)
		if o["kind"] == kind && meta["name"] == name {
			return o
		}
	}
	return nil
}

// splitYAML decodes every document of a multi-document YAML file, as
// chart.Render decodes the rendered chart.
func splitYAML(data []byte) ([]map[string]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []map[string]any
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if obj != nil {
			out = append(out, obj)
		}
	}
}
