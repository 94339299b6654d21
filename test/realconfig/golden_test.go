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

package realconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// program is an adapter's golden files and the real program that loads them.
type program struct {
	name     string // key prefix of refusedInputs
	version  string
	testdata string // relative to this module
	inputs   string // glob of golden inputs; outputs are *.golden
	// check loads the file with the real program and returns its refusal.
	// It also reports, through t, where the adapter's own parser disagrees
	// with the real program on a file both accept.
	check func(t *testing.T, path, text string) error
}

var programs = []program{
	{name: "kube-proxy", version: "v1.37.2", testdata: "../../internal/adapters/kubeproxy/testdata", inputs: "*.yaml", check: checkKubeProxy},
	{name: "flannel", version: "v0.28.10", testdata: "../../internal/adapters/flannel/testdata", inputs: "*.json", check: checkFlannel},
}

// TestGoldenFiles loads every golden input and output of both adapters with
// the real program. Golden outputs must always load; an input may be refused
// only when it is labelled (refusedLabel, refusedInputs) and then only with
// the recorded refusal.
func TestGoldenFiles(t *testing.T) {
	found := map[string]bool{}
	for _, p := range programs {
		inputs := glob(t, p.testdata, p.inputs)
		outputs := glob(t, p.testdata, "*.golden")
		for _, path := range append(inputs, outputs...) {
			found[p.name+"/"+filepath.Base(path)] = true
		}
		for _, path := range outputs {
			if labelledRefused(path) {
				t.Errorf("%s: only golden inputs may be labelled refused; an adapter must never write a file %s refuses", path, p.name)
			}
		}
		t.Run(p.name, func(t *testing.T) {
			for _, path := range append(inputs, outputs...) {
				key := p.name + "/" + filepath.Base(path)
				t.Run(filepath.Base(path), func(t *testing.T) {
					t.Parallel()
					text, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					assertLoad(t, p, key, p.check(t, path, string(text)))
				})
			}
		})
	}
	for key := range refusedInputs {
		if !found[key] {
			t.Errorf("refusedInputs lists %s, which is not a golden file (renamed or removed?)", key)
		}
	}
}

// assertLoad compares the real program's verdict on a file with its label.
func assertLoad(t *testing.T, p program, key string, err error) {
	t.Helper()
	r, listed := refusedInputs[key]
	switch labelled := labelledRefused(key); {
	case labelled != listed:
		t.Errorf("%s: the file name says refused=%v but refusedInputs says %v; label both or neither", key, labelled, listed)
	case !listed && err != nil:
		t.Errorf("%s %s refuses %s: %v", p.name, p.version, key, err)
	case listed && err == nil:
		t.Errorf("%s is labelled refused but %s %s accepts it; drop the label", key, p.name, p.version)
	case listed && !strings.Contains(err.Error(), r.want):
		t.Errorf("%s %s refuses %s with %q, want the recorded %q", p.name, p.version, key, err, r.want)
	case listed:
		t.Logf("refused as recorded: %v\nkept because: %s", err, r.why)
	}
}

func glob(t *testing.T, dir, pattern string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no %s in %s: has the adapter's testdata moved?", pattern, dir)
	}
	return paths
}
