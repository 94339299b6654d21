package adapters_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/cluster"
	"podnetwork.io/operator/test/flannelstub"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The suite runs the adapters against real DaemonSet rollouts: etcd and
// kube-apiserver, kube-controller-manager with only the DaemonSet controller,
// kube-scheduler (it binds DaemonSet pods) and kwok, which plays the kubelets
// of fake nodes and runs their pods. No real kube-proxy or flanneld runs;
// test/flannelstub stamps NetworkUnavailable=False (FlannelIsUp) in
// flanneld's place whenever a flannel pod starts.
var (
	testCluster *cluster.Cluster
	k8sClient   client.Client
	ctx         context.Context
	cancel      context.CancelFunc
	processes   []*process
	hist        *history

	// skipNode, when not empty, is a node the flannel stub does not stamp.
	skipNode atomic.Value
)

func TestAdapters(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(60 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "Adapters Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())
	skipNode.Store("")

	var err error
	testCluster, err = cluster.Start(cluster.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
	})
	Expect(err).NotTo(HaveOccurred())
	root, err := cluster.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	stages := filepath.Join(testCluster.WorkDir, "kwok-stages.yaml")
	Expect(flannelstub.WriteKwokStages(filepath.Join(root, "bin", "kwok-stages.yaml"), stages)).To(Succeed())
	Expect(testCluster.StartControllerManager(cluster.ControllerManagerOptions{Controllers: []string{"daemonset"}})).To(Succeed())
	Expect(testCluster.StartScheduler()).To(Succeed())
	Expect(testCluster.StartKwok(cluster.KwokOptions{StagesFile: stages})).To(Succeed())

	k8sClient, err = client.New(testCluster.Config, client.Options{Scheme: controllers.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	hist = recordHistory()
	createFixtures()

	processes = append(processes, startOperator(), startFlannelStub())
})

var _ = AfterSuite(func() {
	if hist != nil {
		hist.stop()
	}
	for i := len(processes) - 1; i >= 0; i-- {
		processes[i].stop()
	}
	if cancel != nil {
		cancel()
	}
	if testCluster != nil {
		Expect(testCluster.Stop()).To(Succeed())
	}
})

// process is something the suite runs in the background until it stops.
type process struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func run(f func(context.Context) error) *process {
	pCtx, pCancel := context.WithCancel(ctx)
	p := &process{cancel: pCancel}
	p.wg.Add(1)
	go func() {
		defer GinkgoRecover()
		defer p.wg.Done()
		if err := f(pCtx); err != nil && !errors.Is(err, context.Canceled) {
			Fail(err.Error())
		}
	}()
	return p
}

func (p *process) stop() {
	p.cancel()
	p.wg.Wait()
}

// startOperator runs the operator in-process with the lifecycle controller
// and both adapters at their default namespaces and names (NodeIPAM off: the
// fixtures give nodes their podCIDRs).
func startOperator() *process {
	opts := controllers.DefaultOptions()
	opts.LeaderElect = false
	opts.MetricsBindAddress = "0"
	opts.HealthProbeBindAddress = "0"
	opts.SkipControllerNameValidation = true
	opts.NodeIPAM.Enabled = false
	opts.Adapters.KubeProxy = true
	opts.Adapters.Flannel = true
	return run(func(ctx context.Context) error { return controllers.Run(ctx, testCluster.Config, opts) })
}

// startFlannelStub runs the flannel stand-in in its own manager, as flanneld
// runs in its own pods.
func startFlannelStub() *process {
	mgr, err := ctrl.NewManager(testCluster.Config, ctrl.Options{
		Scheme:                 controllers.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	Expect(err).NotTo(HaveOccurred())
	stub := &flannelstub.Stub{
		Client: mgr.GetClient(), Namespace: flannelNamespace, DaemonSet: flannelDaemonSet,
		Skip: func(node string) bool { return skipNode.Load().(string) == node },
	}
	Expect(stub.SetupWithManager(mgr)).To(Succeed())
	return run(mgr.Start)
}
