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
	"cmp"
	"slices"
	"time"
)

// freedEntry is a block of one pool that no owner holds and that is still
// remembered as freed at the given time.
type freedEntry struct {
	at  time.Time
	idx int
}

// compareEntries orders entries by freed time, then by block index, so reuse
// is first-in first-out and ties are deterministic.
func compareEntries(x, y freedEntry) int {
	if c := x.at.Compare(y.at); c != 0 {
		return c
	}
	return cmp.Compare(x.idx, y.idx)
}

// before reports whether e is reused before o.
func (e freedEntry) before(o freedEntry) bool { return compareEntries(e, o) < 0 }

// minCompactCap is the capacity below which a freedQueue never shrinks.
const minCompactCap = 256

// freedQueue holds the freed blocks of one pool in reuse order: a slice
// sorted by (freed time, block index) whose front is consumed by moving head.
// Freed times are almost always increasing (Release stamps the current time),
// so a new entry is normally appended, and the block taken for reuse or
// forgotten by the MaxQuarantine bound is normally the front one: both O(1).
// Entries out of order (a restored quarantine, an undone assignment) are
// found by binary search and cost a move of the shorter side. It has no
// per-block index: the caller knows the freed time of a block from the
// Allocator's freed map and passes it, so memory is proportional to the
// entries alone (at most four times their count, or minCompactCap), whatever
// the size of the range.
type freedQueue struct {
	items []freedEntry // items[head:] are the entries, sorted by compareEntries
	head  int
}

// Len returns the number of entries.
func (q *freedQueue) Len() int { return len(q.items) - q.head }

// entries returns the entries in reuse order; the caller must not keep it
// across a change.
func (q *freedQueue) entries() []freedEntry { return q.items[q.head:] }

// min returns the entry freed longest ago.
func (q *freedQueue) min() (freedEntry, bool) {
	if q.head == len(q.items) {
		return freedEntry{}, false
	}
	return q.items[q.head], true
}

// find returns the position in items where e is or would be inserted.
func (q *freedQueue) find(e freedEntry) (int, bool) {
	i, found := slices.BinarySearchFunc(q.items[q.head:], e, compareEntries)
	return q.head + i, found
}

// insert adds block idx freed at at; it is a no-op if that exact entry is
// present. The caller removes an earlier entry of the same block first.
func (q *freedQueue) insert(idx int, at time.Time) {
	e := freedEntry{at: at, idx: idx}
	if n := len(q.items); n == q.head || q.items[n-1].before(e) {
		q.append(e)
		return
	}
	i, found := q.find(e)
	switch {
	case found:
	case i == q.head && q.head > 0:
		q.head--
		q.items[q.head] = e
	default:
		q.makeRoom()
		i, _ = q.find(e)
		q.items = slices.Insert(q.items, i, e)
	}
}

// append adds e after every entry.
func (q *freedQueue) append(e freedEntry) {
	q.makeRoom()
	q.items = append(q.items, e)
}

// makeRoom makes sure items has room for one more entry without an implicit
// growth: a full slice whose front quarter or more is consumed is compacted
// in place; otherwise the entries move to a new slice of twice their count.
// Both copy O(entries) once per at least a quarter of as many appends or
// pops, and with shrink the capacity stays within four times the entries.
func (q *freedQueue) makeRoom() {
	if len(q.items) < cap(q.items) {
		return
	}
	if q.head > 0 && q.head >= len(q.items)/4 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
		return
	}
	q.resize(max(minCompactCap, 2*q.Len()))
}

// resize moves the entries to the front of a new slice of capacity c.
func (q *freedQueue) resize(c int) {
	items := make([]freedEntry, q.Len(), c)
	copy(items, q.items[q.head:])
	q.items, q.head = items, 0
}

// remove forgets block idx freed at at and reports whether it was present.
func (q *freedQueue) remove(idx int, at time.Time) bool {
	e := freedEntry{at: at, idx: idx}
	if q.head < len(q.items) && q.items[q.head].idx == idx && q.items[q.head].at.Equal(at) {
		q.popFront()
		return true
	}
	i, found := q.find(e)
	if !found {
		return false
	}
	if i-q.head < len(q.items)-i {
		copy(q.items[q.head+1:i+1], q.items[q.head:i])
		q.popFront()
	} else {
		q.items = slices.Delete(q.items, i, i+1)
		q.shrink()
	}
	return true
}

// popFront drops the first entry.
func (q *freedQueue) popFront() {
	q.items[q.head] = freedEntry{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	q.shrink()
}

// shrink gives back the memory of a queue that held many more entries than
// it does now (after a mass deletion left the quarantine long and the
// MaxQuarantine bound trimmed it), keeping twice the entries.
func (q *freedQueue) shrink() {
	if c := cap(q.items); c > minCompactCap && q.Len()*4 < c {
		q.resize(max(minCompactCap, 2*q.Len()))
	}
}

// reset forgets every entry.
func (q *freedQueue) reset() {
	clear(q.items)
	q.items, q.head = q.items[:0], 0
	q.shrink()
}
