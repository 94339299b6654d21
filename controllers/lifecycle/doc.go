// Package lifecycle is the controller of the range lifecycle: it moves every
// range of PodNetwork "default" through Pending → Active → Draining →
// Released as the consumers acknowledge each phase. It reads the PodNetwork,
// the consumers, the nodes and the ServiceCIDRs, lets the pure
// internal/lifecycle.Compute decide, then writes the status it owns in one
// server-side apply, emits the events, labels the consumers and manages the
// podnetwork.io/drain finalizer. Options holds its flags.
package lifecycle
