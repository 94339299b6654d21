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
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReproducible builds the image again from the same sources and options
// and expects the same index digest and the same tarball bytes; a different
// source date epoch must change the digest, or timestamps are not what the
// digest depends on.
func TestReproducible(t *testing.T) {
	again := testBuildOptions(filepath.Join(t.TempDir(), "again"))
	digest, err := build(context.Background(), again)
	if err != nil {
		t.Fatal(err)
	}
	if digest != builtIndex {
		t.Fatalf("second build: index %s, first %s", digest, builtIndex)
	}
	first, err := sha256File(built.Tarball)
	if err != nil {
		t.Fatal(err)
	}
	second, err := sha256File(again.Tarball)
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Fatalf("tarballs differ: %s and %s", first, second)
	}
	t.Logf("index %s, tarball sha256 %s, twice", digest, first)

	later := testBuildOptions(filepath.Join(t.TempDir(), "later"))
	later.Epoch = later.Epoch.Add(time.Hour)
	later.Tarball = ""
	if digest, err = build(context.Background(), later); err != nil {
		t.Fatal(err)
	}
	if digest == builtIndex {
		t.Fatalf("a different source date epoch gave the same digest %s", digest)
	}
}

// TestTarball checks the OCI archive is what containerd's importer reads
// (kind load image-archive, ctr images import): an oci-layout file, an
// index.json naming the image, the blobs; sorted, with fixed times and
// owners.
func TestTarball(t *testing.T) {
	f, err := os.Open(built.Tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() //nolint:errcheck // opened read-only: a failed close loses nothing
	tr := tar.NewReader(f)
	var names []string
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !hdr.ModTime.Equal(built.Epoch) || hdr.Uid != 0 || hdr.Gid != 0 {
			t.Errorf("%s: mtime %s uid %d gid %d", hdr.Name, hdr.ModTime, hdr.Uid, hdr.Gid)
		}
		if n := len(names); n > 0 && names[n-1] >= hdr.Name {
			t.Errorf("entries out of order: %s after %s", hdr.Name, names[n-1])
		}
		names = append(names, hdr.Name)
	}
	for _, want := range []string{"oci-layout", "index.json", "blobs/sha256/" + builtIndex.Hex} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("tarball lacks %s: %v", want, names)
		}
	}

	index, err := os.ReadFile(filepath.Join(built.OutDir, "oci-layout", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"io.containerd.image.name": "` + containerdDefaultRegistry + `/library/podnetwork-operator:0.0.0-test"`,
		`"org.opencontainers.image.ref.name": "0.0.0-test"`,
	} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.json lacks %s:\n%s", want, index)
		}
	}
}
