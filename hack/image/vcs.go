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
	"bufio"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const modulePath = "podnetwork.io/operator"

// findRoot walks up from the working directory to the operator's module,
// so the tool works from the repository root and from hack/image alike.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the repository root: %w", err)
	}
	for {
		if moduleOf(filepath.Join(dir, "go.mod")) == modulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of module %s above the working directory; pass -root", modulePath)
		}
		dir = parent
	}
}

// moduleOf returns the module path declared in a go.mod, or "".
func moduleOf(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close() //nolint:errcheck // opened read-only: a failed close loses nothing
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

func git(root string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// gitRevision is HEAD's commit, with -dirty when a tracked file differs
// from it, so an image built from uncommitted changes does not claim a
// commit it was not built from. "unknown" outside a git checkout.
func gitRevision(root string) string {
	rev, err := git(root, "rev-parse", "HEAD")
	if err != nil || rev == "" {
		return "unknown"
	}
	if status, err := git(root, "status", "--porcelain", "--untracked-files=no"); err == nil && status != "" {
		rev += "-dirty"
	}
	return rev
}

// gitSource is the origin remote's URL without credentials, else the
// module path.
func gitSource(root string) string {
	remote, err := git(root, "remote", "get-url", "origin")
	if err != nil || remote == "" {
		return modulePath
	}
	if u, err := url.Parse(remote); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return remote
}

// sourceDateEpoch returns the time every timestamp in the image carries:
// the given Unix time (SOURCE_DATE_EPOCH, reproducible-builds.org), else
// HEAD's commit time, else the Unix epoch. Never the build time, which
// would change the digest on every build.
func sourceDateEpoch(root, given string) (time.Time, error) {
	if given == "" {
		given, _ = git(root, "log", "-1", "--format=%ct")
	}
	if given == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	sec, err := strconv.ParseInt(given, 10, 64)
	if err != nil || sec < 0 {
		return time.Time{}, fmt.Errorf("source date epoch %q: want non-negative Unix seconds", given)
	}
	return time.Unix(sec, 0).UTC(), nil
}
