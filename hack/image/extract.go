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
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func runExtract(args []string) error {
	fs := newFlagSet("extract")
	dir := fs.String("layout", "", "OCI layout written by build (default: ROOT/bin/image/oci-layout)")
	image := fs.String("image", "", "pull the image from this registry reference instead of reading a layout")
	platform := fs.String("platform", "linux/"+runtime.GOARCH, "platform whose image to read")
	file := fs.String("file", "", "file to extract (default: the image's entrypoint)")
	out := fs.String("o", "", "where to write the file (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("extract: -o is required and takes no arguments")
	}
	p, err := v1.ParsePlatform(*platform)
	if err != nil {
		return fmt.Errorf("platform %q: %w", *platform, err)
	}
	var idx v1.ImageIndex
	if *image != "" {
		ref, err := name.ParseReference(*image)
		if err != nil {
			return fmt.Errorf("image reference %q: %w", *image, err)
		}
		if idx, err = remote.Index(ref, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
			return fmt.Errorf("pulling %s: %w", ref, err)
		}
	} else {
		if *dir == "" {
			root, err := findRoot()
			if err != nil {
				return err
			}
			*dir = filepath.Join(root, "bin", "image", "oci-layout")
		}
		if idx, err = layoutIndex(*dir); err != nil {
			return err
		}
	}
	img, err := platformOf(idx, *p)
	if err != nil {
		return err
	}
	written, err := extractFile(img, *file, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "image-tool: wrote %s of the %s image to %s\n", written, p, *out)
	return nil
}

// platformOf is the index's image for one platform.
func platformOf(idx v1.ImageIndex, p v1.Platform) (v1.Image, error) {
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("reading the image index: %w", err)
	}
	var found []string
	for _, d := range m.Manifests {
		if d.Platform == nil {
			continue
		}
		if d.Platform.Satisfies(p) {
			img, err := idx.Image(d.Digest)
			if err != nil {
				return nil, fmt.Errorf("reading the %s image: %w", p, err)
			}
			return img, nil
		}
		found = append(found, d.Platform.String())
	}
	return nil, fmt.Errorf("the image has no %s variant (it has %s)", p, strings.Join(found, ", "))
}

// extractFile writes one regular file of the image's flattened layers to
// out, executable, and returns its path in the image. An empty file means
// the entrypoint: what the container runtime would execute.
func extractFile(img v1.Image, file, out string) (string, error) {
	if file == "" {
		cf, err := img.ConfigFile()
		if err != nil {
			return "", fmt.Errorf("reading the image config: %w", err)
		}
		if len(cf.Config.Entrypoint) == 0 {
			return "", errors.New("the image has no entrypoint; pass -file")
		}
		file = cf.Config.Entrypoint[0]
	}
	want := path.Clean(strings.TrimPrefix(file, "/"))
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("%s is not in the image's layers", file)
		}
		if err != nil {
			return "", fmt.Errorf("reading the image's layers: %w", err)
		}
		if path.Clean(strings.TrimPrefix(hdr.Name, "/")) != want {
			continue
		}
		if hdr.Typeflag != tar.TypeReg {
			return "", fmt.Errorf("%s in the image is not a regular file (tar type %q)", file, hdr.Typeflag)
		}
		err = writeFileAtomic(out, func(w io.Writer) error {
			_, err := io.Copy(w, tr)
			return err
		})
		if err != nil {
			return "", err
		}
		if err := os.Chmod(out, 0o755); err != nil {
			return "", fmt.Errorf("making %s executable: %w", out, err)
		}
		return "/" + want, nil
	}
}
