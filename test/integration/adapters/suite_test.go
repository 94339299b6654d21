package adapters_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/test/cluster"
	"podnetwork.io/operator/test/netnode"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The suite runs the adapters against the real programs they configure:
// etcd and kube-apiserver, kube-controller-manager with only the DaemonSet
// controller, kube-scheduler (it binds DaemonSet pods), and, on every node,
// real flanneld and kube-proxy binaries built from their Go modules. Each
// node is a network namespace (test/netnode) on a bridge in
// 198.18.0.0/24, and a kubelet stand-in runs the DaemonSets' pods there with
// their ConfigMaps mounted as files. The apiserver serves on the bridge
// address so the programs reach it from their namespaces. It needs root.
var (
	testCluster *cluster.Cluster
	k8sClient   client.Client
	ctx         context.Context
	cancel      context.CancelFunc
	processes   []*process
	hist        *history
	network     *netnode.Network
	kubelet     *netnode.Kubelet
)

func TestAdapters(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the adapters suite runs flanneld and kube-proxy in network namespaces and needs root")
	}
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(90 * time.Second)
	SetDefaultEventuallyPollingInterval(200 * time.Millisecond)
	RunSpecs(t, "Adapters Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background())

	var err error
	network, err = netnode.New(fmt.Sprintf("pna%d", os.Getpid()%10000))
	Expect(err).NotTo(HaveOccurred())
	testCluster, err = cluster.Start(cluster.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
		BindAddress:       network.Gateway4.Addr().String(),
	})
	Expect(err).NotTo(HaveOccurred())
	GinkgoWriter.Printf("control plane and program logs in %s\n", testCluster.WorkDir)
	Expect(testCluster.StartControllerManager(cluster.ControllerManagerOptions{Controllers: []string{"daemonset"}})).To(Succeed())
	Expect(testCluster.StartScheduler()).To(Succeed())

	k8sClient, err = client.New(testCluster.Config, client.Options{Scheme: controllers.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	hist = recordHistory()
	host, err := url.Parse(testCluster.Config.Host)
	Expect(err).NotTo(HaveOccurred())
	apiServer := host.Host
	createFixtures(apiServer)
	processes = append(processes, startKubelet(apiServer))
	for i := range initialNodes {
		addNode(nodeName(i), fmt.Sprintf("10.244.%d.0/24", i))
	}
	processes = append(processes, startOperator())
})

var _ = AfterSuite(func() {
	if hist != nil {
		hist.stop()
	}
	for i := len(processes) - 1; i >= 0; i-- {
		processes[i].stop()
	}
	if kubelet != nil {
		kubelet.StopAll()
	}
	if cancel != nil {
		cancel()
	}
	if testCluster != nil {
		Expect(testCluster.Stop()).To(Succeed())
	}
	if network != nil {
		Expect(network.Close()).To(Succeed())
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

// startKubelet runs the kubelet stand-in of every node in its own manager,
// as kubelets run apart from the control plane.
func startKubelet(apiServer string) *process {
	root, err := cluster.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	binaries := map[string]string{
		flannelContainer:   filepath.Join(root, "bin", "flanneld"),
		kubeProxyContainer: filepath.Join(testCluster.AssetsDir, "kube-proxy"),
	}
	for _, b := range binaries {
		Expect(b).To(BeAnExistingFile(), "make test-assets builds it")
	}
	direct, err := client.New(testCluster.Config, client.Options{Scheme: controllers.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	mgr, err := ctrl.NewManager(testCluster.Config, ctrl.Options{
		Scheme:                 controllers.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	Expect(err).NotTo(HaveOccurred())
	kubelet = &netnode.Kubelet{
		Client: direct, Network: network, Binaries: binaries,
		APIServer: netip.MustParseAddrPort(apiServer), CACert: testCluster.Config.CAData,
		WorkDir: filepath.Join(testCluster.WorkDir, "nodes"),
	}
	Expect(kubelet.SetupWithManager(mgr)).To(Succeed())
	return run(mgr.Start)
}
