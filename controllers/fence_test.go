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

package controllers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"

	"podnetwork.io/operator/internal/leasefence"
)

// stubLock is a lock whose writes succeed or fail as told, and whose Lease
// names holder.
type stubLock struct {
	resourcelock.Interface
	fail    error
	holder  string
	updates int
}

func (l *stubLock) Create(context.Context, resourcelock.LeaderElectionRecord) error { return l.fail }
func (l *stubLock) Identity() string                                                { return "me" }

func (l *stubLock) Update(_ context.Context, ler resourcelock.LeaderElectionRecord) error {
	l.updates++
	if l.fail == nil {
		l.holder = ler.HolderIdentity
	}
	return l.fail
}

func (l *stubLock) Get(context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	return &resourcelock.LeaderElectionRecord{HolderIdentity: l.holder}, nil, nil
}

// okTransport answers every request 200 and counts them.
type okTransport struct{ sent int }

func (t *okTransport) RoundTrip(*http.Request) (*http.Response, error) {
	t.sent++
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("{}"))}, nil
}

func TestFencedWrites(t *testing.T) {
	ctx := context.Background()
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fence := leasefence.New(clk, 3*time.Second)
	lock := &fencedLock{Interface: &stubLock{}, fence: fence}
	next := &okTransport{}
	rt := &fencedTransport{next: next, fence: fence}
	send := func(method string) error {
		req := httptest.NewRequest(method, "https://apiserver.test/api/v1/nodes/n", strings.NewReader("{}"))
		resp, err := rt.RoundTrip(req)
		if resp != nil {
			_ = resp.Body.Close()
		}
		return err
	}
	refused := func(err error) bool { return errors.Is(err, leasefence.ErrNotFresh) }
	writes := []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

	if err := send(http.MethodPatch); !refused(err) {
		t.Fatalf("a write before the lease is held: %v, want ErrNotFresh", err)
	}
	if err := send(http.MethodGet); err != nil {
		t.Fatalf("a read before the lease is held: %v", err)
	}
	if err := lock.Create(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range writes {
		if err := send(m); err != nil {
			t.Fatalf("%s right after acquiring the lease: %v", m, err)
		}
	}

	// Paused past the renew deadline: every write is refused before it is
	// sent; reads (and watches) go on.
	clk.SetTime(clk.Now().Add(4 * time.Second))
	sent := next.sent
	for _, m := range writes {
		if err := send(m); !refused(err) {
			t.Errorf("%s after the renew deadline: %v, want ErrNotFresh", m, err)
		}
	}
	if next.sent != sent {
		t.Errorf("%d refused writes reached the apiserver", next.sent-sent)
	}
	if err := send(http.MethodGet); err != nil {
		t.Errorf("a read after the renew deadline: %v", err)
	}

	// A failed renewal does not reopen it; a successful one does.
	lock.Interface = &stubLock{fail: errors.New("apiserver down")}
	_ = lock.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
	if err := send(http.MethodDelete); !refused(err) {
		t.Fatalf("after a failed renewal: %v, want ErrNotFresh", err)
	}
	lock.Interface = &stubLock{}
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	if err := send(http.MethodDelete); err != nil {
		t.Fatalf("after a renewal: %v", err)
	}

	// Releasing the lease on shutdown (an empty holder) closes it, even
	// when the release fails.
	stub := &stubLock{holder: "me", fail: errors.New("apiserver down")}
	lock.Interface = stub
	_ = lock.Update(ctx, resourcelock.LeaderElectionRecord{})
	if err := send(http.MethodPost); !refused(err) {
		t.Fatalf("a write after a failed release of the lease: %v, want ErrNotFresh", err)
	}
	stub.fail = nil
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{}); err != nil || stub.holder != "" {
		t.Fatalf("releasing our own lease: %v, holder %q", err, stub.holder)
	}

	// A woken leader never releases the lease another replica holds now.
	stub = &stubLock{holder: "other"}
	lock.Interface = stub
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{}); err != nil || stub.updates != 0 || stub.holder != "other" {
		t.Fatalf("releasing another replica's lease: %v, %d updates, holder %q", err, stub.updates, stub.holder)
	}
}

// Writers outside the manager's client (NodeIPAM's node patches) get their
// HTTP client from the wrapper fenceWrites returns: it must be fenced like
// the manager's client, and leave the client it wraps alone.
func TestFenceWrapperRefusesWritesBeforeTheLease(t *testing.T) {
	opts := DefaultOptions()
	opts.LeaderElectionNamespace = "podnetwork-system"
	var mgrOpts ctrl.Options
	fenced, stop, err := fenceWrites(&rest.Config{Host: "https://apiserver.test"}, opts, &mgrOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	next := &okTransport{}
	plain := &http.Client{Transport: next}
	hc := fenced(plain)
	if plain.Transport != next {
		t.Fatal("the wrapper changed the client it wraps")
	}
	req := httptest.NewRequest(http.MethodPatch, "https://apiserver.test/api/v1/nodes/n", strings.NewReader("{}"))
	req.RequestURI = "" // a client request
	resp, err := hc.Do(req)
	if resp != nil {
		_ = resp.Body.Close()
	}
	if !errors.Is(err, leasefence.ErrNotFresh) || next.sent != 0 {
		t.Fatalf("a node patch before the lease is held: %v, %d sent; want ErrNotFresh, none sent", err, next.sent)
	}
}

// heldTransport answers a request only when release is closed.
type heldTransport struct {
	entered chan struct{}
	release chan struct{}
}

func (t *heldTransport) RoundTrip(*http.Request) (*http.Response, error) {
	close(t.entered)
	<-t.release
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("{}"))}, nil
}

