package controllers_test

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/cluster"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// The suite runs against a real kube-apiserver and etcd built from their Go
// modules (hack/control-plane.sh), so CEL rules, server-side apply and RBAC
// behave exactly as in a cluster.
var (
	testCluster *cluster.Cluster
	cfg         *rest.Config
	k8sClient   client.Client
	ctx         context.Context
	cancel      context.CancelFunc
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controllers Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())

	var err error
	testCluster, err = cluster.Start(cluster.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "config", "crd", "bases")},
	})
	Expect(err).NotTo(HaveOccurred())
	cfg = testCluster.Config

	k8sClient, err = client.New(cfg, client.Options{Scheme: controllers.Scheme()})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if testCluster != nil {
		Expect(testCluster.Stop()).To(Succeed())
	}
})
