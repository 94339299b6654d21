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
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func runPush(args []string) error {
	fs := newFlagSet("push")
	dir := fs.String("layout", "", "OCI layout written by build (default: ROOT/bin/image/oci-layout)")
	insecure := fs.Bool("insecure", false, "use plain HTTP (registries on loopback always are)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: image-tool push [flags] REGISTRY/REPOSITORY:TAG\n\nCredentials come from the Docker config ($DOCKER_CONFIG or ~/.docker/config.json,\nwritten by docker login, crane auth login or by hand) or $REGISTRY_AUTH_FILE.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("push: want one image reference, got %d arguments", fs.NArg())
	}
	if *dir == "" {
		root, err := findRoot()
		if err != nil {
			return err
		}
		*dir = filepath.Join(root, "bin", "image", "oci-layout")
	}
	idx, err := layoutIndex(*dir)
	if err != nil {
		return err
	}
	var opts []name.Option
	if *insecure {
		opts = append(opts, name.Insecure)
	}
	ref, err := name.ParseReference(fs.Arg(0), opts...)
	if err != nil {
		return fmt.Errorf("image reference %q: %w", fs.Arg(0), err)
	}
	pushed, err := push(context.Background(), idx, ref, remote.WithAuthFromKeychain(authn.DefaultKeychain))
	if err != nil {
		return err
	}
	fmt.Println(pushed)
	return nil
}

// push uploads the index, its images and their blobs, and returns the
// pushed image by digest (what image.digest in the chart's values takes).
func push(ctx context.Context, idx v1.ImageIndex, ref name.Reference, opts ...remote.Option) (name.Digest, error) {
	if err := remote.WriteIndex(ref, idx, append(opts, remote.WithContext(ctx))...); err != nil {
		return name.Digest{}, fmt.Errorf("pushing to %s: %w", ref, err)
	}
	digest, err := idx.Digest()
	if err != nil {
		return name.Digest{}, fmt.Errorf("computing the index digest: %w", err)
	}
	return ref.Context().Digest(digest.String()), nil
}

// layoutIndex is the image index a build wrote: the one entry of the
// layout's index.json.
func layoutIndex(dir string) (v1.ImageIndex, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the OCI layout %s (run `make image` first): %w", dir, err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("reading %s/index.json: %w", dir, err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("reading %s/index.json: %w", dir, err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].MediaType != types.OCIImageIndex {
		return nil, fmt.Errorf("%s/index.json: want exactly one image index, found %d entries", dir, len(m.Manifests))
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		return nil, fmt.Errorf("reading the image index from %s: %w", dir, err)
	}
	return idx, nil
}
