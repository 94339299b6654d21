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
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/onsi/gomega"

	"podnetwork.io/operator/test/framework/netnode"
)

// What the real programs did, read from inside the node namespaces.

// SubnetEnv returns what flanneld wrote to /run/flannel/subnet.env on a
// node, as key → value, empty while there is no file.
func SubnetEnv(kubelet *netnode.Kubelet, node string) map[string]string {
	b, err := os.ReadFile(filepath.Join(kubelet.HostPath(node, "/run/flannel"), "subnet.env"))
	out := map[string]string{}
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// Rules returns the output of a rule-listing command (iptables-save,
// ip6tables-save, nft list ruleset) in a node's namespace.
func Rules(ctx context.Context, network *netnode.Network, node string, command ...string) (string, error) {
	n := network.Node(node)
	if n == nil {
		return "", fmt.Errorf("no node %s in network %s", node, network.Bridge)
	}
	return n.Output(ctx, command[0], command[1:]...)
}

// FlannelMasquerades matches flanneld's --ip-masq rule for its Network
// (IPv4) or IPv6Network: traffic from the pod network to outside it (not
// multicast) is masqueraded.
func FlannelMasquerades(network string) gomega.OmegaMatcher {
	return gomega.MatchRegexp(`-A FLANNEL-POSTRTG -s ` + regexp.QuoteMeta(network) + ` ! -d (224\.0\.0\.0/4|ff00::/8) .*-j MASQUERADE`)
}

// KubeProxyMasquerades matches kube-proxy's iptables (or ip6tables) rule
// that marks traffic to a ClusterIP from outside clusterCIDR for
// masquerading.
func KubeProxyMasquerades(clusterCIDR string) gomega.OmegaMatcher {
	return gomega.MatchRegexp(`! -s ` + regexp.QuoteMeta(clusterCIDR) + ` -d \S+ .*-j KUBE-MARK-MASQ`)
}

// KubeProxyMasqueradesTo is KubeProxyMasquerades for one ClusterIP.
func KubeProxyMasqueradesTo(clusterCIDR, clusterIP string) gomega.OmegaMatcher {
	return gomega.MatchRegexp(`! -s ` + regexp.QuoteMeta(clusterCIDR) + ` -d ` + regexp.QuoteMeta(clusterIP) + `(/32|/128)? .*-j KUBE-MARK-MASQ`)
}

// KubeProxyNftMasquerades matches the same rule in kube-proxy's nftables
// mode.
func KubeProxyNftMasquerades(clusterCIDR string) gomega.OmegaMatcher {
	return gomega.MatchRegexp(`ip saddr != ` + regexp.QuoteMeta(clusterCIDR) + ` .*(jump mark-for-masquerade|masquerade)`)
}
