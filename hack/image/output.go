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
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

const (
	// annotationImageName is the full name containerd (ctr images import,
	// kind load image-archive) and Docker 25+ (docker load) give an image
	// from an OCI archive; without it ctr invents "import-<date>".
	annotationImageName = "io.containerd.image.name"
	// annotationRefName is the OCI layout's name for the tag.
	annotationRefName = "org.opencontainers.image.ref.name"
)

// writeOutputs writes OUT/oci-layout (fresh: a layout's index.json only
// ever grows, so an old one would keep stale images), the OCI archive and
// OUT/digest.
func writeOutputs(o buildOptions, idx v1.ImageIndex) error {
	anns, err := refAnnotations(o.Ref)
	if err != nil {
		return err
	}
	dir := filepath.Join(o.OutDir, "oci-layout")
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing the old layout: %w", err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("creating the OCI layout %s: %w", dir, err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(anns)); err != nil {
		return fmt.Errorf("writing the image into %s: %w", dir, err)
	}
	if o.Tarball != "" {
		if err := tarDir(dir, o.Tarball, o.Epoch); err != nil {
			return err
		}
	}
	digest, err := idx.Digest()
	if err != nil {
		return fmt.Errorf("computing the index digest: %w", err)
	}
	return writeFileAtomic(filepath.Join(o.OutDir, "digest"), func(w io.Writer) error {
		_, err := fmt.Fprintln(w, digest)
		return err
	})
}

// refAnnotations names the image in index.json the way containerd
// normalizes references (podnetwork-operator:dev is library/
// podnetwork-operator:dev on the default registry, which containerd spells
// without the "index." of go-containerregistry's name.DefaultRegistry),
// which is also how the kubelet looks up the chart's image in containerd's
// store.
// containerdDefaultRegistry is how containerd spells the default registry.
var containerdDefaultRegistry = strings.TrimPrefix(name.DefaultRegistry, "index.")

func refAnnotations(ref string) (map[string]string, error) {
	tag, err := name.NewTag(ref)
	if err != nil {
		return nil, fmt.Errorf("image reference %q: %w", ref, err)
	}
	registry := tag.RegistryStr()
	if registry == name.DefaultRegistry {
		registry = containerdDefaultRegistry
	}
	return map[string]string{
		annotationImageName: registry + "/" + tag.RepositoryStr() + ":" + tag.TagStr(),
		annotationRefName:   tag.TagStr(),
	}, nil
}

// tarDir writes dir as an OCI archive: entries in lexical order, with the
// fixed time, owned by root and with normalized modes, so the same layout
// always gives the same bytes.
func tarDir(dir, dest string, mtime time.Time) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(dest), err)
	}
	return writeFileAtomic(dest, func(w io.Writer) error {
		tw := tar.NewWriter(w)
		// WalkDir visits entries in lexical order.
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || path == dir {
				return err
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			hdr := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Format: tar.FormatUSTAR}
			if d.IsDir() {
				hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, hdr.Name+"/", 0o755
				return tw.WriteHeader(hdr)
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, 0o644, info.Size()
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close() //nolint:errcheck // opened read-only: a failed close loses nothing
			_, err = io.Copy(tw, f)
			return err
		})
		if err != nil {
			return fmt.Errorf("archiving %s: %w", dir, err)
		}
		return tw.Close()
	})
}

// writeFileAtomic writes dest through a temporary file in the same
// directory, so a failed or interrupted write never leaves a partial
// artifact behind under the final name.
func writeFileAtomic(dest string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(dest), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", dest, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		_ = tmp.Close() // the write failed: its error is the one to report
		return fmt.Errorf("writing %s: %w", dest, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", dest, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", dest, err)
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return fmt.Errorf("writing %s: %w", dest, err)
	}
	return nil
}
