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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func chartDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "charts", "podnetwork-operator"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestStampChart stamps a copy and expects exactly the stamped lines to
// change, the committed chart untouched.
func TestStampChart(t *testing.T) {
	src := chartDir(t)
	before, err := os.ReadFile(filepath.Join(src, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "podnetwork-operator")
	s := chartStamp{Version: "0.2.0", Repository: "registry.example/podnetwork-operator", Tag: "0.2.0", Digest: testDigest}
	if err := stampChart(src, dst, s); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(src, "values.yaml"))
	if err != nil || string(after) != string(before) {
		t.Fatalf("the committed values.yaml changed (%v)", err)
	}

	changed := diffLines(t, filepath.Join(src, "values.yaml"), filepath.Join(dst, "values.yaml"))
	want := []string{
		`  repository: "registry.example/podnetwork-operator"`,
		`  tag: "0.2.0"`,
		`  digest: "` + testDigest + `"`,
	}
	if strings.Join(changed, "\n") != strings.Join(want, "\n") {
		t.Errorf("values.yaml changed lines:\n%s\nwant:\n%s", strings.Join(changed, "\n"), strings.Join(want, "\n"))
	}
	changed = diffLines(t, filepath.Join(src, "Chart.yaml"), filepath.Join(dst, "Chart.yaml"))
	if strings.Join(changed, "\n") != "version: \"0.2.0\"\nappVersion: \"0.2.0\"" {
		t.Errorf("Chart.yaml changed lines: %q", changed)
	}
	if _, err := os.Stat(filepath.Join(dst, "templates", "deployment.yaml")); err != nil {
		t.Errorf("the copy lacks the templates: %v", err)
	}
}

func TestStampChartRefuses(t *testing.T) {
	for _, s := range []chartStamp{
		{Version: "dev", Repository: "r", Tag: "dev"},
		{Version: "v0.2.0", Repository: "r", Tag: "v0.2.0"},
		{Version: "0.2.0+build.1", Repository: "r", Tag: "0.2.0+build.1"},
		{Version: "0.2.0", Repository: "r", Tag: "0.2.0", Digest: "sha256:abc"},
	} {
		if err := stampChart(chartDir(t), filepath.Join(t.TempDir(), "c"), s); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

// diffLines returns the lines of b that differ from the same line of a;
// stamping never adds or removes lines.
func diffLines(t *testing.T, a, b string) []string {
	t.Helper()
	da, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	la, lb := strings.Split(string(da), "\n"), strings.Split(string(db), "\n")
	if len(la) != len(lb) {
		t.Fatalf("%s has %d lines, %s %d", b, len(lb), a, len(la))
	}
	var out []string
	for i := range la {
		if la[i] != lb[i] {
			out = append(out, lb[i])
		}
	}
	return out
}
