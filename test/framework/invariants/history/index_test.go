/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package history

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
)

// TestPrefixIndex compares overlapping against comparing every entry, on
// random adds and removes of prefixes of mixed lengths in both families.
func TestPrefixIndex(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 0))
	random := func() netip.Prefix {
		if rnd.IntN(4) == 0 {
			a := netip.AddrFrom16([16]byte{0xfd, 0x99, 0, 0, 0, 0, byte(rnd.IntN(4)), byte(rnd.IntN(256))})
			return netip.PrefixFrom(a, 52+rnd.IntN(24)).Masked()
		}
		a := netip.AddrFrom4([4]byte{10, 0, byte(rnd.IntN(16)), byte(rnd.IntN(256))})
		return netip.PrefixFrom(a, 14+rnd.IntN(15)).Masked()
	}
	type entry struct {
		p netip.Prefix
		v int
	}
	var x prefixIndex[int]
	var all []entry
	for i := range 3000 {
		if len(all) > 0 && rnd.IntN(3) == 0 {
			j := rnd.IntN(len(all))
			x.remove(all[j].p, all[j].v)
			all = slices.Delete(all, j, j+1)
		} else {
			e := entry{random(), i}
			x.add(e.p, e.v)
			all = append(all, e)
		}
		q := random()
		var want, got []entry
		for _, e := range all {
			if e.p.Overlaps(q) {
				want = append(want, e)
			}
		}
		for _, h := range x.overlapping(q) {
			got = append(got, entry{h.Prefix, h.Value})
		}
		cmp := func(a, b entry) int { return a.v - b.v }
		slices.SortFunc(want, cmp)
		slices.SortFunc(got, cmp)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: overlapping(%s) = %v, want %v", i, q, got, want)
		}
		if x.n != len(all) {
			t.Fatalf("step %d: %d entries, want %d", i, x.n, len(all))
		}
	}
}
