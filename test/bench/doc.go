// Package bench compares the operator's node block allocator with
// kube-controller-manager's cidrset, the allocator behind
// --allocate-node-cidrs, on the same machine in the same run, so the ratio
// means something even where absolute times are noise.
//
// Run from this directory (make bench does):
//
//	go test -run '^$' -bench . -benchmem -count 6 . | tee micro.txt
//	benchstat -col /impl micro.txt
//
// Names are benchstat keys: BenchmarkAllocateNext/range=v4-8-24/fill=99.9/impl=ours.
// Results and how to read them: docs/performance.md.
package bench
