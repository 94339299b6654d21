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

import "net/netip"

// Held returns every holding, confirmed or provisional (a write in flight
// may have stored it), unsorted: what NodeIPAM's block store must keep
// issued. Holdings wider or narrower than a block are returned as held.
func (a *Allocator) Held() []netip.Prefix {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]netip.Prefix, 0, len(a.owners))
	for _, hs := range a.owners {
		out = append(out, hs...)
	}
	return out
}
