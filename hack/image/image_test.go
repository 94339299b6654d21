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
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// TestImageConfig reads the built image as a runtime would and checks what
// the chart relies on: the non-root user its securityContext names, the
// entrypoint, nothing but the binary (no shell), the labels, and one image
// per platform.
func TestImageConfig(t *testing.T) {
	idx, err := layoutIndex(filepath.Join(built.OutDir, "oci-layout"))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := idx.Digest(); d != builtIndex {
		t.Fatalf("layout holds index %s, build returned %s", d, builtIndex)
	}
	if mt, _ := idx.MediaType(); mt != types.OCIImageIndex {
		t.Errorf("index media type %s, want %s", mt, types.OCIImageIndex)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range labels(built) {
		if got := m.Annotations[k]; got != want {
			t.Errorf("index annotation %s = %q, want %q", k, got, want)
		}
	}
	var platforms []string
	for _, d := range m.Manifests {
		platforms = append(platforms, d.Platform.String())
	}
	want := []string{"linux/" + runtime.GOARCH}
	if os.Getenv("IMAGE_TEST_ALL_PLATFORMS") != "" {
		want = []string{"linux/amd64", "linux/arm64"}
	}
	if strings.Join(platforms, ",") != strings.Join(want, ",") {
		t.Fatalf("index platforms %v, want %v", platforms, want)
	}

	for _, p := range built.Platforms {
		t.Run(p.String(), func(t *testing.T) {
			img, err := platformOf(idx, p)
			if err != nil {
				t.Fatal(err)
			}
			checkImage(t, img, p)
		})
	}
}

func checkImage(t *testing.T, img v1.Image, p v1.Platform) {
	if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s, want %s", mt, types.OCIManifestSchema1)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != p.OS || cf.Architecture != p.Architecture {
		t.Errorf("config platform %s/%s, want %s", cf.OS, cf.Architecture, p)
	}
	if cf.Config.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532 (the chart's runAsUser/runAsGroup)", cf.Config.User)
	}
	if strings.Join(cf.Config.Entrypoint, " ") != "/manager" || len(cf.Config.Cmd) != 0 {
		t.Errorf("entrypoint %q cmd %q, want [/manager] and no cmd", cf.Config.Entrypoint, cf.Config.Cmd)
	}
	for k, want := range labels(built) {
		if got := cf.Config.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	if !cf.Created.Time.Equal(built.Epoch) {
		t.Errorf("created %s, want the source date epoch %s", cf.Created.Time, built.Epoch)
	}

	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, l := range layers {
		if mt, _ := l.MediaType(); mt != types.OCILayer {
			t.Errorf("layer media type %s, want %s", mt, types.OCILayer)
		}
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, hdr.Name)
			if hdr.Uid != 0 || hdr.Gid != 0 || hdr.Mode != 0o755 || !hdr.ModTime.Equal(built.Epoch) {
				t.Errorf("%s: uid %d gid %d mode %o mtime %s, want 0 0 755 %s", hdr.Name, hdr.Uid, hdr.Gid, hdr.Mode, hdr.ModTime, built.Epoch)
			}
		}
		rc.Close()
	}
	// Only the binary: in particular no /bin/sh to exec into.
	if strings.Join(files, ",") != "manager" {
		t.Errorf("layer files %v, want only manager (no shell, nothing else)", files)
	}
}

// TestExtract runs the command the e2e suite uses to get the operator out
// of the image, and checks the file is the host's executable.
func TestExtract(t *testing.T) {
	out := filepath.Join(t.TempDir(), "manager")
	err := dispatch([]string{"extract", "-layout", filepath.Join(built.OutDir, "oci-layout"), "-o", out})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o100 == 0 || st.Size() < 1<<20 {
		t.Fatalf("extracted %s: mode %s size %d, want an executable binary", out, st.Mode(), st.Size())
	}
	runManagerHelp(t, out)
}

// runManagerHelp runs `manager --help`, which exits 0 only if the binary
// starts on this machine.
func runManagerHelp(t *testing.T, bin string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Logf("not running the linux binary on %s", runtime.GOOS)
		return
	}
	out, err := exec.Command(bin, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --help: %v\n%s", bin, err, out)
	}
	if !strings.Contains(string(out), "Runs the podnetwork-operator manager") {
		t.Fatalf("%s --help printed no usage:\n%s", bin, out)
	}
}
