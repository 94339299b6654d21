package controllers_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/cluster"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The suite runs against a real kube-apiserver and etcd built from their Go
// modules (hack/control-plane.sh), so CEL rules, server-side apply and RBAC
// behave exactly as in a cluster.
var (
	testCluster *cluster.Cluster
	cfg         *rest.Config
	k8sClient   client.WithWatch
	ctx         context.Context
	cancel      context.CancelFunc
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(30 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
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

	k8sClient, err = client.NewWithWatch(cfg, client.Options{Scheme: controllers.Scheme()})
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

// operator is one running operator process (in-process manager).
type operator struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// startOperator runs the operator's manager with only the lifecycle
// controller (NodeIPAM off: these specs use reference consumers) until the
// returned operator is stopped.
func startOperator() *operator {
	opts := controllers.DefaultOptions()
	opts.LeaderElect = false
	opts.MetricsBindAddress = "0"
	opts.HealthProbeBindAddress = "0"
	opts.NodeIPAM.Enabled = false
	opts.SkipControllerNameValidation = true
	opCtx, opCancel := context.WithCancel(ctx)
	op := &operator{cancel: opCancel, done: make(chan struct{})}
	go func() {
		defer GinkgoRecover()
		defer close(op.done)
		op.err = controllers.Run(opCtx, cfg, opts)
	}()
	return op
}

// stop stops the operator and waits until its manager returned.
func (o *operator) stop() {
	o.cancel()
	Eventually(o.done).Should(BeClosed())
	Expect(o.err).NotTo(HaveOccurred())
}

// consumerProcess runs reference consumers in their own manager, as a
// plugin would run in its own process.
type consumerProcess struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startConsumers(setup func(mgr ctrl.Manager) error) *consumerProcess {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 controllers.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Several consumer managers may run in one test binary; each needs
		// its own controller names only within one manager.
		Controller: ctrlConfigSkipNameValidation(),
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(setup(mgr)).To(Succeed())
	pCtx, pCancel := context.WithCancel(ctx)
	p := &consumerProcess{cancel: pCancel}
	p.wg.Add(1)
	go func() {
		defer GinkgoRecover()
		defer p.wg.Done()
		if err := mgr.Start(pCtx); err != nil && !errors.Is(err, context.Canceled) {
			Fail(err.Error())
		}
	}()
	return p
}

func (p *consumerProcess) stop() {
	p.cancel()
	p.wg.Wait()
}
