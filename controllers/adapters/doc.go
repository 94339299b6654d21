// Package adapters makes components that do not speak the PodNetwork
// protocol (kube-proxy, flannel) consumers: one Reconciler per enabled
// component writes the covering prefixes of the desired ranges into the
// component's ConfigMap, rolls its DaemonSet and acknowledges the phases in
// the adapter's own PodNetworkConsumer. What to write, when to reject and
// whether a rollout is complete is decided in internal/adapters; this
// package reads, calls it and writes. Options holds the adapters' flags.
package adapters
