// Package kubeproxy is the pure part of the kube-proxy adapter: it parses
// kube-proxy's configuration file (the config.conf key of kubeadm's
// kube-system/kube-proxy ConfigMap) with the real KubeProxyConfiguration type
// and rewrites its clusterCIDR field, and only that field, byte for byte.
//
// kube-proxy uses clusterCIDR only in detectLocalMode ClusterCIDR (the Linux
// default when the mode is empty) to tell pod traffic from other traffic. It
// takes at most one CIDR per family, splits the value on "," without trimming
// spaces, and reads the file only at start (its file watch does not fire for
// ConfigMap volume updates), so the adapter writes one covering prefix per
// family, IPv4 first, and restarts the DaemonSet. The other detect-local
// modes do not depend on the pod ranges at all.
package kubeproxy
