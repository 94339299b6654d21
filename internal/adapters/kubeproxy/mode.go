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

package kubeproxy

import (
	"fmt"

	kubeproxyconfigv1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
)

// kube-proxy's detect-local modes. The staging module only declares the
// LocalMode type; the constants live in kube-proxy's internal package.
const (
	ModeClusterCIDR         kubeproxyconfigv1alpha1.LocalMode = "ClusterCIDR"
	ModeNodeCIDR            kubeproxyconfigv1alpha1.LocalMode = "NodeCIDR"
	ModeBridgeInterface     kubeproxyconfigv1alpha1.LocalMode = "BridgeInterface"
	ModeInterfaceNamePrefix kubeproxyconfigv1alpha1.LocalMode = "InterfaceNamePrefix"
)

// rangeIndependent returns why cfg's detect-local mode does not depend on the
// pod ranges, or "" when it does (ClusterCIDR, or unset, which is ClusterCIDR
// on Linux). An unknown mode is an error: kube-proxy would refuse it too.
func rangeIndependent(cfg *kubeproxyconfigv1alpha1.KubeProxyConfiguration) (string, error) {
	switch cfg.DetectLocalMode {
	case "", ModeClusterCIDR:
		return "", nil
	case ModeNodeCIDR:
		return "detectLocalMode is NodeCIDR: each kube-proxy reads its own node's podCIDRs at start, so range changes need no kube-proxy change " +
			"(a kube-proxy whose node has no podCIDR yet waits up to 5 minutes for one, then exits and is restarted)", nil
	case ModeBridgeInterface:
		return fmt.Sprintf("detectLocalMode is BridgeInterface: kube-proxy recognises pod traffic by the bridge %q, not by address, so range changes need no kube-proxy change",
			cfg.DetectLocal.BridgeInterface), nil
	case ModeInterfaceNamePrefix:
		return fmt.Sprintf("detectLocalMode is InterfaceNamePrefix: kube-proxy recognises pod traffic by the interfaces named %q*, not by address, so range changes need no kube-proxy change",
			cfg.DetectLocal.InterfaceNamePrefix), nil
	default:
		return "", fmt.Errorf("detectLocalMode %q is not one of ClusterCIDR, NodeCIDR, BridgeInterface or InterfaceNamePrefix", cfg.DetectLocalMode)
	}
}
