// Package controllers holds the operator's reconcilers. They are thin: each
// reads what it needs, calls the pure logic in internal/ and writes status
// once. The manager wiring (flags, leader election, probes, metrics) is in
// manager.go.
package controllers
