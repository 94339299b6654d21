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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"go.yaml.in/yaml/v3"
)

// TestRegistryChart is the install path of docs/install.md without a
// cluster: push the image to a registry (in process, on loopback), package
// the chart stamped with that registry as `make release` does, render it,
// and pull and run the image the rendered Deployment names, by tag and by
// digest.
func TestRegistryChart(t *testing.T) {
	helm := helmBinary(t)
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	repo := strings.TrimPrefix(srv.URL, "http://") + "/podnetwork-operator"

	idx, err := layoutIndex(filepath.Join(built.OutDir, "oci-layout"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(repo + ":0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := push(context.Background(), idx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if pushed.DigestStr() != builtIndex.String() {
		t.Fatalf("pushed %s, built %s", pushed, builtIndex)
	}

	for _, digest := range []string{"", builtIndex.String()} {
		t.Run(fmt.Sprintf("digest=%t", digest != ""), func(t *testing.T) {
			dir := t.TempDir()
			chart := filepath.Join(dir, "chart", "podnetwork-operator")
			s := chartStamp{Version: "0.2.0", Repository: repo, Tag: "0.2.0", Digest: digest}
			if err := stampChart(chartDir(t), chart, s); err != nil {
				t.Fatal(err)
			}
			run(t, helm, "package", chart, "-d", dir)
			tgz := filepath.Join(dir, "podnetwork-operator-0.2.0.tgz")
			image := deploymentImage(t, run(t, helm, "template", "podnetwork-operator", tgz, "--namespace", "podnetwork-system"))
			if image != s.image() {
				t.Fatalf("the Deployment runs %s, want %s", image, s.image())
			}

			pulled, err := name.ParseReference(image)
			if err != nil {
				t.Fatal(err)
			}
			remoteIdx, err := remote.Index(pulled)
			if err != nil {
				t.Fatalf("pulling %s: %v", image, err)
			}
			img, err := platformOf(remoteIdx, v1.Platform{OS: "linux", Architecture: runtime.GOARCH})
			if err != nil {
				t.Fatal(err)
			}
			checkImage(t, img, v1.Platform{OS: "linux", Architecture: runtime.GOARCH})
			bin := filepath.Join(dir, "manager")
			if _, err := extractFile(img, "", bin); err != nil {
				t.Fatal(err)
			}
			runManagerHelp(t, bin)
		})
	}
}

// helmBinary is $HELM, else the repository's bin/helm (`make helm`).
func helmBinary(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	h, err := filepath.Abs(filepath.Join("..", "..", "bin", "helm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(h); err != nil {
		t.Skipf("no helm at %s: run `make helm` (make test does)", h)
	}
	return h
}

func run(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// deploymentImage returns the image of the one container of the rendered
// Deployment.
func deploymentImage(t *testing.T, manifests []byte) string {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(manifests))
	for {
		var obj struct {
			Kind string `yaml:"kind"`
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Image string `yaml:"image"`
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				t.Fatal("the chart rendered no Deployment")
			}
			t.Fatal(err)
		}
		if obj.Kind == "Deployment" {
			cs := obj.Spec.Template.Spec.Containers
			if len(cs) != 1 {
				t.Fatalf("the Deployment has %d containers, want 1", len(cs))
			}
			return cs[0].Image
		}
	}
}
