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
	"os"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// OCI annotation keys (github.com/opencontainers/image-spec annotations.md),
// used as labels in the image config and as annotations on the index.
const (
	labelSource   = "org.opencontainers.image.source"
	labelRevision = "org.opencontainers.image.revision"
	labelVersion  = "org.opencontainers.image.version"
	labelTitle    = "org.opencontainers.image.title"
	labelCreated  = "org.opencontainers.image.created"
)

func labels(o buildOptions) map[string]string {
	return map[string]string{
		labelSource:   o.Source,
		labelRevision: o.Revision,
		labelVersion:  o.Version,
		labelTitle:    imageTitle,
		labelCreated:  o.Epoch.Format(time.RFC3339),
	}
}

// binaryLayer is the image's only layer: the manager binary at /manager,
// owned by root and mode 0755 like the Dockerfile's COPY, with the fixed
// modification time. The tar stream is produced on demand from the binary,
// so nothing but the compressed layer is held in memory.
func binaryLayer(bin string, mtime time.Time) (v1.Layer, error) {
	opener := func() (io.ReadCloser, error) {
		f, err := os.Open(bin)
		if err != nil {
			return nil, fmt.Errorf("opening the manager binary: %w", err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close() //nolint:errcheck // opened read-only: a failed close loses nothing
			return nil, fmt.Errorf("reading the manager binary: %w", err)
		}
		pr, pw := io.Pipe()
		go func() {
			defer f.Close() //nolint:errcheck // opened read-only: a failed close loses nothing
			tw := tar.NewWriter(pw)
			hdr := &tar.Header{
				Typeflag: tar.TypeReg,
				Name:     strings.TrimPrefix(binaryPath, "/"),
				Mode:     0o755,
				Size:     st.Size(),
				ModTime:  mtime,
				Format:   tar.FormatUSTAR,
			}
			err := tw.WriteHeader(hdr)
			if err == nil {
				_, err = io.Copy(tw, f)
			}
			if err == nil {
				err = tw.Close()
			}
			pw.CloseWithError(err)
		}()
		return pr, nil
	}
	// The layer is gzipped once and the result kept: digest, layout and push
	// all read it.
	return tarball.LayerFromOpener(opener, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}

// platformImage is the image for one platform: OCI media types, one layer,
// and the config the Dockerfile produces (user, entrypoint, working
// directory), plus the OCI labels.
func platformImage(bin string, p v1.Platform, o buildOptions) (v1.Image, error) {
	layer, err := binaryLayer(bin, o.Epoch)
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: o.Epoch}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: created, CreatedBy: "COPY manager " + binaryPath, Comment: "podnetwork-operator hack/image"},
	})
	if err != nil {
		return nil, fmt.Errorf("adding the layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = created
	cf.Config.User = imageUser
	cf.Config.Entrypoint = []string{binaryPath}
	cf.Config.WorkingDir = "/"
	cf.Config.Labels = labels(o)
	return mutate.ConfigFile(img, cf)
}

// imageIndex is the multi-arch OCI index over the platform images, with
// the labels as annotations so registries show them for the index too.
func imageIndex(images []v1.Image, platforms []v1.Platform, annotations map[string]string) (v1.ImageIndex, error) {
	adds := make([]mutate.IndexAddendum, len(images))
	for i, img := range images {
		p := platforms[i]
		adds[i] = mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}}
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	annotated, ok := mutate.Annotations(idx, annotations).(v1.ImageIndex)
	if !ok {
		return nil, fmt.Errorf("annotating the index: unexpected type %T", annotated)
	}
	return annotated, nil
}
