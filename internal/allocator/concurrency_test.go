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
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// TestConcurrentUse runs assign/release/query loops from several goroutines
// (run with -race) and checks that no two owners ever hold the same block.
func TestConcurrentUse(t *testing.T) {
	a := newTestAllocator(t, Options{RecycleDelay: time.Millisecond, WhenExhausted: Wait},
		spec("v4", "10.0.0.0/20", 24), spec("v6", "fd00::/60", 64))
	var (
		mu   sync.Mutex
		held = map[netip.Prefix]string{}
		wg   sync.WaitGroup
		errc = make(chan error, 8)
	)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				owner := fmt.Sprintf("w%d-%d", w, i%5)
				now := t0.Add(time.Duration(i) * time.Millisecond)
				switch i % 3 {
				case 0, 1:
					ps, err := a.AssignMany(owner, []string{"v4", "v6"}, now)
					if err != nil {
						if !errors.Is(err, ErrExhausted) && !errors.Is(err, ErrQuarantined) {
							errc <- err
						}
						continue
					}
					mu.Lock()
					for _, p := range ps {
						if o, ok := held[p]; ok && o != owner {
							errc <- fmt.Errorf("%v handed to %s while held by %s", p, owner, o)
						}
						held[p] = owner
					}
					mu.Unlock()
				case 2:
					mu.Lock()
					for _, p := range a.Release(owner, now) {
						delete(held, p)
					}
					mu.Unlock()
				}
				if i%50 == 0 {
					// A rebuild's record: only unallocated blocks are held back.
					a.HoldBack([]netip.Prefix{mp("10.0.0.0/21"), mp("fd00::/62")}, now)
				}
				_, _ = a.Usage("v4", now)
				_, _ = a.Holders("v6")
				_ = a.Quarantine()
				_, _ = a.HeldBack(now)
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	mustInvariants(t, a)
}