// A graceful release must not hand the lease over while a write let
// through before the fence closed is still on its way: the next leader
// could write first, and the late write would undo its work.
func TestReleaseWaitsForWritesInFlight(t *testing.T) {
	ctx := context.Background()
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fence := leasefence.New(clk, 3*time.Second)
	stub := &stubLock{}
	lock := &fencedLock{Interface: stub, fence: fence, uncertainFor: 15 * time.Second}
	if err := lock.Create(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	stub.holder = "me"
	held := &heldTransport{entered: make(chan struct{}), release: make(chan struct{})}
	rt := &fencedTransport{next: held, fence: fence}
	answered := make(chan error)
	go func() {
		resp, err := rt.RoundTrip(httptest.NewRequest(http.MethodPatch, "https://apiserver.test/api/v1/nodes/n", strings.NewReader("{}")))
		if resp != nil {
			_ = resp.Body.Close()
		}
		answered <- err
	}()
	<-held.entered

	// Quiesce gives up at once here: the release is refused and the lease
	// left to expire.
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{}); err == nil || stub.updates != 0 {
		t.Fatalf("release with a write in flight: %v, %d updates; want an error and none", err, stub.updates)
	}
	close(held.release)
	if err := <-answered; err != nil {
		t.Fatalf("the write in flight: %v", err)
	}
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{}); err != nil || stub.holder != "" {
		t.Fatalf("release once the write was answered: %v, holder %q", err, stub.holder)
	}
}

// Events are written by clients controller-runtime and the lock build from
// the rest.Config alone: fenceWrites must fence the config's transport for
// Event writes of both APIs, and leave every other request to the fenced
// client (the Lease, the metrics endpoint's reviews and the cache's reads
// share that config).
func TestFenceWritesFencesEventsOfTheConfig(t *testing.T) {
	opts := DefaultOptions()
	opts.LeaderElectionNamespace = "podnetwork-system"
	next := &okTransport{}
	cfg := &rest.Config{Host: "https://apiserver.test", Transport: next}
	var mgrOpts ctrl.Options
	_, stop, err := fenceWrites(cfg, opts, &mgrOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	send := func(method, path string) error {
		req := httptest.NewRequest(method, "https://apiserver.test"+path, strings.NewReader("{}"))
		req.RequestURI = "" // a client request
		resp, err := hc.Do(req)
		if resp != nil {
			_ = resp.Body.Close()
		}
		return err
	}
	for _, c := range []struct {
		method, path string
		refused      bool
	}{
		{http.MethodPost, "/api/v1/namespaces/podnetwork-system/events", true},
		{http.MethodPatch, "/api/v1/namespaces/default/events/n.1873", true},
		{http.MethodPost, "/apis/events.k8s.io/v1/namespaces/default/events", true},
		{http.MethodPut, "/apis/events.k8s.io/v1/namespaces/default/events/n.1873", true},
		{http.MethodPost, "/api/v1/events", true},
		{http.MethodGet, "/api/v1/namespaces/default/events", false},
		{http.MethodPut, "/apis/coordination.k8s.io/v1/namespaces/podnetwork-system/leases/podnetwork-operator", false},
		{http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", false},
		{http.MethodPost, "/api/v1/namespaces/events/configmaps", false},
		{http.MethodPatch, "/apis/podnetwork.io/v1alpha1/events/default", false},
	} {
		err := send(c.method, c.path)
		if refused := errors.Is(err, leasefence.ErrNotFresh); refused != c.refused || (!refused && err != nil) {
			t.Errorf("%s %s before the lease: %v, want refused %v", c.method, c.path, err, c.refused)
		}
	}

	lock := mgrOpts.LeaderElectionResourceLockInterface.(*fencedLock)
	lock.Interface = &stubLock{}
	if err := lock.Create(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	sent := next.sent
	if err := send(http.MethodPost, "/apis/events.k8s.io/v1/namespaces/default/events"); err != nil || next.sent != sent+1 {
		t.Fatalf("an Event while the lease is held: %v, %d sent; want it sent", err, next.sent-sent)
	}
}

// refusingSink answers every Event write with err.
type refusingSink struct{ err error }

func (s refusingSink) Create(*corev1.Event) (*corev1.Event, error) { return nil, s.err }
func (s refusingSink) Update(*corev1.Event) (*corev1.Event, error) { return nil, s.err }
func (s refusingSink) Patch(*corev1.Event, []byte) (*corev1.Event, error) {
	return nil, s.err
}

// The lock's "stopped leading" Event reaches the fence after the lease is
// gone: the sink drops the refusal instead of letting the broadcaster log
// an error and retry, and passes every other failure on.
func TestLeaseEventSinkDropsRefusedEvents(t *testing.T) {
	e := &corev1.Event{Reason: "LeaderElection", Message: "me stopped leading"}
	refused := leaseEventSink{refusingSink{fmt.Errorf("POST /api/v1/namespaces/x/events: %w", leasefence.ErrNotFresh)}}
	if out, err := refused.Create(e); err != nil || out != e {
		t.Errorf("Create refused by the fence: %v, %v; want the Event and no error", out, err)
	}
	if out, err := refused.Patch(e, []byte("{}")); err != nil || out != e {
		t.Errorf("Patch refused by the fence: %v, %v; want the Event and no error", out, err)
	}
	down := leaseEventSink{refusingSink{errors.New("connection refused")}}
	if _, err := down.Update(e); err == nil {
		t.Error("Update failing on the wire: no error; want it passed on for the broadcaster to retry")
	}
}
