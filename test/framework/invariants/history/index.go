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
	"net/netip"
	"slices"

	"go4.org/netipx"
)

// maxEnumeration bounds how many sub-prefixes overlapping enumerates before
// it scans a length's entries instead.
const maxEnumeration = 1 << 12

// prefixIndex maps prefixes to values and answers "which entries overlap
// p" without scanning them all: entries are kept per family and prefix
// length, so a query looks up p's supernet at each length in use (one map
// lookup each) and, for the rare length longer than p's, enumerates p's
// sub-prefixes or scans that length. Node blocks all have a few lengths, so
// a query costs a handful of lookups.
type prefixIndex[V comparable] struct {
	byLen [2]map[int]map[netip.Prefix][]V // [family][bits]
	n     int
}

// hit is one overlapping entry.
type hit[V comparable] struct {
	Prefix netip.Prefix
	Value  V
}

func family(p netip.Prefix) int {
	if p.Addr().Is4() {
		return 0
	}
	return 1
}

func (x *prefixIndex[V]) add(p netip.Prefix, v V) {
	p = p.Masked()
	f := family(p)
	if x.byLen[f] == nil {
		x.byLen[f] = map[int]map[netip.Prefix][]V{}
	}
	m := x.byLen[f][p.Bits()]
	if m == nil {
		m = map[netip.Prefix][]V{}
		x.byLen[f][p.Bits()] = m
	}
	m[p] = append(m[p], v)
	x.n++
}

// remove drops the entry (p, v), if present.
func (x *prefixIndex[V]) remove(p netip.Prefix, v V) {
	p = p.Masked()
	m := x.byLen[family(p)][p.Bits()]
	vs := m[p]
	i := slices.Index(vs, v)
	if i < 0 {
		return
	}
	x.n--
	if len(vs) == 1 {
		delete(m, p)
		if len(m) == 0 {
			delete(x.byLen[family(p)], p.Bits())
		}
		return
	}
	m[p] = slices.Delete(vs, i, i+1)
}

// overlapping returns every entry whose prefix overlaps p.
func (x *prefixIndex[V]) overlapping(p netip.Prefix) []hit[V] {
	p = p.Masked()
	var out []hit[V]
	for bits, m := range x.byLen[family(p)] {
		if bits <= p.Bits() {
			q := netip.PrefixFrom(p.Addr(), bits).Masked()
			for _, v := range m[q] {
				out = append(out, hit[V]{q, v})
			}
			continue
		}
		if span := bits - p.Bits(); span < 31 && 1<<span <= min(maxEnumeration, len(m)) {
			q := netip.PrefixFrom(p.Addr(), bits)
			for range 1 << span {
				for _, v := range m[q] {
					out = append(out, hit[V]{q, v})
				}
				q = netip.PrefixFrom(netipx.PrefixLastIP(q).Next(), bits)
			}
			continue
		}
		for q, vs := range m {
			if p.Contains(q.Addr()) {
				for _, v := range vs {
					out = append(out, hit[V]{q, v})
				}
			}
		}
	}
	return out
}
