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
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
)

func TestAllocate(t *testing.T) {
	const delay = time.Minute
	// a: 2 blocks, b: 2 blocks, v6: 2 blocks, v6-b: 2 blocks.
	ranges := []allocator.RangeSpec{
		{Name: "a", Prefix: mp("10.0.0.0/25"), NodeMaskSize: 26, Active: true},
		{Name: "b", Prefix: mp("10.0.1.0/25"), NodeMaskSize: 26, Active: true},
		{Name: "v6", Prefix: mp("fd00::/63"), NodeMaskSize: 64, Active: true},
		{Name: "v6-b", Prefix: mp("fd00:1::/63"), NodeMaskSize: 64, Active: true},
		{Name: "off", Prefix: mp("10.0.2.0/25"), NodeMaskSize: 26},
	}
	type call struct {
		at       time.Duration
		owner    string
		families [][]string
		release  bool
		want     []string
		wantErr  string // substring of the UnavailableError
		retryIn  time.Duration
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{
			name: "single family fills the best range, then the next",
			calls: []call{
				{owner: "n1", families: [][]string{{"a", "b"}}, want: []string{"10.0.0.0/26"}},
				{owner: "n2", families: [][]string{{"a", "b"}}, want: []string{"10.0.0.64/26"}},
				{owner: "n3", families: [][]string{{"a", "b"}}, want: []string{"10.0.1.0/26"}},
			},
		},
		{
			name: "dual-stack gets both families in one step",
			calls: []call{
				{owner: "n1", families: [][]string{{"a"}, {"v6"}}, want: []string{"10.0.0.0/26", "fd00::/64"}},
			},
		},
		{
			name: "dual-stack: an exhausted second family leaves the first untouched",
			calls: []call{
				{owner: "x1", families: [][]string{{"v6"}}, want: []string{"fd00::/64"}},
				{owner: "x2", families: [][]string{{"v6"}}, want: []string{"fd00:0:0:1::/64"}},
				{owner: "n1", families: [][]string{{"a"}, {"v6"}}, wantErr: `range "v6" (fd00::/63): all 2 blocks are allocated`},
				{owner: "n1", families: [][]string{{"a"}, {"v6"}}, wantErr: `range "v6" (fd00::/63): all 2 blocks are allocated`},
				// Nothing leaked: both blocks of a are still there.
				{owner: "n2", families: [][]string{{"a"}}, want: []string{"10.0.0.0/26"}},
				{owner: "n3", families: [][]string{{"a"}}, want: []string{"10.0.0.64/26"}},
			},
		},
		{
			name: "dual-stack falls back per family",
			calls: []call{
				{owner: "x1", families: [][]string{{"v6"}}, want: []string{"fd00::/64"}},
				{owner: "x2", families: [][]string{{"v6"}}, want: []string{"fd00:0:0:1::/64"}},
				{owner: "n1", families: [][]string{{"a", "b"}, {"v6", "v6-b"}}, want: []string{"10.0.0.0/26", "fd00:1::/64"}},
			},
		},
		{
			name: "quarantined blocks: the error says when to retry",
			calls: []call{
				{owner: "n1", families: [][]string{{"a"}}, want: []string{"10.0.0.0/26"}},
				{owner: "n2", families: [][]string{{"a"}}, want: []string{"10.0.0.64/26"}},
				{at: 10 * time.Second, owner: "n1", release: true},
				{at: 30 * time.Second, owner: "n3", families: [][]string{{"a"}}, wantErr: "recycle delay", retryIn: 40 * time.Second},
				{at: 70 * time.Second, owner: "n3", families: [][]string{{"a"}}, want: []string{"10.0.0.0/26"}},
			},
		},
		{
			name: "an inactive range is skipped",
			calls: []call{
				{owner: "n1", families: [][]string{{"off", "a"}}, want: []string{"10.0.0.0/26"}},
				{owner: "n2", families: [][]string{{"off"}}, wantErr: "not active"},
			},
		},
		{
			name: "no family at all",
			calls: []call{
				{owner: "n1", families: nil, wantErr: "no Active range matches the node"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := allocator.New(allocator.Options{RecycleDelay: delay})
			if err := a.SetRanges(ranges); err != nil {
				t.Fatal(err)
			}
			for i, c := range tt.calls {
				now := t0.Add(c.at)
				if c.release {
					a.Release(c.owner, now)
					continue
				}
				got, err := Allocate(a, c.owner, c.families, now)
				if c.wantErr != "" {
					var ue *UnavailableError
					if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.wantErr) {
						t.Fatalf("call %d: error %v, want an UnavailableError containing %q", i, err, c.wantErr)
					}
					if ue.RetryIn != c.retryIn {
						t.Fatalf("call %d: RetryIn %v, want %v", i, ue.RetryIn, c.retryIn)
					}
					if hs := holdingsOf(a, c.owner); len(hs) != 0 {
						t.Fatalf("call %d: failed Allocate left %v held by %s", i, hs, c.owner)
					}
					continue
				}
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				var gs []string
				for _, p := range got {
					gs = append(gs, p.String())
				}
				if !slices.Equal(gs, c.want) {
					t.Fatalf("call %d: Allocate = %v, want %v", i, gs, c.want)
				}
			}
		})
	}
}

func holdingsOf(a *allocator.Allocator, owner string) []netip.Prefix {
	var out []netip.Prefix
	for _, h := range a.Holdings() {
		if h.Owner == owner {
			out = append(out, h.Prefix)
		}
	}
	return out
}

func TestAllocateReturnsUnexpectedErrors(t *testing.T) {
	a := allocator.New(allocator.Options{})
	if err := a.SetRanges([]allocator.RangeSpec{{Name: "a", Prefix: mp("10.0.0.0/24"), NodeMaskSize: 26, Active: true}}); err != nil {
		t.Fatal(err)
	}
	_, err := Allocate(a, "", [][]string{{"a"}}, t0)
	var ue *UnavailableError
	if !errors.Is(err, allocator.ErrInvalidOwner) || errors.As(err, &ue) {
		t.Fatalf("error %v, want ErrInvalidOwner as is", err)
	}
}

func TestUnavailableMessage(t *testing.T) {
	tests := []struct {
		name string
		err  UnavailableError
		want string
	}{
		{
			name: "exhausted",
			err:  UnavailableError{Reasons: []string{`range "a" (10.0.0.0/24): all 4 blocks are allocated: no free block in range`}},
			want: `No podCIDR is available for this node: range "a" (10.0.0.0/24): all 4 blocks are allocated: no free block in range.`,
		},
		{
			name: "quarantined says when",
			err:  UnavailableError{Reasons: []string{"x", "y"}, RetryIn: 89*time.Second + 600*time.Millisecond},
			want: "No podCIDR is available for this node: x; y. NodeIPAM retries in 1m30s, when the first quarantined block becomes reusable (spec.allocation.whenExhausted is Wait).",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Message(); got != tt.want {
				t.Fatalf("Message() = %q\nwant        %q", got, tt.want)
			}
		})
	}
	long := UnavailableError{Reasons: []string{strings.Repeat("r", 2000)}}
	if got := long.Message(); len(got) != v1alpha1.MaxMessageLength || !strings.HasSuffix(got, "...") {
		t.Fatalf("a long message is %d bytes, want it cut to %d", len(got), v1alpha1.MaxMessageLength)
	}
}
