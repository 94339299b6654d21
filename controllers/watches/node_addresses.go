package watches

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
)

// NodeAddresses returns a node's InternalIP and ExternalIP addresses, the
// ones a pod range must never contain, skipping any that do not parse (the
// apiserver validates them, so only a broken object has one). Every
// controller reads node addresses with this one rule.
func NodeAddresses(n *corev1.Node) []netip.Addr {
	var out []netip.Addr
	for _, a := range n.Status.Addresses {
		if a.Type != corev1.NodeInternalIP && a.Type != corev1.NodeExternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil {
			out = append(out, ip.Unmap())
		}
	}
	return out
}
