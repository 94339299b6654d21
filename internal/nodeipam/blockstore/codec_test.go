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

package blockstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"go4.org/netipx"

	"podnetwork.io/operator/internal/allocator"
)

var t0 = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

func mustRange(t testing.TB, s Section) allocator.Range {
	t.Helper()
	r, err := allocator.NewRange(s.Prefix, s.NodeMaskSize)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func blockRange(r allocator.Range, lo, hi int) netipx.IPRange {
	return netipx.IPRangeFrom(r.Block(lo).Addr(), netipx.PrefixLastIP(r.Block(hi)))
}

func setOf(t testing.TB, rs ...netipx.IPRange) *netipx.IPSet {
	t.Helper()
	var b netipx.IPSetBuilder
	for _, r := range rs {
		b.AddRange(r)
	}
	s, err := b.IPSet()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// state is the reading of one block after a decode: issued, freed since
// at, or free.
type state struct {
	issued bool
	freed  bool
	at     time.Time
}

func stateOf(c Content, b netip.Prefix) state {
	if c.Issued != nil && c.Issued.OverlapsPrefix(b) {
		return state{issued: true}
	}
	var st state
	for _, f := range c.Freed {
		if f.Range.Contains(b.Addr()) && (!st.freed || f.At.After(st.at)) {
			st = state{freed: true, at: f.At}
		}
	}
	return st
}

// atLeastAsSafe reports whether got quarantines block b at least as long
// as want does: issued beats everything, a later freed time beats an
// earlier one.
func atLeastAsSafe(got, want state) bool {
	switch {
	case want.issued:
		return got.issued
	case want.freed:
		return got.issued || (got.freed && !got.at.Before(want.at))
	}
	return true
}

func TestRoundTrip(t *testing.T) {
	v4 := Section{Prefix: netip.MustParsePrefix("10.0.0.0/16"), NodeMaskSize: 24}
	v6 := Section{Prefix: netip.MustParsePrefix("fd99::/40"), NodeMaskSize: 64}
	r4, r6 := mustRange(t, v4), mustRange(t, v6)
	freedAt := t0.Add(-30 * time.Second)
	c := Content{
		Issued: setOf(t, blockRange(r4, 0, 9), blockRange(r4, 200, 200), blockRange(r6, 1<<20, 1<<20+63),
			netipx.RangeOfPrefix(netip.MustParsePrefix("192.168.7.0/24"))), // an orphan
		Freed: []Freed{
			{Range: blockRange(r4, 10, 12), At: freedAt},
			{Range: blockRange(r4, 5, 5), At: freedAt}, // issued wins
			{Range: blockRange(r6, 7, 7), At: freedAt.Add(-time.Hour)},
		},
	}
	data, co, err := Encode(c, []Section{v6, v4}, t0, DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	if co.Any() {
		t.Fatalf("coarsened a small store: %+v", co)
	}
	got, written, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !written.Equal(t0) {
		t.Errorf("written %s, want %s", written, t0)
	}
	if !got.Issued.Equal(c.Issued) {
		t.Errorf("issued %v, want %v", got.Issued.Prefixes(), c.Issued.Prefixes())
	}
	cases := []struct {
		block netip.Prefix
		want  state
	}{
		{r4.Block(5), state{issued: true}},
		{r4.Block(11), state{freed: true, at: freedAt}},
		{r4.Block(13), state{}},
		{r6.Block(7), state{freed: true, at: freedAt.Add(-time.Hour)}},
		{r6.Block(8), state{}},
	}
	for _, tc := range cases {
		if st := stateOf(got, tc.block); st != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.block, st, tc.want)
		}
	}
}

func TestTimesRoundUp(t *testing.T) {
	s := Section{Prefix: netip.MustParsePrefix("10.0.0.0/24"), NodeMaskSize: 28}
	r := mustRange(t, s)
	at := t0.Add(-1500 * time.Millisecond)
	data, _, err := Encode(Content{Freed: []Freed{{Range: blockRange(r, 1, 1), At: at}}}, []Section{s}, t0.Add(-time.Nanosecond), DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(-time.Second); len(got.Freed) != 1 || !got.Freed[0].At.Equal(want) {
		t.Fatalf("freed %+v, want one run at %s (rounded up)", got.Freed, want)
	}
}

func TestPartialAndOutsideFreedKeptAsIssued(t *testing.T) {
	s := Section{Prefix: netip.MustParsePrefix("10.0.0.0/24"), NodeMaskSize: 28}
	half := netipx.RangeOfPrefix(netip.MustParsePrefix("10.0.0.16/29"))   // half a block
	outside := netipx.RangeOfPrefix(netip.MustParsePrefix("10.9.0.0/28")) // in no section
	data, _, err := Encode(Content{Freed: []Freed{{Range: half, At: t0}, {Range: outside, At: t0}}}, []Section{s}, t0, DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"10.0.0.16/28", "10.9.0.0/28"} {
		if !got.Issued.ContainsPrefix(netip.MustParsePrefix(p)) {
			t.Errorf("%s is not kept as issued: %v", p, got.Issued.Prefixes())
		}
	}
	if len(got.Freed) != 0 {
		t.Errorf("freed %+v, want none", got.Freed)
	}
}

// TestWorstCaseFitsTheBudget: 100,000 nodes over 128 IPv6 ranges of 2^24
// blocks, fragmented at worst (every held block between two freed ones,
// each freed at another second), and orphans: the store fits the budget,
// coarsened, and the coarsening only quarantines more.
func TestWorstCaseFitsTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 100,000-node store: about 5 s under -race")
	}
	var specs []Section
	for i := range 128 {
		specs = append(specs, Section{Prefix: netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0x99, byte(i)}), 40), NodeMaskSize: 64})
	}
	const nodes = 100_000
	var issued netipx.IPSetBuilder
	var freed []Freed
	type probe struct {
		block netip.Prefix
		want  state
	}
	var probes []probe
	stride := (1 << 24) / (nodes/len(specs) + 1) / 2
	for n := range nodes {
		s := specs[n%len(specs)]
		r := mustRange(t, s)
		idx := 2 * stride * (n / len(specs))
		issued.AddPrefix(r.Block(idx))
		at := t0.Add(-time.Duration(n) * time.Second)
		freed = append(freed, Freed{Range: blockRange(r, idx+stride, idx+stride), At: at})
		if n%997 == 0 {
			probes = append(probes, probe{r.Block(idx), state{issued: true}}, probe{r.Block(idx + stride), state{freed: true, at: at}})
		}
	}
	for i := range 1000 {
		issued.AddPrefix(netip.PrefixFrom(netip.AddrFrom4([4]byte{100, 64, byte(i >> 8), byte(i)}), 32))
	}
	set, _ := issued.IPSet()
	data, co, err := Encode(Content{Issued: set, Freed: freed}, specs, t0, DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, coarsening %+v", len(data), co)
	if len(data) > DefaultBudget {
		t.Fatalf("%d bytes, over the budget of %d", len(data), DefaultBudget)
	}
	got, _, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Issued.ContainsPrefix(netip.MustParsePrefix("100.64.3.231/32")) {
		t.Errorf("an orphan was lost")
	}
	for _, p := range probes {
		if st := stateOf(got, p.block); !atLeastAsSafe(st, p.want) {
			t.Fatalf("%s: %+v after coarsening, less safe than %+v", p.block, st, p.want)
		}
	}
}

