// Package cidr holds the pure prefix helpers shared by the PodNetwork webhook,
// the NodeIPAM allocator and the consumer adapters (kube-proxy, flannel).
//
// Everything here works on net/netip values and delegates prefix arithmetic to
// net/netip and go4.org/netipx. The package has no state and no Kubernetes
// dependencies, so the same rules apply at admission time and at allocation
// time (a range that passed the webhook can never be rejected later by the
// allocator for a different reason).
package cidr
