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

// Package cli_test runs the kubectl plugin (internal/cli/app, what
// cmd/kubectl-podnetwork runs) against states the operator builds on a real
// kube-apiserver, compares what it prints with golden files, and checks
// that `plan` predicts what the operator then does.
package cli_test

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"podnetwork.io/operator/internal/cli/app"
	"podnetwork.io/operator/internal/goldenfile"
	"podnetwork.io/operator/test/framework"
)

var (
	suite     = framework.NewSuite("kubectl-podnetwork Suite", framework.ControlPlaneOptions{})
	ctx       = suite.Ctx
	k8sClient = suite.API
)

func TestCLI(t *testing.T) { suite.Run(t, 60*time.Second, 100*time.Millisecond) }

// run runs the plugin with the suite's kubeconfig, as kubectl would, and
// returns its exit code, standard output and standard error.
func run(args ...string) (int, string, string) {
	GinkgoHelper()
	var stdout, stderr bytes.Buffer
	args = append(args, "--kubeconfig", suite.ControlPlane.Cluster.KubeconfigPath)
	code := app.Run(ctx, args, &stdout, &stderr, app.Options{})
	return code, stdout.String(), stderr.String()
}

// golden compares got with testdata/name (goldenfile.Compare).
func golden(name, got string) {
	GinkgoHelper()
	goldenfile.Compare(GinkgoT(), filepath.Join("testdata", name), []byte(got))
}
