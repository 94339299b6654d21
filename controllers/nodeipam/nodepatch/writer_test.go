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

package nodepatch

import (
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// The real API server's answers are checked in test/integration/nodeipam;
// these are the parts no API server answer reaches.

func TestNewBuildsTheNodesURL(t *testing.T) {
	for _, tc := range []struct {
		host, prefix, template string
	}{
		{"https://198.18.0.1:6443", "https://198.18.0.1:6443/api/v1/nodes/", "https://198.18.0.1:6443/api/v1/nodes/%7Bname%7D"},
		// An API server behind a path prefix (a proxy) keeps it.
		{"https://198.18.0.1/k8s/clusters/c1/", "https://198.18.0.1/k8s/clusters/c1/api/v1/nodes/", "https://198.18.0.1/k8s/clusters/c1/api/v1/nodes/%7Bname%7D"},
	} {
		w, err := New(&rest.Config{Host: tc.host}, http.DefaultClient, runtime.NewScheme(), "podnetwork-node-ipam")
		if err != nil {
			t.Fatalf("New(%s): %v", tc.host, err)
		}
		if w.prefix != tc.prefix {
			t.Errorf("New(%s): prefix %s, want %s", tc.host, w.prefix, tc.prefix)
		}
		if got := w.template.String(); got != tc.template {
			t.Errorf("New(%s): metrics URL %s, want %s", tc.host, got, tc.template)
		}
		if w.query != "?fieldManager=podnetwork-node-ipam" {
			t.Errorf("New(%s): query %s", tc.host, w.query)
		}
	}
}

func TestRateLimiterAsClientGoMakesIt(t *testing.T) {
	if rateLimiter(&rest.Config{QPS: -1}) != nil {
		t.Error("a negative QPS (no client-side limit) made a limiter")
	}
	if l := rateLimiter(&rest.Config{QPS: 500, Burst: 1000}); l == nil || l.QPS() != 500 {
		t.Errorf("QPS 500 made %v", l)
	}
	if l := rateLimiter(&rest.Config{}); l == nil || l.QPS() != rest.DefaultQPS {
		t.Errorf("no QPS made %v, want client-go's default", l)
	}
}

func TestRetryAfterOnlyForAPFRejections(t *testing.T) {
	for _, tc := range []struct {
		code       int
		retryAfter string
		wait       time.Duration
		retry      bool
	}{
		{http.StatusTooManyRequests, "1", time.Second, true},
		{http.StatusTooManyRequests, "", 0, false},
		{http.StatusTooManyRequests, "soon", 0, false},
		{http.StatusTooManyRequests, "-3", 0, false},
		// A 5xx may have stored the patch: never resent (client-go would).
		{http.StatusServiceUnavailable, "1", 0, false},
		{http.StatusInternalServerError, "1", 0, false},
		{http.StatusConflict, "1", 0, false},
	} {
		resp := &http.Response{StatusCode: tc.code, Header: http.Header{}}
		if tc.retryAfter != "" {
			resp.Header.Set("Retry-After", tc.retryAfter)
		}
		wait, retry := retryAfter(resp)
		if wait != tc.wait || retry != tc.retry {
			t.Errorf("%d with Retry-After %q: (%v, %v), want (%v, %v)", tc.code, tc.retryAfter, wait, retry, tc.wait, tc.retry)
		}
	}
}
