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
	"slices"
	"testing"
	"time"
)

// queueOp is one step on a freedQueue: insert or remove block idx freed at
// second at (relative to t0).
type queueOp struct {
	remove bool
	idx    int
	at     int
}

func TestFreedQueue(t *testing.T) {
	ins := func(idx, at int) queueOp { return queueOp{idx: idx, at: at} }
	rm := func(idx, at int) queueOp { return queueOp{remove: true, idx: idx, at: at} }
	tests := []struct {
		name    string
		ops     []queueOp
		removed []bool // per remove op, in order: whether it found the entry
		want    [][2]int
	}{
		{
			name: "empty",
		},
		{
			name: "increasing times append",
			ops:  []queueOp{ins(5, 1), ins(3, 2), ins(9, 3)},
			want: [][2]int{{5, 1}, {3, 2}, {9, 3}},
		},
		{
			name: "equal times order by block",
			ops:  []queueOp{ins(7, 1), ins(2, 1), ins(4, 1)},
			want: [][2]int{{2, 1}, {4, 1}, {7, 1}},
		},
		{
			name: "an older time goes in front",
			ops:  []queueOp{ins(1, 5), ins(2, 6), ins(3, 1)},
			want: [][2]int{{3, 1}, {1, 5}, {2, 6}},
		},
		{
			name: "an older time goes in the middle",
			ops:  []queueOp{ins(1, 1), ins(2, 3), ins(3, 2)},
			want: [][2]int{{1, 1}, {3, 2}, {2, 3}},
		},
		{
			name: "inserting a present entry changes nothing",
			ops:  []queueOp{ins(1, 1), ins(2, 2), ins(1, 1)},
			want: [][2]int{{1, 1}, {2, 2}},
		},
		{
			name:    "removing the oldest",
			ops:     []queueOp{ins(1, 1), ins(2, 2), ins(3, 3), rm(1, 1)},
			removed: []bool{true},
			want:    [][2]int{{2, 2}, {3, 3}},
		},
		{
			name:    "removing from the middle and the back",
			ops:     []queueOp{ins(1, 1), ins(2, 2), ins(3, 3), ins(4, 4), rm(3, 3), rm(4, 4)},
			removed: []bool{true, true},
			want:    [][2]int{{1, 1}, {2, 2}},
		},
		{
			name:    "removing needs the block's time",
			ops:     []queueOp{ins(1, 1), ins(2, 2), rm(2, 1), rm(9, 2)},
			removed: []bool{false, false},
			want:    [][2]int{{1, 1}, {2, 2}},
		},
		{
			name:    "an entry older than all reuses the consumed slot",
			ops:     []queueOp{ins(1, 5), ins(2, 6), rm(1, 5), ins(3, 1)},
			removed: []bool{true},
			want:    [][2]int{{3, 1}, {2, 6}},
		},
		{
			name:    "a block moved to a later time",
			ops:     []queueOp{ins(1, 1), ins(2, 2), rm(1, 1), ins(1, 3)},
			removed: []bool{true},
			want:    [][2]int{{2, 2}, {1, 3}},
		},
		{
			name:    "removing every entry",
			ops:     []queueOp{ins(1, 1), ins(2, 2), rm(2, 2), rm(1, 1), rm(1, 1)},
			removed: []bool{true, true, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q freedQueue
			var removed []bool
			for _, op := range tt.ops {
				at := t0.Add(time.Duration(op.at) * time.Second)
				if op.remove {
					removed = append(removed, q.remove(op.idx, at))
				} else {
					q.insert(op.idx, at)
				}
				if err := q.check(); err != nil {
					t.Fatalf("after %+v: %v", op, err)
				}
			}
			if !slices.Equal(removed, tt.removed) {
				t.Errorf("remove results %v, want %v", removed, tt.removed)
			}
			if got := queueContents(&q); !slices.Equal(got, tt.want) {
				t.Errorf("entries %v, want %v", got, tt.want)
			}
			e, ok := q.min()
			if ok != (len(tt.want) > 0) || ok && (e.idx != tt.want[0][0] || !e.at.Equal(t0.Add(time.Duration(tt.want[0][1])*time.Second))) {
				t.Errorf("min %v %v, want the first of %v", e, ok, tt.want)
			}
			if q.Len() != len(tt.want) {
				t.Errorf("Len %d, want %d", q.Len(), len(tt.want))
			}
		})
	}
}

// TestFreedQueueAgainstModel runs random inserts and removes, mostly at
// increasing times as Release makes them, against a sorted slice, and checks
// the memory bound after every step.
func TestFreedQueueAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q freedQueue
	var model []freedEntry
	at := map[int]time.Time{} // freed time per block, as the Allocator's map
	clock := 0
	for step := 0; step < 20000; step++ {
		idx := rng.IntN(3000)
		if old, ok := at[idx]; ok && rng.IntN(3) > 0 {
			if !q.remove(idx, old) {
				t.Fatalf("step %d: remove(%d, %v) found nothing", step, idx, old)
			}
			model = slices.DeleteFunc(model, func(e freedEntry) bool { return e.idx == idx })
			delete(at, idx)
		} else {
			if ok {
				q.remove(idx, old)
				model = slices.DeleteFunc(model, func(e freedEntry) bool { return e.idx == idx })
			}
			clock++
			when := clock
			if rng.IntN(10) == 0 {
				when = rng.IntN(clock + 1) // out of order: a restore or an undo
			}
			e := freedEntry{at: t0.Add(time.Duration(when) * time.Second), idx: idx}
			q.insert(e.idx, e.at)
			at[idx] = e.at
			i, _ := slices.BinarySearchFunc(model, e, compareEntries)
			model = slices.Insert(model, i, e)
		}
		if rng.IntN(500) == 0 && len(model) > 0 {
			// Drain most of it, as the MaxQuarantine bound does after a burst.
			for len(model) > 10 {
				if !q.remove(model[0].idx, model[0].at) {
					t.Fatalf("step %d: oldest entry not found", step)
				}
				delete(at, model[0].idx)
				model = model[1:]
			}
		}
		if err := q.check(); err != nil {
			t.Fatalf("step %d: %v (len %d head %d)", step, err, len(q.items), q.head)
		}
		if !slices.Equal(q.entries(), model) {
			t.Fatalf("step %d: entries differ from the model", step)
		}
	}
	q.reset()
	if err := q.check(); err != nil || q.Len() != 0 || cap(q.items) > minCompactCap {
		t.Fatalf("after reset: len %d cap %d, %v", q.Len(), cap(q.items), err)
	}
}

func queueContents(q *freedQueue) [][2]int {
	var out [][2]int
	for _, e := range q.entries() {
		out = append(out, [2]int{e.idx, int(e.at.Sub(t0) / time.Second)})
	}
	return out
}
