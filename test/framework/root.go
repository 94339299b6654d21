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

package framework

import (
	"os"
	"testing"
)

// RequireRootEnv, when set to a non-empty value, turns RequireRoot's skip
// into a failure. `make test` sets it, so the one command that promises
// every test cannot pass by skipping a suite; a contributor's plain
// `go test ./...` as a normal user skips with the reason instead.
const RequireRootEnv = "PODNETWORK_REQUIRE_ROOT"

// RequireRoot skips t, saying why, unless the process runs as root: suites
// that create network namespaces or run consumers as root call it first.
func RequireRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv(RequireRootEnv) != "" {
		t.Fatalf("%s and needs root (%s is set)", why, RequireRootEnv)
	}
	t.Skipf("skipped: %s and needs root; run it as root (make test does)", why)
}
