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

// Package faultproxy is a fault-injecting reverse proxy between operator
// processes and kube-apiserver, built on net/http/httputil. Each process
// gets its own listener on 127.0.0.1, so every request is attributed
// exactly. The listeners serve HTTPS with a CA made at start (CAData goes
// into the processes' kubeconfigs) and speak HTTP/2, as kube-apiserver
// does, so a process's client multiplexes every request and watch on one
// connection; the proxy authenticates upstream with the admin credentials
// it was given and forwards each request as a request of its own. Per
// request it may add latency, answer 429, 500 or 503 itself, forward and
// then answer 500 or 503 instead of the apiserver's answer (the write
// happened; the client cannot know), reset the request before or after
// forwarding, or cut a watch after a while.
//
// A reset or a cut is per stream: the handler aborts (http.ErrAbortHandler),
// which makes the HTTP/2 server send RST_STREAM for that stream alone, so
// the request or watch it hits fails and every other one on the connection
// goes on, as when an apiserver or a load balancer drops one stream. (A
// client on HTTP/1.1 has one request per connection, and loses that
// connection.)
//
// Every decision is a pure function of the seed, the process, the request's
// method and path and how many such requests the process sent before, so a
// seed reproduces the same faults for the same requests however the
// goroutines of the processes interleave. Every mutating request is logged
// (Log) with what the apiserver answered.
package faultproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"
)

// Config says how often what goes wrong. Rates are per request, in [0, 1].
type Config struct {
	// Seed makes every decision reproducible.
	Seed int64
	// ErrorRate is the share of requests (watches included) answered with
	// an injected 429, 500, 503 or connection reset.
	ErrorRate float64
	// LatencyRate is the share of requests delayed by up to MaxLatency
	// before they are forwarded.
	LatencyRate float64
	MaxLatency  time.Duration
	// WatchCutRate is the share of watches cut after a time between
	// MinWatchCut and MaxWatchCut.
	WatchCutRate             float64
	MinWatchCut, MaxWatchCut time.Duration
}

// Proxy forwards to one kube-apiserver.
type Proxy struct {
	cfg     Config
	target  *url.URL
	rp      *httputil.ReverseProxy
	log     *Log
	info    *request.RequestInfoFactory
	enabled atomic.Bool
	stats   stats
	tls     *serving

	mu        sync.Mutex
	servers   []*http.Server
	sequences map[string]uint64
}

// New returns a proxy to the apiserver of upstream (whose credentials it
// uses), logging mutating requests to log. Faults are off until
// SetFaults(true).
func New(upstream *rest.Config, cfg Config, wlog *Log) (*Proxy, error) {
	target, err := url.Parse(upstream.Host)
	if err != nil {
		return nil, fmt.Errorf("parsing the apiserver URL %q: %w", upstream.Host, err)
	}
	transport, err := rest.TransportFor(upstream)
	if err != nil {
		return nil, fmt.Errorf("building the upstream transport: %w", err)
	}
	srv, err := newServing()
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		tls:    srv,
		cfg:    cfg,
		target: target,
		log:    wlog,
		info: &request.RequestInfoFactory{
			APIPrefixes:          sets.NewString("api", "apis"),
			GrouplessAPIPrefixes: sets.NewString("api"),
		},
		sequences: map[string]uint64{},
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport:      transport,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		ErrorLog:       log.New(io.Discard, "", 0),
	}
	return p, nil
}

// SetFaults turns fault injection on or off; requests are forwarded
// (and logged) either way.
func (p *Proxy) SetFaults(on bool) { p.enabled.Store(on) }

// maxStreams is the listeners' HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS:
// far above what an operator process opens at once (a watch per informer
// and its requests), so its client keeps everything on one connection and a
// reset of one stream shows it spares the others.
const maxStreams = 1000

// Listen opens an HTTPS listener (HTTP/2 and HTTP/1.1) for process on
// 127.0.0.1 and serves it until Close; it returns the URL the process's
// kubeconfig points at, whose certificate CAData signed.
func (p *Proxy) Listen(process string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listening for %s: %w", process, err)
	}
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.serve(process, w, r) }),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{p.tls.cert}, MinVersion: tls.VersionTLS12},
		Protocols:         new(http.Protocols),
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: maxStreams},
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				p.stats.connection()
			}
		},
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetHTTP2(true)
	p.mu.Lock()
	p.servers = append(p.servers, srv)
	p.mu.Unlock()
	go func() { _ = srv.ServeTLS(l, "", "") }()
	return "https://" + l.Addr().String(), nil
}

// Close stops every listener and cuts what they serve.
func (p *Proxy) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, s := range p.servers {
		errs = append(errs, s.Close())
	}
	p.servers = nil
	return errors.Join(errs...)
}

// call is one request in flight.
type call struct {
	process string
	info    *request.RequestInfo
	plan    plan
	start   time.Time
	entry   *Entry // nil unless the request mutates
}

type callKey struct{}

