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
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework/invariants"
)

// Event is one change a Recorder saw.
type Event struct {
	// RV is the object's resourceVersion: one etcd has one global revision
	// counter, so RVs order changes of different objects too.
	RV      int64
	Object  client.Object
	Deleted bool
	// Time is when the recorder received the change.
	Time time.Time
}

// Recorder watches objects and keeps every change, so invariants can be
// checked on everything that happened, not only on the final state.
type Recorder struct {
	mu     sync.Mutex
	events []Event
	err    error
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
		go func() {
			defer r.wg.Done()
			r.record(w)
		}()
	}
	return r, nil
}

// Watched is a kind RecordHistory records, in one namespace or (empty) all.
type Watched struct {
	List      client.ObjectList
	Namespace string
}

// RecordHistory records every change of the watched kinds without a gap,
// across apiserver and etcd restarts: it lists each kind (recording every
// object as it is), watches from the list's resourceVersion and, whenever a
// watch ends, watches again from the last resourceVersion it received.
// That needs an apiserver that can serve any revision etcd still has (one
// with --watch-cache=false: a watch cache answers 410 Gone for revisions
// from before its start) and no compaction meanwhile. A 410 is a gap in
// the history: recording of that kind stops and Err reports it.
func RecordHistory(ctx context.Context, c client.WithWatch, watched ...Watched) (*Recorder, error) {
	wctx, cancel := context.WithCancel(ctx)
	r := &Recorder{cancel: cancel}
	for _, w := range watched {
		rv, err := r.list(wctx, c, w)
		if err != nil {
			r.Stop()
			return nil, err
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.resume(wctx, c, w, rv)
		}()
	}
	return r, nil
}

// list records every object of w's kind and returns the list's
// resourceVersion.
func (r *Recorder) list(ctx context.Context, c client.WithWatch, w Watched) (string, error) {
	list, ok := w.List.DeepCopyObject().(client.ObjectList)
	if !ok {
		return "", fmt.Errorf("%T is not a client.ObjectList", w.List)
	}
	if err := c.List(ctx, list, client.InNamespace(w.Namespace)); err != nil {
		return "", fmt.Errorf("listing %T: %w", w.List, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", fmt.Errorf("reading %T: %w", w.List, err)
	}
	now := time.Now()
	for _, item := range items {
		if obj, ok := item.(client.Object); ok {
			r.add(obj, false, now)
		}
	}
	return list.GetResourceVersion(), nil
}

// resumeRetry is how long RecordHistory waits before watching again after
// a watch could not start (the apiserver or etcd is down).
const resumeRetry = 200 * time.Millisecond

func (r *Recorder) resume(ctx context.Context, c client.WithWatch, w Watched, rv string) {
	for ctx.Err() == nil {
		list, _ := w.List.DeepCopyObject().(client.ObjectList)
		wi, err := c.Watch(ctx, list, client.InNamespace(w.Namespace),
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true}})
		if err != nil {
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				r.fail(fmt.Errorf("history of %T has a gap after resourceVersion %s: %w", w.List, rv, err))
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(resumeRetry):
			}
			continue
		}
		var gone error
		rv, gone = r.recordFrom(wi, rv)
		if gone != nil {
			r.fail(fmt.Errorf("history of %T has a gap after resourceVersion %s: %w", w.List, rv, gone))
			return
		}
	}
}

// recordFrom records a watch until it ends and returns the last
// resourceVersion it saw, or the error of a 410 Gone.
func (r *Recorder) recordFrom(w watch.Interface, rv string) (string, error) {
	defer w.Stop()
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			if st, ok := ev.Object.(*metav1.Status); ok && st.Code == http.StatusGone {
				return rv, apierrors.FromObject(st)
			}
			return rv, nil // watch again from rv
		}
		obj, ok := ev.Object.(client.Object)
		if !ok {
			continue
		}
		if v := obj.GetResourceVersion(); v != "" {
			rv = v
		}
		if ev.Type != watch.Bookmark {
			r.add(obj, ev.Type == watch.Deleted, time.Now())
		}
	}
	return rv, nil
}

func (r *Recorder) record(w watch.Interface) {
	defer w.Stop()
	for ev := range w.ResultChan() {
		obj, ok := ev.Object.(client.Object)
		if !ok || ev.Type == watch.Error || ev.Type == watch.Bookmark {
			continue
		}
		r.add(obj, ev.Type == watch.Deleted, time.Now())
	}
}

func (r *Recorder) add(obj client.Object, deleted bool, at time.Time) {
	rv, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		return
	}
	r.mu.Lock()
	r.events = append(r.events, Event{RV: rv, Object: obj, Deleted: deleted, Time: at})
	r.mu.Unlock()
}

func (r *Recorder) fail(err error) {
	r.mu.Lock()
	r.err = errors.Join(r.err, err)
	r.mu.Unlock()
}

// Err reports the gaps RecordHistory found; nil when the history is whole.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
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

// CheckCluster lists the nodes with c and checks them with the Recorder's
// Checker: no overlapping podCIDRs, none outside a range seen Active. It
// lives here, not in package invariants, so that invariants and the history
// checker import no client library: their fuzz tests instrument every
// package they import, which client-go's would make minutes on a fresh
// machine.
func (r *Recorder) CheckCluster(ctx context.Context, c client.Reader) error {
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	return r.Checker().Check(nodes.Items)
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
