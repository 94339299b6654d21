//go:build e2e

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

// Package e2e runs the operator the way it runs in a cluster — the Helm
// chart installed into a real control plane, the operator binary as two
// processes with leader election, acting as the chart's ServiceAccount — and
// asserts the admin's story (test/framework/story), the RBAC boundaries and failover.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/cluster"
	"podnetwork.io/operator/test/framework/story"
)

const (
	releaseNamespace = story.ReleaseNamespace
	releaseName      = story.ReleaseName
	pluginName       = "e2e-plugin"
	pluginNamespace  = "e2e-plugin-system"
)

var (
	root         string
	controlPlane *framework.ControlPlane
	admin        framework.API
	ctx          context.Context
	operators    []*operatorProcess
	// env is what the story drives; BeforeSuite gives it the admin client.
	env = &story.Env{Nodes: 20, RecycleDelaySeconds: 2, Plugin: pluginName}
)

func TestE2E(t *testing.T) {
	framework.RunSuite(t, "End-to-end Suite", 60*time.Second, 200*time.Millisecond)
}

var _ = BeforeSuite(func() {
	var err error
	root, err = cluster.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	// The chart installs the CRDs.
	ctx, controlPlane = framework.StartSuite(framework.ControlPlaneOptions{WithoutCRDs: true})
	admin = framework.NewAPI(ctx, controlPlane.Client)
	env.API = admin

	By("installing the chart")
	helm(env.HelmInstallArgs(filepath.Join(root, "charts", "podnetwork-operator"), pluginNamespace,
		"--set", "metrics.readers[0].name="+metricsReaderSA, // metrics_test.go
		"--set", "metrics.readers[0].namespace="+metricsNamespace,
		// The audit as the chart's ServiceAccount, with the RBAC only
		// audit.enabled grants: its findings are among the dashboard's
		// metrics.
		"--set", "audit.enabled=true")...)

	By("starting two operator processes as the chart's ServiceAccount, from " + managerBinary())
	kubeconfig, err := controlPlane.Cluster.WriteKubeconfig("operator", controlPlane.Cluster.ImpersonateServiceAccount(releaseNamespace, releaseName))
	Expect(err).NotTo(HaveOccurred())
	// The second starts once the first leads, so it never even tries to
	// create the Lease: the follower's write count must stay zero.
	operators = append(operators, startOperatorProcess("operator-a", kubeconfig))
	Eventually(operators[0].isLeader).Should(BeTrue(), "operator-a leads (log: %s)", operators[0].proc.LogPath())
	operators = append(operators, startOperatorProcess("operator-b", kubeconfig))
})

// helm runs bin/helm against the test cluster and fails the spec on error.
func helm(args ...string) {
	cmd := exec.Command(filepath.Join(root, "bin", "helm"), append(args, "--kubeconfig", controlPlane.Cluster.KubeconfigPath)...)
	out, err := cmd.CombinedOutput()
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "helm %v: %s", args, out)
}

// managerBinary is the operator binary under test: $E2E_MANAGER, else
// bin/manager. `make test-e2e` sets E2E_MANAGER to the binary it extracts
// from the layer of the image `make image` builds, so the suite tests what
// the chart deploys.
func managerBinary() string {
	if p := os.Getenv("E2E_MANAGER"); p != "" {
		return p
	}
	return filepath.Join(root, "bin", "manager")
}