func (p *Proxy) serve(process string, w http.ResponseWriter, r *http.Request) {
	info, err := p.info.NewRequestInfo(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c := &call{process: process, info: info, start: time.Now()}
	if p.enabled.Load() {
		c.plan = p.decide(process, r, info)
	}
	p.stats.count(c.plan.fault, r.ProtoMajor == 2)
	if isMutating(info) {
		c.entry = &Entry{
			Process: process, Start: c.start, Verb: info.Verb, Resource: info.Resource, Subresource: info.Subresource,
			Namespace: info.Namespace, Name: info.Name, Injected: c.plan.fault,
		}
		if c.entry.Name == "" && info.Verb == "create" {
			// A create names its object in the body only.
			c.entry.Name = requestName(r)
		}
		defer func() {
			c.entry.End = time.Now()
			p.log.add(*c.entry)
		}()
	}
	if c.plan.delay > 0 {
		select {
		case <-time.After(c.plan.delay):
		case <-r.Context().Done():
			return
		}
	}
	switch c.plan.fault {
	case TooManyRequests, InternalError, Unavailable:
		if c.entry != nil {
			c.entry.Code = c.plan.fault.code()
		}
		writeStatus(w, c.plan.fault.code())
		return
	case ResetBefore:
		reset(w)
		return
	}
	ctx := context.WithValue(r.Context(), callKey{}, c)
	var cut atomic.Bool
	if c.plan.cutAfter > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		t := time.AfterFunc(c.plan.cutAfter, func() {
			cut.Store(true)
			cancel()
		})
		defer t.Stop()
	}
	p.rp.ServeHTTP(w, r.WithContext(ctx))
	if cut.Load() {
		// The upstream may have ended its answer cleanly when the cut
		// closed it; the client must see a broken stream all the same.
		panic(http.ErrAbortHandler)
	}
}

// errInjected makes ReverseProxy hand the response to errorHandler after
// the apiserver answered.
type errInjected struct{ fault Fault }

func (e errInjected) Error() string { return "injected " + string(e.fault) }

// modifyResponse records what the apiserver answered a mutating request
// and turns the answer into the planned after-the-fact fault.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	c, _ := resp.Request.Context().Value(callKey{}).(*call)
	if c == nil || c.entry == nil {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return fmt.Errorf("reading the apiserver's answer: %w", err)
	}
	resp.Body = io.NopCloser(bytesReader(body))
	c.entry.Code = resp.StatusCode
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		m := decodeMeta(resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"), body)
		c.entry.RV, c.entry.HolderIdentity = m.rv, m.holder
		if c.entry.Name == "" {
			c.entry.Name = m.name
		}
	}
	switch c.plan.fault {
	case ErrorAfter500, ErrorAfter503, ResetAfter:
		return errInjected{c.plan.fault}
	}
	return nil
}

// errorHandler answers what the apiserver could not (502, as a load
// balancer would) and the faults planned after forwarding.
func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	var inj errInjected
	if errors.As(err, &inj) {
		if inj.fault == ResetAfter {
			reset(w)
			return
		}
		writeStatus(w, inj.fault.code())
		return
	}
	if c, _ := r.Context().Value(callKey{}).(*call); c != nil && c.entry != nil {
		c.entry.Code = 0 // no answer from the apiserver: the outcome is unknown
	}
	if r.Context().Err() != nil {
		// The client went away, or the watch was cut before the apiserver
		// answered: a cut must look like a broken stream, not an empty
		// answer.
		panic(http.ErrAbortHandler)
	}
	writeStatus(w, http.StatusBadGateway)
}

// writeStatus answers with a metav1.Status the client decodes like the
// apiserver's own; 429 asks for a retry after a second, as the apiserver's
// priority and fairness does.
func writeStatus(w http.ResponseWriter, code int) {
	if code == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	reason := map[int]string{
		http.StatusTooManyRequests:     "TooManyRequests",
		http.StatusInternalServerError: "InternalError",
		http.StatusServiceUnavailable:  "ServiceUnavailable",
		http.StatusBadGateway:          "InternalError",
	}[code]
	_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"faultproxy: %s","reason":%q,"code":%d}`,
		http.StatusText(code), reason, code)
}

// reset fails the request without an answer. On HTTP/2 the aborted handler
// resets its stream alone (RST_STREAM); every other stream of the
// connection goes on. On HTTP/1.1 the connection is the request's own, and
// is closed with a TCP RST.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // HTTP/2: no hijacking, the stream is reset
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	if tc, ok := conn.(*tls.Conn); ok {
		if tcp, ok := tc.NetConn().(*net.TCPConn); ok {
			_ = tcp.SetLinger(0)
		}
	}
	_ = conn.Close()
}

// requestName reads the name of the object in a create's body and leaves
// the body for forwarding.
func requestName(r *http.Request) string {
	if r.Body == nil {
		return ""
	}
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytesReader(body))
	if err != nil {
		return ""
	}
	return decodeMeta(r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding"), body).name
}

func isMutating(info *request.RequestInfo) bool {
	if !info.IsResourceRequest {
		return false
	}
	switch info.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}
