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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/metrics"
	"k8s.io/client-go/util/flowcontrol"
)

const (
	verb = http.MethodPatch

	// accept asks for the answer in protobuf, as client-go does for
	// built-in types: the API server encodes the patched node whatever we
	// do with it, and protobuf is its cheapest encoding.
	accept = runtime.ContentTypeProtobuf + ", " + runtime.ContentTypeJSON

	// maxRetries bounds the resends of a request API Priority and Fairness
	// turned away with a Retry-After, as client-go's default does.
	maxRetries = 10

	// maxErrorBody bounds how much of an error answer is read to decode it.
	maxErrorBody = 1 << 20
)

var nodes = schema.GroupResource{Resource: "nodes"}

// Writer sends merge patches to nodes. Each call is one PATCH, rate
// limited like a client-go client made from the same config.
type Writer struct {
	client    *http.Client
	limiter   flowcontrol.RateLimiter
	decoder   runtime.Decoder
	prefix    string  // https://host/api/v1/nodes/
	query     string  // ?fieldManager=…
	template  url.URL // the URL client-go's metrics report: …/nodes/{name}
	host      string
	userAgent string
}

// New makes a Writer for the API server of cfg, sending through client
// (whose transport holds the credentials, and may fence writes) as field
// manager fieldManager. It has its own client-side rate limiter of cfg's
// QPS and burst, as every client-go REST client does.
func New(cfg *rest.Config, client *http.Client, scheme *runtime.Scheme, fieldManager string) (*Writer, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &corev1.SchemeGroupVersion
	c.APIPath = "/api"
	base, versioned, err := rest.DefaultServerUrlFor(c)
	if err != nil {
		return nil, fmt.Errorf("finding the API server's URL for node patches: %w", err)
	}
	u := *base
	u.Path = path.Join(base.Path, versioned, "nodes") + "/"
	u.RawQuery = ""
	template := u
	template.Path += "{name}"
	userAgent := c.UserAgent
	if userAgent == "" {
		userAgent = rest.DefaultKubernetesUserAgent()
	}
	return &Writer{
		client:    client,
		limiter:   rateLimiter(c),
		decoder:   serializer.NewCodecFactory(scheme).UniversalDeserializer(),
		prefix:    u.String(),
		query:     "?" + url.Values{"fieldManager": {fieldManager}}.Encode(),
		template:  template,
		host:      u.Host,
		userAgent: userAgent,
	}, nil
}

// rateLimiter is the one client-go's RESTClientFor would make from cfg.
func rateLimiter(cfg *rest.Config) flowcontrol.RateLimiter {
	if cfg.RateLimiter != nil {
		return cfg.RateLimiter
	}
	qps, burst := cfg.QPS, cfg.Burst
	if qps == 0 {
		qps = rest.DefaultQPS
	}
	if burst == 0 {
		burst = rest.DefaultBurst
	}
	if qps <= 0 {
		return nil
	}
	return flowcontrol.NewTokenBucketRateLimiter(qps, burst)
}

// MergePatch applies a JSON merge patch to the node and reports only the
// outcome: nil once the API server stored it, else the API server's answer
// as an *apierrors.StatusError (apierrors.IsConflict and friends apply), or
// the transport's error when none arrived. The patched node the API server
// answers with is read and dropped, never decoded.
func (w *Writer) MergePatch(ctx context.Context, node string, patch []byte) error {
	start := time.Now()
	defer func() { metrics.RequestLatency.Observe(ctx, verb, w.template, time.Since(start)) }()
	target := w.prefix + url.PathEscape(node) + w.query
	for retries := 0; ; retries++ {
		if err := w.throttle(ctx); err != nil {
			return err
		}
		resp, err := w.send(ctx, target, patch)
		if err != nil {
			metrics.RequestResult.Increment(ctx, "<error>", verb, w.host)
			return err
		}
		code := strconv.Itoa(resp.StatusCode)
		wait, retry := retryAfter(resp)
		if retry && retries < maxRetries {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			metrics.RequestRetry.IncrementRetry(ctx, code, verb, w.host)
			if err := sleep(ctx, wait); err != nil {
				return err
			}
			continue
		}
		metrics.RequestResult.Increment(ctx, code, verb, w.host)
		return w.outcome(ctx, resp, node)
	}
}

func (w *Writer) throttle(ctx context.Context) error {
	if w.limiter == nil {
		return nil
	}
	now := time.Now()
	err := w.limiter.Wait(ctx)
	metrics.RateLimiterLatency.Observe(ctx, verb, w.template, time.Since(now))
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("client rate limiter Wait returned an error: %w", err)
	}
	return err
}

func (w *Writer) send(ctx context.Context, target string, patch []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, verb, target, bytes.NewReader(patch))
	if err != nil {
		return nil, fmt.Errorf("building the node patch request: %w", err)
	}
	req.Header = http.Header{
		"Content-Type": {string(types.MergePatchType)},
		"Accept":       {accept},
		"User-Agent":   {w.userAgent},
	}
	metrics.RequestSize.Observe(ctx, verb, w.host, float64(len(patch)))
	return w.client.Do(req)
}

// outcome reads the answer to its end, so the connection's stream is
// reused, and turns a failure into the API error it carries.
func (w *Writer) outcome(ctx context.Context, resp *http.Response, node string) error {
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode >= http.StatusOK && resp.StatusCode <= http.StatusPartialContent {
		// Stored: an error reading the node that came back changes nothing.
		n, _ := io.Copy(io.Discard, resp.Body)
		metrics.ResponseSize.Observe(ctx, verb, w.host, float64(n))
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	metrics.ResponseSize.Observe(ctx, verb, w.host, float64(len(body)))
	return w.statusError(resp, node, body)
}

// statusError is the API error an answer carries: the Status the API server
// sent, or, without a readable one, a generic error for its HTTP code, as
// client-go reports them.
func (w *Writer) statusError(resp *http.Response, node string, body []byte) error {
	if len(body) > 0 {
		obj, _, err := w.decoder.Decode(body, nil, &metav1.Status{})
		if status, ok := obj.(*metav1.Status); err == nil && ok && status.Status == metav1.StatusFailure {
			return &apierrors.StatusError{ErrStatus: *status}
		}
	}
	seconds, _ := retryAfterSeconds(resp)
	return apierrors.NewGenericServerResponse(resp.StatusCode, verb, nodes, node,
		strings.TrimSpace(string(body)), seconds, true)
}

// retryAfter reports whether API Priority and Fairness turned the request
// away (429 with a Retry-After), which guarantees nothing was stored, and
// how long it asked to wait. Unlike client-go, a 5xx with a Retry-After is
// not resent: its patch may have been stored, and the caller must learn
// that the outcome is unknown, not a conflict with its own write.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	seconds, ok := retryAfterSeconds(resp)
	return time.Duration(seconds) * time.Second, ok
}

func retryAfterSeconds(resp *http.Response) (int, bool) {
	seconds, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || seconds < 0 {
		return 0, false
	}
	return seconds, true
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
