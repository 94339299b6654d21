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

package programs

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"

	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/cluster"
	"podnetwork.io/operator/test/framework/netnode"
)

// APIServerHostPort returns the host:port the control plane serves on, for
// the programs' kubeconfigs and the in-cluster environment.
func APIServerHostPort(cp *framework.ControlPlane) (string, error) {
	u, err := url.Parse(cp.Config.Host)
	if err != nil {
		return "", fmt.Errorf("reading the apiserver address: %w", err)
	}
	return u.Host, nil
}

// StartKubelet runs the kubelet stand-in of every node of network in its
// own manager, as kubelets run apart from the control plane, with the
// real flanneld (bin/flanneld) and kube-proxy (the control plane's assets)
// for the DaemonSets' containers. Stop the returned process, then the
// kubelet's programs (StopAll), at the end.
func StartKubelet(ctx context.Context, cp *framework.ControlPlane, network *netnode.Network) (*netnode.Kubelet, *framework.Process, error) {
	root, err := cluster.RepoRoot()
	if err != nil {
		return nil, nil, err
	}
	binaries := map[string]string{
		FlannelContainer:   filepath.Join(root, "bin", "flanneld"),
		KubeProxyContainer: filepath.Join(cp.Cluster.AssetsDir, "kube-proxy"),
	}
	for _, b := range binaries {
		if _, err := os.Stat(b); err != nil {
			return nil, nil, fmt.Errorf("%w (make test-assets builds it)", err)
		}
	}
	apiServer, err := APIServerHostPort(cp)
	if err != nil {
		return nil, nil, err
	}
	addr, err := netip.ParseAddrPort(apiServer)
	if err != nil {
		return nil, nil, fmt.Errorf("the apiserver address %q: %w", apiServer, err)
	}
	mgr, err := framework.NewManager(cp.Config)
	if err != nil {
		return nil, nil, err
	}
	kubelet := &netnode.Kubelet{
		Client: cp.Client, Network: network, Binaries: binaries,
		APIServer: addr, CACert: cp.Config.CAData,
		WorkDir: filepath.Join(cp.Cluster.WorkDir, "nodes"),
	}
	if err := kubelet.SetupWithManager(mgr); err != nil {
		return nil, nil, err
	}
	return kubelet, framework.StartManager(ctx, "the kubelet stand-in", mgr), nil
}
