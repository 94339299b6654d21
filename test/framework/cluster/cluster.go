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

// Package cluster starts a local Kubernetes control plane for tests, the demo
// and benchmarks: etcd and kube-apiserver through controller-runtime's envtest
// and, on request, kube-controller-manager with chosen controllers,
// kube-scheduler and kwok as real processes against it.
//
// Every binary is built from its Go module by hack/control-plane.sh; nothing is
// downloaded. The cluster stops everything it started, and only that, on Stop
// or on SIGINT/SIGTERM when StopOnSignal is used.
package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// DefaultServiceCIDR is the service range the embedded apiserver serves. It is
// kubeadm's default, so pod ranges in tests and the demo must stay clear of it.
const DefaultServiceCIDR = "10.96.0.0/16"

// Options says what to start.
type Options struct {
	// AssetsDir holds kube-apiserver and etcd (and kube-controller-manager and
	// kube-scheduler when requested). Defaults to $KUBEBUILDER_ASSETS, then to
	// bin/k8s/<version> of the repository.
	AssetsDir string
	// CRDDirectoryPaths are installed before Start returns.
	CRDDirectoryPaths []string
	// ServiceCIDR is the apiserver's --service-cluster-ip-range.
	ServiceCIDR string
	// WorkDir receives the admin kubeconfig and the logs of the processes the
	// cluster starts. A temporary directory when empty.
	WorkDir string
	// APIServerArgs are extra kube-apiserver flags (name → value).
	APIServerArgs map[string]string
	// BindAddress is the address kube-apiserver serves on, and that its
	// serving certificate names (loopback when empty). Programs in network
	// namespaces reach the apiserver on an address of the bridge their
	// namespaces hang off (test/framework/netnode).
	BindAddress string
	// Restartable keeps etcd's data and kube-apiserver's certificates in
	// WorkDir instead of directories envtest deletes on stop, so that
	// RestartEtcd and RestartAPIServer bring them back with the same data,
	// port and certificates (fault injection, test/chaos). Their output goes
	// to etcd.log and kube-apiserver.log in WorkDir.
	Restartable bool
	// EtcdQuotaBackendBytes is etcd's --quota-backend-bytes; 0 keeps etcd's
	// default of 2 GiB. Benchmarks that hold 100,000 nodes and their
	// history raise it, so etcd does not raise its NOSPACE alarm and turn
	// every write into an error mid-run.
	EtcdQuotaBackendBytes int64
}

// Cluster is a running local control plane.
type Cluster struct {
	// Config is an admin (system:masters) client configuration.
	Config *rest.Config
	// KubeconfigPath is an admin kubeconfig file usable with kubectl and the
	// control-plane processes.
	KubeconfigPath string
	// WorkDir holds the kubeconfig and every process log.
	WorkDir string
	// AssetsDir holds the control-plane binaries.
	AssetsDir string

	env         *envtest.Environment
	serviceCIDR string
	restartable bool
	// extraAPIServers are the kube-apiservers AddAPIServer started.
	extraAPIServers []*envtest.APIServer
	// logs are the files envtest's processes write to; closed on Stop.
	logs []*os.File

	mu        sync.Mutex
	processes []*process
	stopped   bool
}

