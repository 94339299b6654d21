// Package watches holds what the operator's controllers share about what
// they watch: the one request every whole-network controller reconciles
// (PodNetwork "default"), the node update predicates that keep heartbeats
// from waking them, and the node cache transform that keeps only the node
// fields they read.
package watches
