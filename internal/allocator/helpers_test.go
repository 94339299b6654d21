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

package allocator

import (
	"net/netip"
	"testing"
	"time"
)

var (
	mp = netip.MustParsePrefix
	t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

func newTestAllocator(t testing.TB, opts Options, specs ...RangeSpec) *Allocator {
	t.Helper()
	a := New(opts)
	if err := a.SetRanges(specs); err != nil {
		t.Fatalf("SetRanges: %v", err)
	}
	return a
}

func spec(name, prefix string, mask int) RangeSpec {
	return RangeSpec{Name: name, Prefix: mp(prefix), NodeMaskSize: mask, Active: true}
}

func mustAssign(t testing.TB, a *Allocator, owner, rng string, now time.Time) netip.Prefix {
	t.Helper()
	p, err := a.Assign(owner, rng, now)
	if err != nil {
		t.Fatalf("Assign(%q, %q): %v", owner, rng, err)
	}
	return p
}

func mustUsage(t testing.TB, a *Allocator, rng string, now time.Time) Usage {
	t.Helper()
	u, err := a.Usage(rng, now)
	if err != nil {
		t.Fatalf("Usage(%q): %v", rng, err)
	}
	if u.Allocated+u.Free+u.Quarantined != u.Capacity {
		t.Fatalf("Usage(%q) does not add up: %+v", rng, u)
	}
	return u
}
