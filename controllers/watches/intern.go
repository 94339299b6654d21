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

package watches

import "sync"

// maxInterned bounds the strings an internPool keeps: far more than the
// distinct label keys and shared values of a real cluster, and at most a
// megabyte should node labels carry unique values.
const maxInterned = 1 << 14

// internPool hands out one copy of each string it has seen. Decoding
// allocates every label key and value again for every node, though a
// kubelet's labels are the same keys on every node and mostly the same
// values (os, arch, zone, instance type): one shared copy saves about
// 300 bytes of heap per cached node. Once full it keeps what it holds and
// returns other strings as given, so unique values cannot grow it.
type internPool struct {
	mu      sync.Mutex
	strings map[string]string
}

func newInternPool() *internPool {
	return &internPool{strings: map[string]string{}}
}

// intern returns the pool's copy of s.
func (p *internPool) intern(s string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.strings[s]; ok {
		return c
	}
	if len(p.strings) < maxInterned {
		p.strings[s] = s
	}
	return s
}

// labels returns a copy of labels with interned keys and values; a value
// equal to the node's name (the hostname label) shares the name's string.
func (p *internPool) labels(name string, labels map[string]string) map[string]string {
	if labels == nil {
		return nil
	}
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		if v == name {
			v = name
		} else {
			v = p.intern(v)
		}
		out[p.intern(k)] = v
	}
	return out
}
