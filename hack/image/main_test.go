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
	"path/filepath"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// The tests share one build: compiling the manager is what takes time.
// IMAGE_TEST_ALL_PLATFORMS=1 builds linux/amd64 and linux/arm64 as `make
// image` does; by default only this machine's architecture is built, which
// keeps `make test` fast.
var (
	built      buildOptions
	builtIndex v1.Hash
)

func testBuildOptions(out string) buildOptions {
	platforms := "host"
	if os.Getenv("IMAGE_TEST_ALL_PLATFORMS") != "" {
		platforms = "linux/amd64,linux/arm64"
	}
	ps, err := parsePlatforms(platforms)
	if err != nil {
		panic(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return buildOptions{
		Root:      root,
		OutDir:    out,
		Tarball:   filepath.Join(out, "podnetwork-operator.tar"),
		Ref:       "podnetwork-operator:0.0.0-test",
		Version:   "0.0.0-test",
		Revision:  "0123456789abcdef0123456789abcdef01234567",
		Source:    "podnetwork.io/operator",
		Epoch:     time.Unix(1700000000, 0).UTC(),
		Platforms: ps,
	}
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "image-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	built = testBuildOptions(filepath.Join(dir, "out"))
	if builtIndex, err = build(context.Background(), built); err != nil {
		fmt.Fprintln(os.Stderr, "building the image:", err)
		return 1
	}
	return m.Run()
}
