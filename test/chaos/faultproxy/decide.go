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
	"hash/fnv"
	"maps"
	"net/http"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/endpoints/request"
)

// Fault is what the proxy does to one request besides forwarding it.
type Fault string

// The faults; "" is none (latency alone is not a fault).
const (
	None            Fault = ""
	TooManyRequests Fault = "429"
	InternalError   Fault = "500"
	Unavailable     Fault = "503"
	// ErrorAfter500 and ErrorAfter503 forward the request and answer 500 or
	// 503 instead of what the apiserver answered.
	ErrorAfter500 Fault = "500-after"
	ErrorAfter503 Fault = "503-after"
	// ResetBefore resets the request without forwarding it: its stream
	// alone on HTTP/2 (RST_STREAM), its connection on HTTP/1.1.
	ResetBefore Fault = "reset"
	// ResetAfter forwards the request and resets it, the same way, instead
	// of answering.
	ResetAfter Fault = "reset-after"
	WatchCut   Fault = "watch-cut"
)

// Faults lists every fault, in report order.
var Faults = []Fault{TooManyRequests, InternalError, Unavailable, ErrorAfter500, ErrorAfter503, ResetBefore, ResetAfter, WatchCut}

func (f Fault) code() int {
	switch f {
	case TooManyRequests:
		return http.StatusTooManyRequests
	case InternalError, ErrorAfter500:
		return http.StatusInternalServerError
	case Unavailable, ErrorAfter503:
		return http.StatusServiceUnavailable
	}
	return 0
}

// plan is what happens to one request.
type plan struct {
	fault    Fault
	delay    time.Duration
	cutAfter time.Duration
}

// errorFaults divide ErrorRate; a watch's error is one before forwarding.
var errorFaults = []Fault{TooManyRequests, InternalError, Unavailable, ErrorAfter500, ErrorAfter503, ResetBefore, ResetAfter}

// decide plans the request: the n-th request with this method and path
// from process gets the same plan under the same seed.
func (p *Proxy) decide(process string, r *http.Request, info *request.RequestInfo) plan {
	key := process + " " + r.Method + " " + r.URL.Path
	if info.Verb == "watch" {
		key += " watch"
	}
	p.mu.Lock()
	n := p.sequences[key]
	p.sequences[key] = n + 1
	p.mu.Unlock()
	return planFor(p.cfg, key, n, info.Verb == "watch")
}

// planFor is decide's pure part.
func planFor(cfg Config, key string, n uint64, watch bool) plan {
	u := uniforms(cfg.Seed, key, n)
	var pl plan
	if u[0] < cfg.ErrorRate {
		if watch {
			pl.fault = []Fault{TooManyRequests, InternalError, Unavailable, ResetBefore}[int(u[1]*4)%4]
		} else {
			pl.fault = errorFaults[int(u[1]*float64(len(errorFaults)))%len(errorFaults)]
		}
		return pl
	}
	if u[2] < cfg.LatencyRate {
		pl.delay = time.Duration(u[3] * float64(cfg.MaxLatency))
	}
	if watch && u[4] < cfg.WatchCutRate {
		pl.fault = WatchCut
		pl.cutAfter = cfg.MinWatchCut + time.Duration(u[5]*float64(cfg.MaxWatchCut-cfg.MinWatchCut))
	}
	return pl
}

// uniforms returns six numbers in [0, 1) derived from seed, key and n:
// FNV-1a of the key, then SplitMix64's finalizer, whose avalanche keeps
// the numbers uniform however little the inputs differ.
func uniforms(seed int64, key string, n uint64) [6]float64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	base := mix(h.Sum64() ^ mix(uint64(seed)) ^ mix(n+0x632be59bd9b4e019))
	var out [6]float64
	for i := range out {
		out[i] = float64(mix(base+uint64(i)*0x9e3779b97f4a7c15)>>11) / float64(1<<53)
	}
	return out
}

// mix is SplitMix64's finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Stats counts requests and the faults injected into them.
type Stats struct {
	Requests int
	// HTTP2 counts the requests that came over HTTP/2, Connections the
	// connections the processes opened to the listeners (on HTTP/2 a
	// process keeps one while it runs, so a reset spares its other
	// streams).
	HTTP2, Connections int
	Faults             map[Fault]int
}

// Injected is the number of requests that got an error or reset (watch
// cuts and latency not counted).
func (s Stats) Injected() int {
	n := 0
	for f, c := range s.Faults {
		if f != WatchCut {
			n += c
		}
	}
	return n
}

type stats struct {
	mu          sync.Mutex
	requests    int
	http2       int
	connections int
	faults      map[Fault]int
}

func (s *stats) count(f Fault, http2 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	if http2 {
		s.http2++
	}
	if f != None {
		if s.faults == nil {
			s.faults = map[Fault]int{}
		}
		s.faults[f]++
	}
}

func (s *stats) connection() {
	s.mu.Lock()
	s.connections++
	s.mu.Unlock()
}

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	p.stats.mu.Lock()
	defer p.stats.mu.Unlock()
	return Stats{Requests: p.stats.requests, HTTP2: p.stats.http2, Connections: p.stats.connections, Faults: maps.Clone(p.stats.faults)}
}
