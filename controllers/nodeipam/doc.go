// Package nodeipam is the controller side of the built-in NodeIPAM: the
// start-up rebuild, the node reconciler that writes node.spec.podCIDRs and
// the PodNetwork reconciler that reports usage, quarantine and conflicts and
// acknowledges range phases as the consumer "node-ipam". Every decision is
// made by internal/nodeipam (State and the pure functions around it); this
// package translates watch events into calls of State, writes the results,
// logs and wakes the reconcilers the results concern. Options holds
// NodeIPAM's flags.
package nodeipam
