// Package framework is what every suite of the operator builds on: a local
// control plane with the CRDs and an admin client (ControlPlane), the
// operator and consumers running in-process (StartOperator, StartManager,
// Process), object builders in one style (PodNetwork, Range, Consumer,
// Node), the getters specs poll (API) and a recorder of every change the
// specs' invariant checks read afterwards (Recorder).
//
// The functions that return errors work outside ginkgo too (the demo uses
// them); those documented "in a spec" assert with gomega.
package framework
