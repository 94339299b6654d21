// Package controllers wires the operator together: Options composes the
// options of every subsystem (each binds its own flags), Scheme holds the
// types they use, and Run builds the manager (leader election, probes,
// metrics, the node cache) and sets up each subsystem:
//
//   - controllers/lifecycle: the range lifecycle, writer of the PodNetwork
//     status it owns;
//   - controllers/nodeipam: the built-in NodeIPAM, writer of node podCIDRs;
//   - controllers/adapters: the kube-proxy and flannel adapters;
//   - controllers/metrics: the operator's Prometheus metrics;
//   - controllers/watches: what the controllers share about their watches.
//
// Each subsystem package is thin: it reads, calls the decisions in
// internal/ and writes. The envtest suite of this package runs the operator
// as wired, through Run.
package controllers
