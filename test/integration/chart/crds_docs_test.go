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
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestInstallDocNamesEveryCRD checks that docs/install.md's table of what the
// chart installs and its `kubectl delete crd` uninstall command name every
// CRD in the chart's crds/ directory (issue #32: autoscaledrangesets was
// left out, so an uninstall left that CRD behind).
func TestInstallDocNamesEveryCRD(t *testing.T) {
	files, err := filepath.Glob("../../../charts/podnetwork-operator/crds/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in the chart: %v", err)
	}
	doc, err := os.ReadFile("../../../docs/install.md")
	if err != nil {
		t.Fatal(err)
	}
	var table, deletes []string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| CRDs ") {
			table = append(table, line)
		}
		if strings.Contains(line, "kubectl delete crd ") {
			deletes = append(deletes, line[strings.Index(line, "kubectl delete crd "):])
		}
	}
	if len(table) != 1 || len(deletes) == 0 {
		t.Fatalf("install.md: want one `| CRDs ` table row and a `kubectl delete crd` command, found %d and %d", len(table), len(deletes))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil || crd.Metadata.Name == "" {
			t.Fatalf("%s: no CRD name (%v)", f, err)
		}
		name := regexp.QuoteMeta(crd.Metadata.Name)
		if !regexp.MustCompile("`" + name + "`").MatchString(table[0]) {
			t.Errorf("install.md's table of what the chart installs does not name CRD %s", crd.Metadata.Name)
		}
		for _, d := range deletes {
			if !regexp.MustCompile(`\s` + name + `(\s|$|` + "`" + `)`).MatchString(d) {
				t.Errorf("install.md's %q does not delete CRD %s", d, crd.Metadata.Name)
			}
		}
	}
}
