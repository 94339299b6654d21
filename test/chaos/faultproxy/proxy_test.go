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
	"context"
	"errors"
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

func send(url, method, path, body string) (int, error) {
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	// A fresh connection each time: a reset closes the one it hits.
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

func TestProxyLogsWritesPerProcess(t *testing.T) {
	_, wlog, url, _ := startProxy(t, Config{Seed: 1, ErrorRate: 1})
	// Faults are off until SetFaults(true).
	if code, err := send(url, http.MethodPatch, "/api/v1/nodes/node-1", `{}`); err != nil || code != http.StatusOK {
		t.Fatalf("PATCH: %d, %v", code, err)
	}
	if code, err := send(url, http.MethodPost, "/apis/coordination.k8s.io/v1/namespaces/ns/leases", `{"metadata":{"name":"lock"}}`); err != nil || code != http.StatusCreated {
		t.Fatalf("create: %d, %v", code, err)
	}
	if code, err := send(url, http.MethodGet, "/api/v1/nodes", ""); err != nil || code != http.StatusOK {
		t.Fatalf("list: %d, %v", code, err)
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
	p, wlog, url, hits := startProxy(t, Config{Seed: 3, ErrorRate: 1})
	p.SetFaults(true)
	seen := map[Fault]bool{}
	for range 200 {
		before := hits.Load()
		logged := len(wlog.Entries())
		code, err := send(url, http.MethodPatch, "/api/v1/nodes/node-1", `{}`)
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
}

func TestProxyCutsWatches(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	}))
	defer upstream.Close()
	p, err := New(&rest.Config{Host: upstream.URL}, Config{Seed: 1, WatchCutRate: 1, MinWatchCut: 100 * time.Millisecond, MaxWatchCut: 200 * time.Millisecond}, &Log{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}()
	p.SetFaults(true)
	url, err := p.Listen("operator-a.1")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := http.Get(url + "/api/v1/nodes?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the watch ran %s; it should have been cut after at most 200ms", took)
	}
	if err == nil || errors.Is(err, io.EOF) {
		// A cut stream ends without the chunked terminator.
		t.Fatalf("the watch ended cleanly (%v); a cut must look like a broken connection", err)
	}
	if s := p.Stats(); s.Faults[WatchCut] != 1 {
		t.Errorf("Stats() = %+v, want one watch cut", s)
	}
}