// TestCoarseningNeverFrees drives random contents through small budgets:
// every block reads at least as safe after the round trip.
func TestCoarseningNeverFrees(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 1))
	s := Section{Prefix: netip.MustParsePrefix("10.0.0.0/16"), NodeMaskSize: 26}
	r := mustRange(t, s)
	for iter := range 200 {
		var issued netipx.IPSetBuilder
		var freed []Freed
		want := map[int]state{}
		for range rnd.IntN(60) {
			lo := rnd.IntN(r.Capacity())
			hi := min(r.Capacity()-1, lo+rnd.IntN(8))
			if rnd.IntN(2) == 0 {
				issued.AddRange(blockRange(r, lo, hi))
				for i := lo; i <= hi; i++ {
					want[i] = state{issued: true}
				}
				continue
			}
			at := t0.Add(-time.Duration(rnd.IntN(100)) * time.Second)
			freed = append(freed, Freed{Range: blockRange(r, lo, hi), At: at})
			for i := lo; i <= hi; i++ {
				if w := want[i]; !w.issued && (!w.freed || at.After(w.at)) {
					want[i] = state{freed: true, at: at}
				}
			}
		}
		set, _ := issued.IPSet()
		budget := 30 + rnd.IntN(300) // 26 bytes hold one section of one run
		data, _, err := Encode(Content{Issued: set, Freed: freed}, []Section{s}, t0, budget)
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		got, _, err := Decode(data)
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		for i, w := range want {
			if st := stateOf(got, r.Block(i)); !atLeastAsSafe(st, w) {
				t.Fatalf("iteration %d, budget %d: block %d reads %+v, less safe than %+v", iter, budget, i, st, w)
			}
		}
	}
}

func TestDecodeRefusesDamage(t *testing.T) {
	s := Section{Prefix: netip.MustParsePrefix("10.0.0.0/16"), NodeMaskSize: 24}
	r := mustRange(t, s)
	data, _, err := Encode(Content{Issued: setOf(t, blockRange(r, 3, 9))}, []Section{s}, t0, DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty":       nil,
		"text":        []byte("10.0.0.0/24\n"),
		"truncated":   data[:len(data)-1],
		"a bit flips": func() []byte { b := append([]byte(nil), data...); b[6] ^= 1; return b }(),
	}
	for name, b := range cases {
		if _, _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	s := Section{Prefix: netip.MustParsePrefix("10.0.0.0/16"), NodeMaskSize: 24}
	r := mustRange(f, s)
	for _, c := range []Content{
		{Issued: setOf(f, blockRange(r, 3, 9))},
		{Freed: []Freed{{Range: blockRange(r, 1, 2), At: t0}}},
	} {
		data, _, err := Encode(c, []Section{s}, t0, DefaultBudget)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, written, err := Decode(data)
		if err != nil {
			return
		}
		// What decodes encodes again to the same reading.
		again, _, err := Encode(c, nil, written, 1<<30)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		c2, _, err := Decode(again)
		if err != nil {
			t.Fatalf("decoding the re-encoded store: %v", err)
		}
		if !c2.Issued.Equal(c.Issued) && len(c.Freed) == 0 {
			t.Fatalf("issued changed: %v != %v", c2.Issued.Prefixes(), c.Issued.Prefixes())
		}
		_ = fmt.Sprint(c2)
	})
}
