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
	"os/exec"
	"strings"
	"testing"
)

const controllersPkg = "podnetwork.io/operator/controllers"

// TestNoControllersUnderInternalOrCmd keeps the pure cores and the kubectl
// plugin free of the manager's wiring: it lists, with the go command, the
// dependencies of every package under internal/ and cmd/, their tests
// included, and fails on any package of controllers/ among them (move what
// they share into internal/ or api/).
func TestNoControllersUnderInternalOrCmd(t *testing.T) {
	cmd := exec.Command("go", "list", "-test", "-f", `{{.ImportPath}}{{"\t"}}{{join .Deps " "}}`, "./internal/...", "./cmd/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		checked++
		for _, dep := range strings.Fields(deps) {
			if dep == controllersPkg || strings.HasPrefix(dep, controllersPkg+"/") {
				t.Errorf("%s depends on %s: internal/ and cmd/ must not import controllers/", pkg, dep)
			}
		}
	}
	if checked == 0 {
		t.Fatal("go list listed no package")
	}
}
