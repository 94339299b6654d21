// Package nodeipam_test runs the operator's NodeIPAM, with the real lifecycle
// controller, in-process against a real kube-apiserver and etcd built from
// their Go modules (test/cluster), and checks every scenario with the
// invariant checker of test/invariants.
package nodeipam_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/cluster"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

var (
	testCluster *cluster.Cluster
	cfg         *rest.Config
	k8sClient   client.WithWatch
	suiteCtx    context.Context
	suiteCancel context.CancelFunc
)

func TestNodeIPAM(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(60 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "NodeIPAM Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	suiteCtx, suiteCancel = context.WithCancel(context.Background())

	var err error
	testCluster, err = cluster.Start(cluster.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
	})
	Expect(err).NotTo(HaveOccurred())
	cfg = rest.CopyConfig(testCluster.Config)
	// The specs create hundreds of nodes at once; the test client must not
	// be the bottleneck (client-go defaults to 5 QPS).
	cfg.QPS, cfg.Burst = 1000, 2000

	k8sClient, err = client.NewWithWatch(cfg, client.Options{Scheme: controllers.Scheme()})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if suiteCancel != nil {
		suiteCancel()
	}
	if testCluster != nil {
		Expect(testCluster.Stop()).To(Succeed())
	}
})
