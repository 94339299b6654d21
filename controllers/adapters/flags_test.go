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

package adapters

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"

	"podnetwork.io/operator/internal/goldenfile"
)

// TestFlagsGolden pins the adapters' flags (names, defaults, usage), which
// come from the registry's descriptors.
func TestFlagsGolden(t *testing.T) {
	opts := DefaultOptions()
	fs := flag.NewFlagSet("podnetwork-operator", flag.ContinueOnError)
	opts.BindFlags(fs)
	var out bytes.Buffer
	fs.SetOutput(&out)
	fs.PrintDefaults()
	golden(t, "flags.golden", out.Bytes())
}

// golden compares got with testdata/name (goldenfile.Compare).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Compare(t, filepath.Join("testdata", name), got)
}
