//go:build e2e

// Package e2e runs the operator the way it runs in a cluster — the Helm
// chart installed into a real control plane, the operator binary as two
// processes with leader election, acting as the chart's ServiceAccount — and
// asserts the admin's story, the RBAC boundaries and failover.
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
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/cluster"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

const (
	releaseNamespace = "podnetwork-system"
	releaseName      = "podnetwork-operator"
	pluginName       = "e2e-plugin"
	pluginNamespace  = "e2e-plugin-system"
)

var (
	root      string
	testEnv   *cluster.Cluster
	admin     client.Client
	ctx       context.Context
	cancel    context.CancelFunc
	operators []*operatorProcess
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(60 * time.Second)
	SetDefaultEventuallyPollingInterval(200 * time.Millisecond)
	RunSpecs(t, "End-to-end Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())
	var err error
	root, err = cluster.RepoRoot()
	Expect(err).NotTo(HaveOccurred())

	testEnv, err = cluster.Start(cluster.Options{})
	Expect(err).NotTo(HaveOccurred())
	admin, err = client.New(testEnv.Config, client.Options{Scheme: controllers.Scheme()})
	Expect(err).NotTo(HaveOccurred())

	By("installing the chart")
	helm("install", releaseName, filepath.Join(root, "charts", "podnetwork-operator"),
		"--namespace", releaseNamespace, "--create-namespace",
		"--set", "plugins[0].name="+pluginName,
		"--set", "plugins[0].serviceAccount.name="+pluginName,
		"--set", "plugins[0].serviceAccount.namespace="+pluginNamespace,
		"--set", "metrics.readers[0].name="+metricsReaderSA, // metrics_test.go
		"--set", "metrics.readers[0].namespace="+metricsNamespace)

	By("starting two operator processes as the chart's ServiceAccount, from " + managerBinary())
	kubeconfig, err := testEnv.WriteKubeconfig("operator", testEnv.ImpersonateServiceAccount(releaseNamespace, releaseName))
	Expect(err).NotTo(HaveOccurred())
	// The second starts once the first leads, so it never even tries to
	// create the Lease: the follower's write count must stay zero.
	operators = append(operators, startOperatorProcess("operator-a", kubeconfig))
	Eventually(operators[0].isLeader).Should(BeTrue(), "operator-a leads (log: %s)", operators[0].proc.LogPath())
	operators = append(operators, startOperatorProcess("operator-b", kubeconfig))
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})

// helm runs bin/helm against the test cluster and fails the spec on error.
func helm(args ...string) string {
	cmd := exec.Command(filepath.Join(root, "bin", "helm"), append(args, "--kubeconfig", testEnv.KubeconfigPath)...)
	out, err := cmd.CombinedOutput()
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "helm %v: %s", args, out)
	return string(out)
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
