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

package lifecycle

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// NodeMemo remembers NodeFrom's result per node object across reconciles.
// The lifecycle controller reads nodes from the informer's store, which
// never changes a stored object (an update stores a new one, and readers
// get copies), so the same pointer means the same node: only the nodes that
// changed since the last reconcile are converted again. With 100,000 nodes
// the conversion was a third of the operator's CPU in a burst
// (docs/performance.md). Lists of fresh objects (a fake client, the
// kubectl plugin) just miss every time. The zero value is ready to use.
type NodeMemo struct {
	mu   sync.Mutex
	gen  uint64
	seen map[*corev1.Node]memoEntry
}

type memoEntry struct {
	node Node
	gen  uint64
}

// From converts nodes like NodeFrom, reusing the result for every object
// From saw last time, and forgets the objects it did not see this time.
func (m *NodeMemo) From(nodes []*corev1.Node) []Node {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen = make(map[*corev1.Node]memoEntry, len(nodes))
	}
	m.gen++
	out := make([]Node, 0, len(nodes))
	for _, n := range nodes {
		e, ok := m.seen[n]
		if !ok {
			e.node = NodeFrom(n)
		}
		e.gen = m.gen
		m.seen[n] = e
		out = append(out, e.node)
	}
	for n, e := range m.seen {
		if e.gen != m.gen {
			delete(m.seen, n)
		}
	}
	return out
}

// Len is how many node objects the memo holds.
func (m *NodeMemo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.seen)
}
