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
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// krewPlugin is the part of krew's Plugin (v1alpha2) the test holds the
// manifest to.
type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		Homepage         string `json:"homepage"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			SHA256 string `json:"sha256"`
			Files  []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
			Bin string `json:"bin"`
		} `json:"platforms"`
	} `json:"spec"`
}

var platforms = []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"}

// TestRelease packs the four archives, from stand-in binaries (and, unless
// -short, the plugin built for this machine), and validates the rendered
// manifest against them: krew's required fields, one platform per archive
// with its URI and sha256, the archive holding the binary and the LICENSE.
func TestRelease(t *testing.T) {
	dir := t.TempDir()
	license := filepath.Join(dir, "LICENSE")
	if err := os.WriteFile(license, []byte("Apache License\nVersion 2.0, January 2004\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	binaries := map[string]string{}
	content := map[string][]byte{}
	host := runtime.GOOS + "/" + runtime.GOARCH
	for _, p := range platforms {
		path := filepath.Join(dir, "bin", strings.ReplaceAll(p, "/", "-"), Bin)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if p == host && !testing.Short() {
			build := exec.Command("go", "build", "-trimpath", "-o", path, "./cmd/kubectl-podnetwork")
			build.Dir = filepath.Join("..", "..")
			build.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("building the plugin: %v\n%s", err, out)
			}
		} else if err := os.WriteFile(path, []byte("#!/bin/sh\necho "+p+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		binaries[p], content[p] = path, b
	}
	out := filepath.Join(dir, "release")
	o := Options{Version: "1.2.3", BaseURL: "https://downloads.example/podnetwork/v1.2.3/", Template: Manifest, License: license, Out: out,
		Binaries: binaries, ModTime: time.Unix(1700000000, 0)}
	if err := Release(o); err != nil {
		t.Fatal(err)
	}

	raw, err := os.ReadFile(filepath.Join(out, Manifest))
	if err != nil {
		t.Fatal(err)
	}
	var m krewPlugin
	if err := yaml.UnmarshalStrict(raw, &m); err != nil {
		t.Fatalf("the manifest is not krew's Plugin: %v\n%s", err, raw)
	}
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" || m.Metadata.Name != "podnetwork" ||
		m.Spec.Version != "v1.2.3" || m.Spec.ShortDescription == "" || m.Spec.Description == "" || m.Spec.Homepage != "" {
		t.Errorf("manifest header:\n%s", raw)
	}
	if len(m.Spec.Platforms) != len(platforms) {
		t.Fatalf("%d platforms, want %d:\n%s", len(m.Spec.Platforms), len(platforms), raw)
	}
	sums, err := os.ReadFile(filepath.Join(out, Checksums("1.2.3")))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range m.Spec.Platforms {
		goos, goarch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		if want := platforms[i]; goos+"/"+goarch != want || len(p.Selector.MatchLabels) != 2 {
			t.Errorf("platform %d: selector %v, want %s", i, p.Selector.MatchLabels, want)
			continue
		}
		name := Archive("1.2.3", goos, goarch)
		if p.URI != "https://downloads.example/podnetwork/v1.2.3/"+name {
			t.Errorf("%s: uri %s", name, p.URI)
		}
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if p.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: sha256 %s, the archive's is %x", name, p.SHA256, sum)
		}
		if !strings.Contains(string(sums), p.SHA256+"  "+name+"\n") {
			t.Errorf("%s is not in the checksums file:\n%s", name, sums)
		}
		if p.Bin != Bin || len(p.Files) != 2 || p.Files[0].From != Bin || p.Files[1].From != "LICENSE" || p.Files[0].To != "." || p.Files[1].To != "." {
			t.Errorf("%s: bin %q, files %+v", name, p.Bin, p.Files)
		}
		files := untar(t, data)
		if string(files[Bin].data) != string(content[goos+"/"+goarch]) || files[Bin].mode&0o111 == 0 || !strings.HasPrefix(string(files["LICENSE"].data), "Apache License") || len(files) != 2 {
			t.Errorf("%s holds %d files, %s of mode %o", name, len(files), Bin, files[Bin].mode)
		}
		if goos+"/"+goarch == host && !testing.Short() {
			// The archived plugin runs.
			path := filepath.Join(dir, "run-"+Bin)
			if err := os.WriteFile(path, files[Bin].data, 0o755); err != nil {
				t.Fatal(err)
			}
			got, err := exec.Command(path, "version", "-o", "jsonpath={.kind}").Output()
			if err != nil || string(got) != "Version" {
				t.Errorf("the archived plugin: %q, %v", got, err)
			}
		}
	}

	// The same input, the same bytes.
	first, _ := os.ReadFile(filepath.Join(out, Checksums("1.2.3")))
	if err := Release(o); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(out, Checksums("1.2.3")))
	if string(first) != string(again) {
		t.Errorf("two releases of the same binaries differ:\n%s\n%s", first, again)
	}
}

type entry struct {
	data []byte
	mode int64
}

func untar(t *testing.T, data []byte) map[string]entry {
	t.Helper()
	gz, err := gzip.NewReader(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out := map[string]entry{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = entry{b, h.Mode}
	}
}

func TestReleaseRefusesIncompleteInput(t *testing.T) {
	for _, o := range []Options{
		{BaseURL: "u", Out: t.TempDir(), Binaries: map[string]string{"linux/amd64": "x"}},
		{Version: "1.0.0", BaseURL: "u", Out: t.TempDir()},
		{Version: "1.0.0", BaseURL: "u", Out: t.TempDir(), Template: Manifest, License: "missing", Binaries: map[string]string{"linux/amd64": "x"}},
	} {
		if err := Release(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if err := run([]string{"-version", "1.0.0", "-base-url", "u", "-out", t.TempDir(), "linux-amd64"}); err == nil {
		t.Errorf("a platform without OS/ARCH=BINARY: no error")
	}
}
