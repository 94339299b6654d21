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
	"math/rand/v2"
	"testing"
)

// TestBitmapAgainstModel drives the two-level bitmap with random operations
// (setSpan and clearSpan included) and compares it with a []bool after each
// one, across sizes around word and summary-word boundaries.
func TestBitmapAgainstModel(t *testing.T) {
	for _, n := range []int{1, 2, 63, 64, 65, 127, 128, 4095, 4096, 4097, 64*64*2 + 5} {
		rnd := rand.New(rand.NewPCG(uint64(n), 7))
		b := newBitmap(n)
		model := make([]bool, n)
		for op := range 3000 {
			i := rnd.IntN(n)
			j := min(n-1, i+rnd.IntN(200))
			switch rnd.IntN(7) {
			case 0, 1:
				if got, want := b.set(i), !model[i]; got != want {
					t.Fatalf("n=%d op=%d set(%d)=%v want %v", n, op, i, got, want)
				}
				model[i] = true
			case 2:
				if got, want := b.clear(i), model[i]; got != want {
					t.Fatalf("n=%d op=%d clear(%d)=%v want %v", n, op, i, got, want)
				}
				model[i] = false
			case 3:
				var already []int
				b.setRange(i, j, func(k int) { already = append(already, k) })
				var want []int
				for k := i; k <= j; k++ {
					if model[k] {
						want = append(want, k)
					}
					model[k] = true
				}
				if !equalInts(already, want) {
					t.Fatalf("n=%d setRange(%d,%d) already=%v want %v", n, i, j, already, want)
				}
			case 4:
				var cleared, want []int
				keepOdd := rnd.IntN(2) == 0
				var keep func(int) bool
				if keepOdd {
					keep = func(k int) bool { return k%2 == 1 }
				}
				b.clearRange(i, j, keep, func(k int) { cleared = append(cleared, k) })
				for k := i; k <= j; k++ {
					if model[k] && !(keepOdd && k%2 == 1) {
						want = append(want, k)
						model[k] = false
					}
				}
				if !equalInts(cleared, want) {
					t.Fatalf("n=%d clearRange(%d,%d) cleared=%v want %v", n, i, j, cleared, want)
				}
			case 5:
				b.setSpan(i, j)
				for k := i; k <= j; k++ {
					model[k] = true
				}
			case 6:
				b.clearSpan(i, j)
				for k := i; k <= j; k++ {
					model[k] = false
				}
			}
			if err := b.check(); err != nil {
				t.Fatalf("n=%d op=%d: %v", n, op, err)
			}
			wantZero := -1
			for k, v := range model {
				if !v {
					wantZero = k
					break
				}
			}
			got, ok := b.firstZero()
			if (wantZero >= 0) != ok || (ok && got != wantZero) {
				t.Fatalf("n=%d op=%d firstZero=%d,%v want %d", n, op, got, ok, wantZero)
			}
		}
	}
}

func TestBitmapFull(t *testing.T) {
	for _, n := range []int{1, 64, 65, 4096, 4097} {
		b := newBitmap(n)
		b.setRange(0, n-1, func(int) { t.Fatal("nothing was set") })
		if _, ok := b.firstZero(); ok || b.ones != n {
			t.Fatalf("n=%d: full bitmap has a zero (ones=%d)", n, b.ones)
		}
		b.clear(n - 1)
		if i, ok := b.firstZero(); !ok || i != n-1 {
			t.Fatalf("n=%d: firstZero=%d,%v", n, i, ok)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