// Start starts etcd and kube-apiserver, installs the CRDs and writes an admin
// kubeconfig.
func Start(opts Options) (*Cluster, error) {
	assets, err := assetsDir(opts.AssetsDir)
	if err != nil {
		return nil, err
	}
	workDir := opts.WorkDir
	if workDir == "" {
		if workDir, err = os.MkdirTemp("", "podnetwork-cluster-"); err != nil {
			return nil, fmt.Errorf("creating work dir: %w", err)
		}
	} else if err := os.MkdirAll(workDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating work dir: %w", err)
	}
	serviceCIDR := opts.ServiceCIDR
	if serviceCIDR == "" {
		serviceCIDR = DefaultServiceCIDR
	}

	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     opts.CRDDirectoryPaths,
		ErrorIfCRDPathMissing: len(opts.CRDDirectoryPaths) > 0,
	}
	apiServer := env.ControlPlane.GetAPIServer()
	if opts.BindAddress != "" {
		port, err := freePortOn(opts.BindAddress)
		if err != nil {
			return nil, err
		}
		apiServer.SecureServing.Address = opts.BindAddress
		apiServer.SecureServing.Port = strconv.Itoa(port)
	}
	apiServer.Configure().Set("service-cluster-ip-range", serviceCIDR)
	if opts.EtcdQuotaBackendBytes > 0 {
		if env.ControlPlane.Etcd == nil {
			env.ControlPlane.Etcd = &envtest.Etcd{}
		}
		env.ControlPlane.Etcd.Configure().Set("quota-backend-bytes", strconv.FormatInt(opts.EtcdQuotaBackendBytes, 10))
	}
	for k, v := range opts.APIServerArgs {
		apiServer.Configure().Set(k, v)
	}
	c := &Cluster{WorkDir: workDir, AssetsDir: assets, env: env, serviceCIDR: serviceCIDR, restartable: opts.Restartable}
	if opts.Restartable {
		if err := c.persistentDirs(); err != nil {
			return nil, err
		}
		// Restarts happen under load (the fault-injection suite restarts
		// them while thousands of nodes churn): envtest's 20s would give
		// up on a kube-apiserver that is slow but coming.
		apiServer.StartTimeout, apiServer.StopTimeout = restartStartTimeout, restartStopTimeout
		env.ControlPlane.Etcd.StartTimeout, env.ControlPlane.Etcd.StopTimeout = restartStartTimeout, restartStopTimeout
	}
	if _, err := env.Start(); err != nil {
		c.closeLogs()
		return nil, fmt.Errorf("starting etcd and kube-apiserver from %s: %w", assets, err)
	}

	admin, err := env.ControlPlane.AddUser(envtest.User{Name: "podnetwork-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("adding admin user: %w", err), c.Stop())
	}
	c.Config = admin.Config()
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("rendering admin kubeconfig: %w", err), c.Stop())
	}
	c.KubeconfigPath = filepath.Join(workDir, "kubeconfig")
	if err := os.WriteFile(c.KubeconfigPath, kubeconfig, 0o600); err != nil {
		return nil, errors.Join(fmt.Errorf("writing kubeconfig: %w", err), c.Stop())
	}
	return c, nil
}

// ImpersonateServiceAccount returns an admin configuration that impersonates
// the ServiceAccount, with the groups the apiserver gives ServiceAccount tokens,
// so RBAC is evaluated exactly as for a pod running under it.
func (c *Cluster) ImpersonateServiceAccount(namespace, name string) *rest.Config {
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: fmt.Sprintf("system:serviceaccount:%s:%s", namespace, name),
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
	return cfg
}

// WriteKubeconfig writes a kubeconfig for cfg (for example an impersonating
// one) into the work directory and returns its path.
func (c *Cluster) WriteKubeconfig(name string, cfg *rest.Config) (string, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
		Token:                 cfg.BearerToken,
		Impersonate:           cfg.Impersonate.UserName,
		ImpersonateGroups:     cfg.Impersonate.Groups,
	}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "user"}
	kc.CurrentContext = "local"
	path := filepath.Join(c.WorkDir, name+".kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return "", fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return path, nil
}

// EtcdEndpoint is etcd's client URL (plain HTTP on localhost), for tools
// that compact and defragment it between benchmark runs.
func (c *Cluster) EtcdEndpoint() string {
	return c.env.ControlPlane.Etcd.URL.String()
}

// Stop stops every process the cluster started, then kube-apiserver and etcd.
// It is safe to call more than once.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return nil
	}
	c.stopped = true
	procs := c.processes
	c.mu.Unlock()

	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		errs = append(errs, procs[i].stop())
	}
	for _, s := range c.extraAPIServers {
		if err := s.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stopping an additional kube-apiserver: %w", err))
		}
	}
	if c.env != nil {
		if err := c.env.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stopping etcd and kube-apiserver: %w", err))
		}
	}
	c.closeLogs()
	if c.restartable {
		// The logs and certificates stay for diagnosis; the data can be large.
		errs = append(errs, os.RemoveAll(filepath.Join(c.WorkDir, "etcd-data")))
	}
	return errors.Join(errs...)
}

func (c *Cluster) track(p *process) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return errors.Join(errors.New("cluster already stopped"), p.stop())
	}
	c.processes = append(c.processes, p)
	return nil
}
