// Package heapsize measures how much live heap objects keep, for the
// benchmarks that report bytes per cached or rebuilt node.
package heapsize

import "runtime"

// Retained returns the live heap held by n objects made by mk.
func Retained(n int, mk func() any) float64 {
	keep := make([]any, n)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range keep {
		keep[i] = mk()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return float64(after.HeapAlloc) - float64(before.HeapAlloc)
}
