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

package nodeipam

import (
	"testing"
	"time"
)

func TestChooseNodeSource(t *testing.T) {
	const maxWait = 10 * time.Second
	tests := []struct {
		name              string
		cacheRV, leaderRV string
		waited, maxWait   time.Duration
		want              NodeSource
		wantReason        bool
	}{
		{name: "cache at the leader-start version", cacheRV: "120", leaderRV: "120", maxWait: maxWait, want: NodeSourceCache},
		{name: "cache past it", cacheRV: "121", leaderRV: "120", waited: time.Second, maxWait: maxWait, want: NodeSourceCache},
		{name: "past it with more digits (not a string comparison)", cacheRV: "1000", leaderRV: "999", maxWait: maxWait, want: NodeSourceCache},
		{name: "older: wait", cacheRV: "119", leaderRV: "120", waited: 9 * time.Second, maxWait: maxWait, want: NodeSourceWait},
		{name: "older with fewer digits: wait", cacheRV: "999", leaderRV: "1000", maxWait: maxWait, want: NodeSourceWait},
		{name: "still older after the wait: list", cacheRV: "119", leaderRV: "120", waited: maxWait, maxWait: maxWait, want: NodeSourceList, wantReason: true},
		{name: "fresh cache after the wait is still used", cacheRV: "120", leaderRV: "120", waited: time.Minute, maxWait: maxWait, want: NodeSourceCache},
		{name: "the informer reports no version: list", cacheRV: "", leaderRV: "120", maxWait: maxWait, want: NodeSourceList, wantReason: true},
		{name: "the leader-start read has none: list", cacheRV: "120", leaderRV: "", maxWait: maxWait, want: NodeSourceList, wantReason: true},
		{name: "not an etcd version: list", cacheRV: "abc", leaderRV: "120", maxWait: maxWait, want: NodeSourceList, wantReason: true},
		{name: "leading zero: list", cacheRV: "0120", leaderRV: "120", maxWait: maxWait, want: NodeSourceList, wantReason: true},
		{name: "zero is no live version: list", cacheRV: "0", leaderRV: "120", maxWait: maxWait, want: NodeSourceList, wantReason: true},
		{name: "off: list even when fresh", cacheRV: "120", leaderRV: "120", maxWait: 0, want: NodeSourceList, wantReason: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := ChooseNodeSource(tt.cacheRV, tt.leaderRV, tt.waited, tt.maxWait)
			if got != tt.want {
				t.Errorf("ChooseNodeSource(%q, %q, %s, %s) = %s (%s), want %s", tt.cacheRV, tt.leaderRV, tt.waited, tt.maxWait, got, reason, tt.want)
			}
			if (reason != "") != tt.wantReason {
				t.Errorf("reason %q, want one: %t", reason, tt.wantReason)
			}
		})
	}
}

func TestWriteProbe(t *testing.T) {
	type event struct {
		rv       string
		bookmark bool
	}
	tests := []struct {
		name          string
		events        []event
		wantConfirmed bool
		wantTarget    string
		wantErr       bool
	}{
		{name: "no write, then a bookmark past the leader read: the cache as it is", events: []event{{"130", true}},
			wantConfirmed: true, wantTarget: "100"},
		{name: "a bookmark at the leader read", events: []event{{"120", true}}, wantConfirmed: true, wantTarget: "100"},
		{name: "writes before the leader read, then a bookmark: the last of them", events: []event{{"105", false}, {"110", false}, {"125", true}},
			wantConfirmed: true, wantTarget: "110"},
		{name: "a write after the leader read confirms too", events: []event{{"105", false}, {"121", false}},
			wantConfirmed: true, wantTarget: "105"},
		{name: "a write at the leader read is the target", events: []event{{"120", false}}, wantConfirmed: true, wantTarget: "120"},
		{name: "an early bookmark confirms nothing: the leader read", events: []event{{"105", false}, {"115", true}},
			wantConfirmed: false, wantTarget: "120"},
		{name: "no event at all: the leader read", wantTarget: "120"},
		{name: "a version that does not compare", events: []event{{"x", false}}, wantErr: true, wantTarget: "120"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &WriteProbe{From: "100", Leader: "120"}
			confirmed := false
			for _, e := range tt.events {
				var err error
				confirmed, err = p.Observe(e.rv, e.bookmark)
				if (err != nil) != tt.wantErr {
					t.Fatalf("Observe(%q, %t) error %v, want one: %t", e.rv, e.bookmark, err, tt.wantErr)
				}
				if confirmed || err != nil {
					break
				}
			}
			if confirmed != tt.wantConfirmed {
				t.Errorf("confirmed %t, want %t", confirmed, tt.wantConfirmed)
			}
			if got := p.Target(); got != tt.wantTarget {
				t.Errorf("Target() = %q, want %q", got, tt.wantTarget)
			}
		})
	}
}
