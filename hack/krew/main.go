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

// Command krew packs the kubectl plugin's release archives and renders its
// krew plugin manifest: for every platform given as OS/ARCH=BINARY it
// writes kubectl-podnetwork_vVERSION_OS_ARCH.tar.gz (the binary and the
// LICENSE, reproducibly: fixed owners, modes and SOURCE_DATE_EPOCH times),
// then kubectl-podnetwork_vVERSION_SHA256SUMS and podnetwork.yaml, the
// template hack/krew/podnetwork.yaml with each archive's URI (-base-url and
// its name) and sha256. `make release` runs it.
//
//	go run ./hack/krew -version 1.2.3 -base-url URL -license LICENSE -out DIR linux/amd64=bin/linux-amd64/kubectl-podnetwork ...
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
)

// Bin is the plugin's binary, as kubectl finds it on PATH.
const Bin = "kubectl-podnetwork"

// Options are the command line.
type Options struct {
	// Version is the release, x.y.z (krew's is vx.y.z).
	Version string
	// BaseURL is where the archives are downloaded from; an archive's URI
	// is BaseURL/NAME.
	BaseURL string
	// Homepage is the manifest's homepage; empty leaves it out.
	Homepage string
	// Template is the manifest template, License the LICENSE file.
	Template, License string
	// Out is the directory written.
	Out string
	// Binaries are the plugin's binaries by platform, "os/arch".
	Binaries map[string]string
	// ModTime is the time of every file of the archives.
	ModTime time.Time
}

// Platform is one archive in the manifest.
type Platform struct {
	OS, Arch, URI, SHA256 string
}

// Archive names the archive of a platform.
func Archive(version, goos, goarch string) string {
	return fmt.Sprintf("%s_v%s_%s_%s.tar.gz", Bin, strings.TrimPrefix(version, "v"), goos, goarch)
}

// Checksums names the checksums file.
func Checksums(version string) string {
	return fmt.Sprintf("%s_v%s_SHA256SUMS", Bin, strings.TrimPrefix(version, "v"))
}

// Manifest names the rendered manifest.
const Manifest = "podnetwork.yaml"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "krew:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("krew", flag.ContinueOnError)
	o := Options{Binaries: map[string]string{}}
	fs.StringVar(&o.Version, "version", "", "the release, x.y.z")
	fs.StringVar(&o.BaseURL, "base-url", "", "where the archives are downloaded from")
	fs.StringVar(&o.Homepage, "homepage", "", "the plugin's homepage (optional)")
	fs.StringVar(&o.Template, "template", filepath.Join("hack", "krew", Manifest), "the manifest template")
	fs.StringVar(&o.License, "license", "LICENSE", "the LICENSE file packed with the binary")
	fs.StringVar(&o.Out, "out", "", "the directory to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, a := range fs.Args() {
		platform, bin, ok := strings.Cut(a, "=")
		if !ok || strings.Count(platform, "/") != 1 {
			return fmt.Errorf("%q: want OS/ARCH=BINARY", a)
		}
		o.Binaries[platform] = bin
	}
	o.ModTime = time.Unix(0, 0).UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", s, err)
		}
		o.ModTime = time.Unix(sec, 0).UTC()
	}
	return Release(o)
}

// Release writes the archives, the checksums file and the manifest into
// o.Out; the manifest lists the platforms in os/arch order.
func Release(o Options) error {
	switch {
	case o.Version == "" || o.BaseURL == "" || o.Out == "":
		return errors.New("-version, -base-url and -out are required")
	case len(o.Binaries) == 0:
		return errors.New("no OS/ARCH=BINARY given")
	}
	tmpl, err := template.New(filepath.Base(o.Template)).Option("missingkey=error").ParseFiles(o.Template)
	if err != nil {
		return err
	}
	license, err := os.ReadFile(o.License)
	if err != nil {
		return fmt.Errorf("the LICENSE to pack: %w", err)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	platforms := make([]string, 0, len(o.Binaries))
	for p := range o.Binaries {
		platforms = append(platforms, p)
	}
	slices.Sort(platforms)
	var out []Platform
	var sums strings.Builder
	for _, p := range platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		bin, err := os.ReadFile(o.Binaries[p])
		if err != nil {
			return fmt.Errorf("the binary of %s: %w", p, err)
		}
		name := Archive(o.Version, goos, goarch)
		data, err := pack(o.ModTime, []file{{Bin, bin, 0o755}, {"LICENSE", license, 0o644}})
		if err != nil {
			return fmt.Errorf("packing %s: %w", name, err)
		}
		path := filepath.Join(o.Out, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		hexSum := hex.EncodeToString(sum[:])
		fmt.Fprintf(&sums, "%s  %s\n", hexSum, name)
		out = append(out, Platform{OS: goos, Arch: goarch, URI: strings.TrimSuffix(o.BaseURL, "/") + "/" + name, SHA256: hexSum})
	}
	if err := os.WriteFile(filepath.Join(o.Out, Checksums(o.Version)), []byte(sums.String()), 0o644); err != nil {
		return err
	}
	var b bytes.Buffer
	data := map[string]any{"Version": "v" + strings.TrimPrefix(o.Version, "v"), "Homepage": o.Homepage, "Bin": Bin, "Platforms": out}
	if err := tmpl.Execute(&b, data); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.Out, Manifest), b.Bytes(), 0o644)
}

type file struct {
	name string
	data []byte
	mode int64
}

// pack is a tar.gz of files at its root, the same bytes for the same
// input.
func pack(mtime time.Time, files []file) ([]byte, error) {
	var b bytes.Buffer
	gz, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	gz.ModTime = mtime
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX, Uname: "root", Gname: "root"}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := io.Copy(tw, bytes.NewReader(f.data)); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
