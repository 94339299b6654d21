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
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Fixed parts of the image: the same layout as the Dockerfile's
// `FROM scratch`, `COPY manager /manager`, `USER 65532:65532`.
const (
	binaryPath = "/manager"
	imageUser  = "65532:65532"
	imageTitle = "podnetwork-operator"
)

// buildOptions says what to build and where to write it.
type buildOptions struct {
	Root      string        // repository root: the directory of main.go
	OutDir    string        // gets oci-layout/ and digest
	Tarball   string        // OCI archive to write; empty for none
	Ref       string        // image reference recorded in the layout and tarball
	Version   string        // org.opencontainers.image.version
	Revision  string        // org.opencontainers.image.revision
	Source    string        // org.opencontainers.image.source
	Epoch     time.Time     // every timestamp in the image
	Platforms []v1.Platform // one image per platform, sorted
}

func runBuild(args []string) error {
	fs := newFlagSet("build")
	var o buildOptions
	var platforms, epoch string
	fs.StringVar(&o.Root, "root", "", "repository root (default: the enclosing podnetwork.io/operator module)")
	fs.StringVar(&o.OutDir, "out", "", "output directory for oci-layout/ and digest (default: ROOT/bin/image)")
	fs.StringVar(&o.Tarball, "tar", "", `OCI archive to write (default: OUT/podnetwork-operator.tar; "none" for none)`)
	fs.StringVar(&o.Ref, "ref", "podnetwork-operator:dev", "image reference recorded in the layout and tarball, which kind and ctr import it as")
	fs.StringVar(&o.Version, "version", "dev", "org.opencontainers.image.version label")
	fs.StringVar(&o.Revision, "revision", "", "org.opencontainers.image.revision label (default: git HEAD, -dirty when tracked files changed)")
	fs.StringVar(&o.Source, "source", "", "org.opencontainers.image.source label (default: git remote origin, else the module path)")
	fs.StringVar(&epoch, "source-date-epoch", os.Getenv("SOURCE_DATE_EPOCH"), "Unix time of every timestamp in the image (default: $SOURCE_DATE_EPOCH, else the HEAD commit's time, else 0)")
	fs.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", `comma-separated platforms, or "host" for linux on this machine's architecture only`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := o.complete(platforms, epoch); err != nil {
		return err
	}
	digest, err := build(context.Background(), o)
	if err != nil {
		return err
	}
	fmt.Printf("%s@%s\n", o.Ref, digest)
	return nil
}

// complete fills the defaults that depend on the repository.
func (o *buildOptions) complete(platforms, epoch string) error {
	var err error
	if o.Root == "" {
		if o.Root, err = findRoot(); err != nil {
			return err
		}
	}
	if o.OutDir == "" {
		o.OutDir = filepath.Join(o.Root, "bin", "image")
	}
	switch o.Tarball {
	case "":
		o.Tarball = filepath.Join(o.OutDir, "podnetwork-operator.tar")
	case "none":
		o.Tarball = ""
	}
	if o.Revision == "" {
		o.Revision = gitRevision(o.Root)
	}
	if o.Source == "" {
		o.Source = gitSource(o.Root)
	}
	if o.Epoch, err = sourceDateEpoch(o.Root, epoch); err != nil {
		return err
	}
	o.Platforms, err = parsePlatforms(platforms)
	return err
}

// build compiles the manager for every platform, assembles the image index
// and writes the outputs. It returns the index digest, which depends only
// on the sources, the Go toolchain and the options.
func build(ctx context.Context, o buildOptions) (v1.Hash, error) {
	work, err := os.MkdirTemp("", "podnetwork-image-")
	if err != nil {
		return v1.Hash{}, fmt.Errorf("creating a work directory: %w", err)
	}
	defer os.RemoveAll(work)

	images := make([]v1.Image, 0, len(o.Platforms))
	for _, p := range o.Platforms {
		bin, err := compile(ctx, o.Root, p, work)
		if err != nil {
			return v1.Hash{}, err
		}
		img, err := platformImage(bin, p, o)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("assembling the %s image: %w", p, err)
		}
		images = append(images, img)
	}
	idx, err := imageIndex(images, o.Platforms, labels(o))
	if err != nil {
		return v1.Hash{}, err
	}
	if err := writeOutputs(o, idx); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}

// goBuildFlags are the Dockerfile's too (TestDockerfile checks it).
var goBuildFlags = []string{"-trimpath", "-buildvcs=false"}

// compile builds main.go for one platform the way the Dockerfile does:
// static (CGO_ENABLED=0), -trimpath so no local path ends up in the binary,
// and no VCS stamp (the Dockerfile's build context has no .git; the
// revision is in the image's labels instead).
func compile(ctx context.Context, root string, p v1.Platform, work string) (string, error) {
	out := filepath.Join(work, "manager-"+p.OS+"-"+p.Architecture)
	args := append(append([]string{"build"}, goBuildFlags...), "-o", out, ".")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	// GOWORK=off: a developer's go.work must not change what is built.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture, "GOWORK=off")
	if p.Variant != "" && p.Architecture == "arm" {
		cmd.Env = append(cmd.Env, "GOARM="+strings.TrimPrefix(p.Variant, "v"))
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	fmt.Fprintf(os.Stderr, "image-tool: compiling the manager for %s\n", p)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("compiling the manager for %s: %w", p, err)
	}
	return out, nil
}

// parsePlatforms reads "linux/amd64,linux/arm64" or "host" and sorts them.
func parsePlatforms(s string) ([]v1.Platform, error) {
	if s == "host" {
		return []v1.Platform{{OS: "linux", Architecture: runtime.GOARCH}}, nil
	}
	var out []v1.Platform
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		p, err := v1.ParsePlatform(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("platform %q: %w", f, err)
		}
		if p.OS != "linux" || p.Architecture == "" {
			return nil, fmt.Errorf("platform %q: only linux/ARCH is supported", f)
		}
		if seen[p.String()] {
			return nil, fmt.Errorf("platform %q listed twice", f)
		}
		seen[p.String()] = true
		out = append(out, *p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no platform given")
	}
	// A canonical order: the index digest must not depend on how the
	// platforms were listed.
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}
