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

package layering

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const controllers = "podnetwork.io/operator/controllers"

// TestNoControllersUnderInternalOrCmd lists, with the go command, the
// dependencies of every package under internal/ and cmd/, their tests
// included, and fails on any package of controllers/ among them. It needs
// only the go command and the module cache the test was built with.
func TestNoControllersUnderInternalOrCmd(t *testing.T) {
	root := moduleRoot(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	cmd := exec.Command(goCmd, "list", "-test", "-f", `{{.ImportPath}}{{"\t"}}{{join .Deps " "}}`, "./internal/...", "./cmd/...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var checked int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		checked++
		for _, dep := range strings.Fields(deps) {
			if dep == controllers || strings.HasPrefix(dep, controllers+"/") {
				t.Errorf("%s depends on %s: internal/ and cmd/ must not import controllers/ (move what they share into internal/)", pkg, dep)
			}
		}
	}
	if checked == 0 {
		t.Fatal("go list listed no package")
	}
}

// moduleRoot walks up from the test's directory to the go.mod of the
// operator's module.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		switch {
		case err == nil && bytes.Contains(append([]byte("\n"), data...), []byte("\nmodule podnetwork.io/operator\n")):
			return dir
		case err != nil && !errors.Is(err, os.ErrNotExist):
			t.Fatal(err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of podnetwork.io/operator above the test")
		}
		dir = parent
	}
}
