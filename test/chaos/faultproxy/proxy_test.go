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

package faultproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
)

func TestPlanIsReproducibleAndKeepsTheRates(t *testing.T) {
	cfg := Config{Seed: 7, ErrorRate: 0.1, LatencyRate: 0.2, MaxLatency: time.Second, WatchCutRate: 0.5, MinWatchCut: time.Second, MaxWatchCut: 2 * time.Second}
	const n = 20000
	errs, delayed, cuts := 0, 0, 0
	kinds := map[Fault]int{}
	for i := range n {
		key := fmt.Sprintf("op-a PATCH /api/v1/nodes/node-%d", i%100)
		p := planFor(cfg, key, uint64(i/100), false)
		if p != planFor(cfg, key, uint64(i/100), false) {
			t.Fatalf("plan of %s #%d differs between two calls", key, i/100)
		}
		if p.fault != None {
			errs++
			kinds[p.fault]++
		}
		if p.delay > 0 {
			delayed++
			if p.delay > cfg.MaxLatency {
				t.Fatalf("delay %s above MaxLatency", p.delay)
			}
		}
		w := planFor(cfg, key+" watch", uint64(i/100), true)
		if w.fault == WatchCut {
			cuts++
			if w.cutAfter < cfg.MinWatchCut || w.cutAfter > cfg.MaxWatchCut {
				t.Fatalf("watch cut after %s, outside [%s, %s]", w.cutAfter, cfg.MinWatchCut, cfg.MaxWatchCut)
			}
		}
	}
	within := func(got int, rate float64) bool { return abs(float64(got)/n-rate) < 0.02 }
	if !within(errs, cfg.ErrorRate) {
		t.Errorf("errors on %d of %d requests, want about %.0f%%", errs, n, 100*cfg.ErrorRate)
	}
	if !within(delayed, cfg.LatencyRate*(1-cfg.ErrorRate)) {
		t.Errorf("%d of %d requests delayed, want about %.0f%% of those without error", delayed, n, 100*cfg.LatencyRate)
	}
	if !within(cuts, cfg.WatchCutRate*(1-cfg.ErrorRate)) {
		t.Errorf("%d of %d watches cut, want about %.0f%% of those without error", cuts, n, 100*cfg.WatchCutRate)
	}
	for _, f := range errorFaults {
		if kinds[f] == 0 {
			t.Errorf("fault %s never planned", f)
		}
	}
	if planFor(Config{Seed: 8, ErrorRate: 0.5}, "k", 0, false) == planFor(Config{Seed: 7, ErrorRate: 0.5}, "k", 0, false) &&
		planFor(Config{Seed: 8, ErrorRate: 0.5}, "k", 1, false) == planFor(Config{Seed: 7, ErrorRate: 0.5}, "k", 1, false) &&
		planFor(Config{Seed: 8, ErrorRate: 0.5}, "k", 2, false) == planFor(Config{Seed: 7, ErrorRate: 0.5}, "k", 2, false) {
		t.Error("two seeds plan the same faults")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// apiserver answers a node PATCH and a Lease create as the apiserver would,
// and counts what reached it.
func apiserver(hits *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPatch && r.URL.Path == "/api/v1/nodes/node-1":
			_, _ = io.WriteString(w, `{"kind":"Node","apiVersion":"v1","metadata":{"name":"node-1","resourceVersion":"42"}}`)
		case r.Method == http.MethodPost && r.URL.Path == "/apis/coordination.k8s.io/v1/namespaces/ns/leases":
			if !strings.Contains(string(body), `"name":"lock"`) {
				http.Error(w, "the create lost its body", http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"lock","namespace":"ns","resourceVersion":"43"},"spec":{"holderIdentity":"host_1234"}}`)
		default:
			_, _ = io.WriteString(w, `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"44"},"items":[]}`)
		}
	})
}

func startProxy(t *testing.T, cfg Config) (*Proxy, *Log, string, *atomic.Int32) {
	t.Helper()
	hits := &atomic.Int32{}
	upstream := httptest.NewServer(apiserver(hits))
	t.Cleanup(upstream.Close)
	wlog := &Log{}
	p, err := New(&rest.Config{Host: upstream.URL}, cfg, wlog)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	url, err := p.Listen("operator-a.1")
	if err != nil {
		t.Fatal(err)
	}
	return p, wlog, url, hits
}

// newClient is a client of p's listeners: HTTP/2 on one connection, as
// client-go's, or HTTP/1.1 with a fresh connection per request (a reset
// closes the one it hits).
func newClient(p *Proxy, http2 bool) *http.Client {
	t := &http.Transport{TLSClientConfig: p.ClientTLSConfig(), ForceAttemptHTTP2: http2, DisableKeepAlives: !http2}
	if !http2 {
		t.TLSClientConfig.NextProtos = []string{"http/1.1"}
	}
	return &http.Client{Transport: t}
}

func send(c *http.Client, url, method, path, body string) (int, error) {
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

func TestProxyLogsWritesPerProcess(t *testing.T) {
	p, wlog, url, _ := startProxy(t, Config{Seed: 1, ErrorRate: 1})
	c := newClient(p, true)
	// Faults are off until SetFaults(true).
	if code, err := send(c, url, http.MethodPatch, "/api/v1/nodes/node-1", `{}`); err != nil || code != http.StatusOK {
		t.Fatalf("PATCH: %d, %v", code, err)
	}
	if code, err := send(c, url, http.MethodPost, "/apis/coordination.k8s.io/v1/namespaces/ns/leases", `{"metadata":{"name":"lock"}}`); err != nil || code != http.StatusCreated {
		t.Fatalf("create: %d, %v", code, err)
	}
	if code, err := send(c, url, http.MethodGet, "/api/v1/nodes", ""); err != nil || code != http.StatusOK {
		t.Fatalf("list: %d, %v", code, err)
	}
	if s := p.Stats(); s.HTTP2 != 3 || s.Connections != 1 {
		t.Errorf("Stats() = %+v, want 3 requests over HTTP/2 on one connection", s)
	}
	entries := wlog.Entries()
	if len(entries) != 2 {
		t.Fatalf("logged %d writes, want the PATCH and the create (reads are not logged): %+v", len(entries), entries)
	}
	patch, create := entries[0], entries[1]
	if patch.Process != "operator-a.1" || patch.Verb != "patch" || patch.Resource != "nodes" || patch.Name != "node-1" || patch.Code != 200 || patch.RV != 42 {
		t.Errorf("PATCH logged as %+v", patch)
	}
	if create.Verb != "create" || create.Resource != "leases" || create.Namespace != "ns" || create.Name != "lock" || create.RV != 43 || create.HolderIdentity != "host_1234" {
		t.Errorf("create logged as %+v", create)
	}
	if got := wlog.Identities(); got["host_1234"] != "operator-a.1" {
		t.Errorf("Identities() = %v, want host_1234 -> operator-a.1", got)
	}
}

func TestProxyInjectsFaults(t *testing.T) {
	for _, http2 := range []bool{true, false} {
		t.Run(map[bool]string{true: "HTTP/2", false: "HTTP/1.1"}[http2], func(t *testing.T) { testInjectsFaults(t, http2) })
	}
}

func testInjectsFaults(t *testing.T, http2 bool) {
	p, wlog, url, hits := startProxy(t, Config{Seed: 3, ErrorRate: 1})
	c := newClient(p, http2)
	p.SetFaults(true)
	seen := map[Fault]bool{}
	for range 200 {
		before := hits.Load()
		logged := len(wlog.Entries())
		code, err := send(c, url, http.MethodPatch, "/api/v1/nodes/node-1", `{}`)
		// The proxy logs when its handler returns, which a reset's client
		// may see before.
		var entries []Entry
		_ = wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
			entries = wlog.Entries()
			return len(entries) > logged, nil
		})
		if len(entries) != logged+1 {
			t.Fatalf("%d writes logged after %d requests", len(entries), logged+1)
		}
		e := entries[len(entries)-1]
		forwarded := hits.Load() > before
		seen[e.Injected] = true
		switch e.Injected {
		case TooManyRequests, InternalError, Unavailable:
			if forwarded || code != e.Injected.code() || e.Code != code {
				t.Fatalf("%s: forwarded %v, client got %d, logged %d", e.Injected, forwarded, code, e.Code)
			}
		case ErrorAfter500, ErrorAfter503:
			// The apiserver acted; the client is told it failed; the log
			// keeps what the apiserver answered.
			if !forwarded || code != e.Injected.code() || e.Code != http.StatusOK || e.RV != 42 {
				t.Fatalf("%s: forwarded %v, client got %d, logged %+v", e.Injected, forwarded, code, e)
			}
		case ResetBefore, ResetAfter:
			if err == nil {
				t.Fatalf("%s: the client got %d instead of a reset", e.Injected, code)
			}
			if forwarded != (e.Injected == ResetAfter) {
				t.Fatalf("%s: forwarded %v", e.Injected, forwarded)
			}
		default:
			t.Fatalf("ErrorRate 1 let a request through unharmed: %+v", e)
		}
	}
	for _, f := range errorFaults {
		if !seen[f] {
			t.Errorf("fault %s never injected in 200 requests", f)
		}
	}
	if s := p.Stats(); s.Requests != 200 || s.Injected() != 200 {
		t.Errorf("Stats() = %+v, want 200 requests, all injected", s)
	}
	if s := p.Stats(); http2 && (s.HTTP2 != 200 || s.Connections != 1) {
		t.Errorf("Stats() = %+v: the resets must not cost the HTTP/2 client its connection", s)
	}
}

// streaming answers a watch with a bookmark every 20ms until the client
// goes, and anything else as apiserver does.
func streaming(hits *atomic.Int32) http.Handler {
	rest := apiserver(hits)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			rest.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := io.WriteString(w, `{"type":"BOOKMARK","object":{"kind":"Node","apiVersion":"v1","metadata":{"resourceVersion":"1"}}}`+"\n"); err != nil {
				return
			}
			if err := http.NewResponseController(w).Flush(); err != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
}

func startStreamingProxy(t *testing.T, cfg Config) (*Proxy, string) {
	t.Helper()
	upstream := httptest.NewTLSServer(streaming(&atomic.Int32{}))
	t.Cleanup(upstream.Close)
	p, err := New(&rest.Config{Host: upstream.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, cfg, &Log{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	url, err := p.Listen("operator-a.1")
	if err != nil {
		t.Fatal(err)
	}
	return p, url
}

// watch opens a watch and returns its lines as they come, closed when the
// stream ends (with the error that ended it, nil for a clean end).
func watch(t *testing.T, c *http.Client, url string) (<-chan string, <-chan error) {
	t.Helper()
	resp, err := c.Get(url + "/api/v1/nodes?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	if resp.ProtoMajor != 2 {
		t.Fatalf("the watch runs over %s, want HTTP/2", resp.Proto)
	}
	lines, done := make(chan string, 1000), make(chan error, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		done <- sc.Err()
	}()
	return lines, done
}

// nextLine waits up to 5s for a line of a watch.
func nextLine(t *testing.T, lines <-chan string, what string) {
	t.Helper()
	select {
	case _, ok := <-lines:
		if !ok {
			t.Fatalf("%s: the watch ended", what)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: nothing on the watch for 5s", what)
	}
}

func TestProxyCutsWatchesStreamByStream(t *testing.T) {
	p, url := startStreamingProxy(t, Config{Seed: 1, WatchCutRate: 1, MinWatchCut: 100 * time.Millisecond, MaxWatchCut: 200 * time.Millisecond})
	c := newClient(p, true)
	p.SetFaults(true)
	start := time.Now()
	lines, done := watch(t, c, url)
	for range lines { //nolint:revive // drain until the cut
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the watch ran %s; it should have been cut after at most 200ms", took)
	}
	if err := <-done; err == nil {
		t.Fatal("the watch ended cleanly; a cut must look like a broken stream")
	}
	// The cut reset the stream, not the connection: the next request
	// reuses it.
	if code, err := send(c, url, http.MethodGet, "/api/v1/nodes", ""); err != nil || code != http.StatusOK {
		t.Fatalf("a list after the cut: %d, %v", code, err)
	}
	if s := p.Stats(); s.Faults[WatchCut] != 1 || s.Connections != 1 {
		t.Errorf("Stats() = %+v, want one watch cut and one connection", s)
	}
}

// TestResetFailsOnlyItsStream: with HTTP/2, an injected reset or error
// fails its own request; a watch open on the same connection keeps
// streaming and later requests go through on that connection.
func TestResetFailsOnlyItsStream(t *testing.T) {
	p, url := startStreamingProxy(t, Config{Seed: 5, ErrorRate: 1})
	c := newClient(p, true)
	lines, done := watch(t, c, url) // planned before faults: unharmed
	nextLine(t, lines, "before the faults")
	p.SetFaults(true)
	resets := 0
	for i := range 60 {
		code, err := send(c, url, http.MethodPatch, "/api/v1/nodes/node-1", `{}`)
		switch {
		case err != nil:
			resets++
		case code < 400:
			t.Fatalf("request %d: ErrorRate 1 answered %d", i, code)
		}
		nextLine(t, lines, fmt.Sprintf("after request %d (%d resets so far)", i, resets))
	}
	if resets == 0 {
		t.Fatal("no request was reset: the test proves nothing")
	}
	p.SetFaults(false)
	if code, err := send(c, url, http.MethodPatch, "/api/v1/nodes/node-1", `{}`); err != nil || code != http.StatusOK {
		t.Fatalf("a PATCH after the faults: %d, %v", code, err)
	}
	nextLine(t, lines, "after the faults")
	select {
	case err := <-done:
		t.Fatalf("the watch ended: %v", err)
	default:
	}
	if s := p.Stats(); s.Connections != 1 || s.HTTP2 != s.Requests {
		t.Errorf("Stats() = %+v: %d resets must have cost the client neither its connection nor its watch", s, resets)
	}
}
