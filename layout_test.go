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
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// layoutDoc is the one table of the repository's layout.
const layoutDoc = "docs/architecture.md"

// TestLayoutTableCoversEveryPackage keeps docs/architecture.md's layout table
// and the tree in step: every package of every Go module of the repository
// has a row (a row "x/..." covers x and everything below it, a row naming a
// .go file covers that file's package), and every row names a path that
// exists.
func TestLayoutTableCoversEveryPackage(t *testing.T) {
	rows := layoutRows(t)
	for _, p := range rows {
		if _, err := os.Stat(strings.TrimSuffix(strings.TrimSuffix(p, "/..."), "/")); err != nil {
			t.Errorf("%s names %q, which does not exist", layoutDoc, p)
		}
	}
	for _, pkg := range packageDirs(t) {
		if !covered(pkg, rows) {
			t.Errorf("package directory %q has no row in %s's layout table", pkg, layoutDoc)
		}
	}
}

// covered reports whether a row of the table describes the package in dir.
func covered(dir string, rows []string) bool {
	for _, r := range rows {
		switch {
		case strings.HasSuffix(r, "/..."):
			base := strings.TrimSuffix(r, "/...")
			if dir == base || strings.HasPrefix(dir, base+"/") {
				return true
			}
		case strings.HasSuffix(r, ".go"):
			if filepath.Dir(r) == dir {
				return true
			}
		case strings.TrimSuffix(r, "/") == dir:
			return true
		}
	}
	return false
}

var (
	tableRow   = regexp.MustCompile("^\\| (`[^|]*) \\|")
	backquoted = regexp.MustCompile("`([^`]+)`")
)

// layoutRows returns the paths in the first column of the table under the
// "## Layout" heading.
func layoutRows(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(layoutDoc)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	in := false
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "## ") {
			in = line == "## Layout"
			continue
		}
		m := tableRow.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		for _, q := range backquoted.FindAllStringSubmatch(m[1], -1) {
			rows = append(rows, q[1])
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s has no layout table under \"## Layout\"", layoutDoc)
	}
	return rows
}

// packageDirs lists, relative to the repository root, the directory of every
// package: the root module's from `go list` (with the e2e tag, so its suite
// counts), the nested modules' (api, the sample plugin, test/bench, ...) by
// walking them, so listing them costs no module download.
func packageDirs(t *testing.T) []string {
	t.Helper()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-tags", "e2e", "-f", "{{.Dir}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, d := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		seen[filepath.ToSlash(rel)] = true
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".git", rel == "bin", rel == "hack/tools", d.Name() == "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && inNestedModule(root, filepath.Dir(path)) {
			seen[filepath.ToSlash(filepath.Dir(rel))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, 0, len(seen))
	for d := range seen {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs
}

// inNestedModule reports whether dir belongs to a module other than the
// root one: a go.mod in dir or in a parent below root.
func inNestedModule(root, dir string) bool {
	for ; dir != root && len(dir) > len(root); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return true
		}
	}
	return false
}

// maxTrackedFile is the largest file the repository tracks outside
// docs/performance/data, where benchmark results and profiles live.
const maxTrackedFile = 1 << 20

// TestRepositoryHoldsNoBinaries keeps build outputs out of git: no tracked
// file holds a NUL byte (the mark of a binary; gzipped profiles under
// docs/performance/data are the exception) or is over 1 MiB.
func TestRepositoryHoldsNoBinaries(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("skipped: not a git checkout (git ls-files: %v)", err)
	}
	for _, path := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if strings.HasPrefix(path, "docs/performance/data/") {
			continue
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > maxTrackedFile {
			t.Errorf("%s is %d bytes; keep files over 1 MiB out of git (benchmark data goes to docs/performance/data)", path, len(data))
		}
		if bytes.IndexByte(data, 0) >= 0 {
			t.Errorf("%s looks binary (it holds a NUL byte); build outputs belong in bin/, which git ignores", path)
		}
	}
}
