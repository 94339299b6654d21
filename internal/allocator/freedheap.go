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
	"container/heap"
	"time"
)

// freedEntry is a block of one pool that no owner holds and that is still
// remembered as freed at the given time.
type freedEntry struct {
	at  time.Time
	idx int
}

// before orders entries by freed time, then by block index, so reuse is
// first-in first-out and ties are deterministic.
func (e freedEntry) before(o freedEntry) bool {
	if !e.at.Equal(o.at) {
		return e.at.Before(o.at)
	}
	return e.idx < o.idx
}

// freedHeap is a min-heap of freedEntry with an index from block to heap
// position, so a freed block can be taken out of the middle when it is
// re-adopted or forgotten. Its size is bounded by Options.MaxQuarantine.
type freedHeap struct {
	items []freedEntry
	pos   map[int]int
}

func newFreedHeap() *freedHeap { return &freedHeap{pos: map[int]int{}} }

// heap.Interface, used only through the methods below.
func (h *freedHeap) Len() int           { return len(h.items) }
func (h *freedHeap) Less(i, j int) bool { return h.items[i].before(h.items[j]) }
func (h *freedHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i].idx] = i
	h.pos[h.items[j].idx] = j
}
func (h *freedHeap) Push(x any) {
	e := x.(freedEntry)
	h.pos[e.idx] = len(h.items)
	h.items = append(h.items, e)
}
func (h *freedHeap) Pop() any {
	e := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	delete(h.pos, e.idx)
	return e
}

// lookup returns the freed time of block idx.
func (h *freedHeap) lookup(idx int) (time.Time, bool) {
	i, ok := h.pos[idx]
	if !ok {
		return time.Time{}, false
	}
	return h.items[i].at, true
}

// put records block idx as freed at at, replacing an earlier record.
func (h *freedHeap) put(idx int, at time.Time) {
	if i, ok := h.pos[idx]; ok {
		h.items[i].at = at
		heap.Fix(h, i)
		return
	}
	heap.Push(h, freedEntry{at: at, idx: idx})
}

// remove forgets block idx and reports whether it was present.
func (h *freedHeap) remove(idx int) bool {
	i, ok := h.pos[idx]
	if !ok {
		return false
	}
	heap.Remove(h, i)
	return true
}

// min returns the entry freed longest ago.
func (h *freedHeap) min() (freedEntry, bool) {
	if len(h.items) == 0 {
		return freedEntry{}, false
	}
	return h.items[0], true
}

// reset forgets every entry.
func (h *freedHeap) reset() {
	h.items = h.items[:0]
	clear(h.pos)
}
