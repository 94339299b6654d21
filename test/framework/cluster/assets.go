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

package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// K8sVersion is the Kubernetes release whose binaries hack/control-plane.sh
// builds.
const K8sVersion = "v1.37.2"

// RepoRoot returns the repository root: the nearest directory above the
// working directory that holds the operator's go.mod. Tests run in their
// package directory, so this works for them and for `go run` from the root.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("getting working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "PROJECT")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (a directory with PROJECT) not found above the working directory")
		}
		dir = parent
	}
}

// assetsDir resolves where the control-plane binaries are: the explicit
// option, then $KUBEBUILDER_ASSETS, then bin/k8s/<version> in the repository.
func assetsDir(explicit string) (string, error) {
	candidates := []string{explicit, os.Getenv("KUBEBUILDER_ASSETS")}
	if root, err := RepoRoot(); err == nil {
		candidates = append(candidates, filepath.Join(root, "bin", "k8s", K8sVersion))
	}
	for _, dir := range candidates {
		if dir == "" {
			continue
		}
		if isExecutable(filepath.Join(dir, "kube-apiserver")) && isExecutable(filepath.Join(dir, "etcd")) {
			return dir, nil
		}
	}
	return "", errors.New("kube-apiserver and etcd not found: run `make envtest-assets` (builds them from Go modules once) or set KUBEBUILDER_ASSETS")
}

// Binary returns the path of a control-plane binary next to kube-apiserver, or
// an error that says which make target builds it.
func (c *Cluster) Binary(name string) (string, error) {
	path := filepath.Join(c.AssetsDir, name)
	if !isExecutable(path) {
		return "", fmt.Errorf("%s not found in %s: run `make cluster-assets` to build it from Go modules", name, c.AssetsDir)
	}
	return path, nil
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// AssetsDir is where the control-plane binaries are ($KUBEBUILDER_ASSETS,
// then bin/k8s/<version> of the repository), for tools that read a
// binary's version before they start a cluster.
func AssetsDir() (string, error) { return assetsDir("") }
