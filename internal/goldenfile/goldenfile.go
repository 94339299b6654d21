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

// Package goldenfile compares test output with the files under testdata/ that
// pin it, and rewrites them when a test runs with -update: the one golden
// helper of every package whose output is pinned (flags, help, rendered
// status, rewritten ConfigMaps).
package goldenfile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// T is what Compare needs of a test: *testing.T, and ginkgo's GinkgoT().
type T interface {
	Helper()
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// Compare fails t unless got equals the file at path (relative to the test's
// package, e.g. testdata/help.golden); with -update it writes got there.
func Compare(t T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("writing %s: %v", path, err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("writing %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (run the test with -update to accept):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
