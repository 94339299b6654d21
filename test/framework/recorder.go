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

package framework

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/invariants"
)

// Event is one change a Recorder saw.
type Event struct {
	// RV is the object's resourceVersion: one etcd has one global revision
	// counter, so RVs order changes of different objects too.
	RV      int64
	Object  client.Object
	Deleted bool
}

// Recorder watches objects and keeps every change, so invariants can be
// checked on everything that happened, not only on the final state.
type Recorder struct {
	mu     sync.Mutex
	events []Event
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Record starts watching the lists' kinds until Stop or ctx ends.
func Record(ctx context.Context, c client.WithWatch, lists ...client.ObjectList) (*Recorder, error) {
	wctx, cancel := context.WithCancel(ctx)
	r := &Recorder{cancel: cancel}
	for _, list := range lists {
		w, err := c.Watch(wctx, list)
		if err != nil {
			r.Stop()
			return nil, fmt.Errorf("watching %T: %w", list, err)
		}
		r.wg.Add(1)
		go r.record(w)
	}
	return r, nil
}

func (r *Recorder) record(w watch.Interface) {
	defer r.wg.Done()
	defer w.Stop()
	for ev := range w.ResultChan() {
		obj, ok := ev.Object.(client.Object)
		if !ok || ev.Type == watch.Error || ev.Type == watch.Bookmark {
			continue
		}
		rv, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
		if err != nil {
			continue
		}
		r.mu.Lock()
		r.events = append(r.events, Event{RV: rv, Object: obj, Deleted: ev.Type == watch.Deleted})
		r.mu.Unlock()
	}
}

// Stop stops watching and waits for the watches to end.
func (r *Recorder) Stop() {
	r.cancel()
	r.wg.Wait()
}

// Events returns what was recorded so far, ordered by RV.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	events := slices.Clone(r.events)
	r.mu.Unlock()
	slices.SortStableFunc(events, func(a, b Event) int { return cmp.Compare(a.RV, b.RV) })
	return events
}

// Checker returns an invariant checker that has observed every PodNetwork
// recorded so far, so it knows every range that was ever Active.
func (r *Recorder) Checker() *invariants.Checker {
	c := &invariants.Checker{}
	for _, ev := range r.Events() {
		if pn, ok := ev.Object.(*v1alpha1.PodNetwork); ok {
			c.ObserveRanges(pn)
		}
	}
	return c
}
