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

package allocator

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// step is one operation of a policy scenario.
type step struct {
	at      time.Duration // offset from t0
	assign  string        // owner to assign
	release string        // owner to release
	want    string        // expected prefix for assign
	wantErr error         // expected error for assign (errors.Is)
	retryIn time.Duration // expected RetryIn for ErrQuarantined
}

func TestAssignPolicy(t *testing.T) {
	const delay = time.Minute
	// 10.0.0.0/24 split into /26: four blocks .0 .64 .128 .192.
	fill := []step{
		{assign: "n1", want: "10.0.0.0/26"},
		{assign: "n2", want: "10.0.0.64/26"},
		{assign: "n3", want: "10.0.0.128/26"},
		{assign: "n4", want: "10.0.0.192/26"},
	}
	tests := []struct {
		name   string
		policy ExhaustedPolicy
		steps  []step
	}{
		{
			name:   "never-used lowest index first, then exhausted",
			policy: Wait,
			steps:  append(fill, step{assign: "n5", wantErr: ErrExhausted}),
		},
		{
			name:   "idempotent assign",
			policy: Wait,
			steps:  []step{{assign: "n1", want: "10.0.0.0/26"}, {assign: "n1", want: "10.0.0.0/26"}, {assign: "n2", want: "10.0.0.64/26"}},
		},
		{
			name:   "never-used preferred over a reusable freed block",
			policy: Wait,
			steps: []step{
				{assign: "n1", want: "10.0.0.0/26"},
				{at: time.Second, release: "n1"},
				{at: time.Hour, assign: "n2", want: "10.0.0.64/26"},
				{at: time.Hour, assign: "n3", want: "10.0.0.128/26"},
				{at: time.Hour, assign: "n4", want: "10.0.0.192/26"},
				{at: time.Hour, assign: "n5", want: "10.0.0.0/26"},
			},
		},
		{
			name:   "freed blocks reused oldest first",
			policy: Wait,
			steps: append(fill,
				step{at: 1 * time.Second, release: "n3"},
				step{at: 2 * time.Second, release: "n1"},
				step{at: 3 * time.Second, release: "n4"},
				step{at: time.Hour, assign: "a", want: "10.0.0.128/26"},
				step{at: time.Hour, assign: "b", want: "10.0.0.0/26"},
				step{at: time.Hour, assign: "c", want: "10.0.0.192/26"},
				step{at: time.Hour, assign: "d", wantErr: ErrExhausted},
			),
		},
		{
			name:   "Wait reports when the earliest quarantined block is free",
			policy: Wait,
			steps: append(fill,
				step{at: 10 * time.Second, release: "n2"},
				step{at: 20 * time.Second, release: "n1"},
				step{at: 30 * time.Second, assign: "n5", wantErr: ErrQuarantined, retryIn: 40 * time.Second},
				step{at: 69 * time.Second, assign: "n5", wantErr: ErrQuarantined, retryIn: time.Second},
				step{at: 70 * time.Second, assign: "n5", want: "10.0.0.64/26"},
				step{at: 70 * time.Second, assign: "n6", wantErr: ErrQuarantined, retryIn: 10 * time.Second},
				step{at: 80 * time.Second, assign: "n6", want: "10.0.0.0/26"},
			),
		},
		{
			name:   "ReuseOldest takes the quarantined block freed longest ago",
			policy: ReuseOldest,
			steps: append(fill,
				step{at: 10 * time.Second, release: "n3"},
				step{at: 20 * time.Second, release: "n1"},
				step{at: 21 * time.Second, assign: "n5", want: "10.0.0.128/26"},
				step{at: 22 * time.Second, assign: "n6", want: "10.0.0.0/26"},
				step{at: 23 * time.Second, assign: "n7", wantErr: ErrExhausted},
			),
		},
		{
			name:   "same freed time breaks ties by lowest block",
			policy: Wait,
			steps: append(fill,
				step{at: time.Second, release: "n4"},
				step{at: time.Second, release: "n2"},
				step{at: time.Hour, assign: "x", want: "10.0.0.64/26"},
				step{at: time.Hour, assign: "y", want: "10.0.0.192/26"},
			),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			a := newTestAllocator(t, Options{RecycleDelay: delay, WhenExhausted: tt.policy}, spec("r", "10.0.0.0/24", 26))
			for i, s := range tt.steps {
				now := t0.Add(s.at)
				desc := fmt.Sprintf("step %d %+v", i, s)
				switch {
				case s.release != "":
					g.Expect(a.Release(s.release, now)).NotTo(BeEmpty(), desc)
				case s.wantErr != nil:
					_, err := a.Assign(s.assign, "r", now)
					g.Expect(errors.Is(err, s.wantErr)).To(BeTrue(), "%s: got %v", desc, err)
					var qe *QuarantinedError
					if errors.As(err, &qe) {
						g.Expect(qe.RetryIn).To(Equal(s.retryIn), desc)
						g.Expect(qe.ReusableAt).To(Equal(now.Add(s.retryIn)), desc)
						g.Expect(errors.Is(err, ErrExhausted)).To(BeFalse(), "quarantined is not exhausted")
						g.Expect(err.Error()).To(ContainSubstring("retry in " + s.retryIn.String()))
					}
				default:
					g.Expect(a.Assign(s.assign, "r", now)).To(Equal(mp(s.want)), desc)
				}
				mustInvariants(t, a)
				mustUsage(t, a, "r", now)
			}
		})
	}
}

func TestUsageAndHolders(t *testing.T) {
	g := NewWithT(t)
	a := newTestAllocator(t, Options{RecycleDelay: time.Minute}, spec("v4", "10.0.0.0/16", 24), spec("v6", "fd00::/48", 64))
	mustAssign(t, a, "node-b", "v4", t0)
	mustAssign(t, a, "node-a", "v4", t0)
	mustAssign(t, a, "node-c", "v4", t0)
	mustAssign(t, a, "node-a", "v6", t0)
	a.Release("node-c", t0)

	g.Expect(mustUsage(t, a, "v4", t0)).To(Equal(Usage{Capacity: 256, Allocated: 2, Free: 253, Quarantined: 1}))
	g.Expect(mustUsage(t, a, "v4", t0.Add(time.Minute))).To(Equal(Usage{Capacity: 256, Allocated: 2, Free: 254}))
	g.Expect(mustUsage(t, a, "v6", t0)).To(Equal(Usage{Capacity: 65536, Allocated: 1, Free: 65535}))
	g.Expect(a.Holders("v4")).To(Equal([]string{"node-a", "node-b"}))
	g.Expect(a.Holders("v6")).To(Equal([]string{"node-a"}))

	_, err := a.Usage("nope", t0)
	g.Expect(errors.Is(err, ErrUnknownRange)).To(BeTrue())
	_, err = a.Holders("nope")
	g.Expect(errors.Is(err, ErrUnknownRange)).To(BeTrue())
	_, err = a.Assign("x", "nope", t0)
	g.Expect(errors.Is(err, ErrUnknownRange)).To(BeTrue())
	_, err = a.Assign("", "v4", t0)
	g.Expect(err).To(MatchError(ErrInvalidOwner))
	g.Expect(a.Release("nobody", t0)).To(BeNil())
}

func TestReserveOddSizedPrefixes(t *testing.T) {
	// 10.0.0.0/22 split into /24: blocks .0 .1 .2 .3.
	tests := []struct {
		name          string
		reserve       []Holding
		wantAllocated int
		wantNext      string // next Assign result; "" means ErrExhausted
		wantUnmanaged []Holding
		wantConflicts map[string][]string
	}{
		{name: "exact block", reserve: []Holding{{"n1", mp("10.0.0.0/24")}}, wantAllocated: 1, wantNext: "10.0.1.0/24"},
		{name: "host bits are masked", reserve: []Holding{{"n1", netip.PrefixFrom(netip.MustParseAddr("10.0.0.77"), 24)}}, wantAllocated: 1, wantNext: "10.0.1.0/24"},
		{name: "larger than a block holds two", reserve: []Holding{{"n1", mp("10.0.0.0/23")}}, wantAllocated: 2, wantNext: "10.0.2.0/24"},
		{name: "smaller than a block holds the block", reserve: []Holding{{"n1", mp("10.0.0.64/26")}}, wantAllocated: 1, wantNext: "10.0.1.0/24"},
		{name: "larger than the range holds all", reserve: []Holding{{"n1", mp("10.0.0.0/8")}}, wantAllocated: 4, wantNext: ""},
		{
			name:          "outside every range is recorded as unmanaged",
			reserve:       []Holding{{"n1", mp("192.168.0.0/24")}, {"n2", mp("fd00::/64")}},
			wantAllocated: 0, wantNext: "10.0.0.0/24",
			wantUnmanaged: []Holding{{"n1", mp("192.168.0.0/24")}, {"n2", mp("fd00::/64")}},
		},
		{
			name:          "idempotent",
			reserve:       []Holding{{"n1", mp("10.0.1.0/24")}, {"n1", mp("10.0.1.0/24")}},
			wantAllocated: 1, wantNext: "10.0.0.0/24",
		},
		{
			name:          "overlapping owners share a block",
			reserve:       []Holding{{"n1", mp("10.0.0.0/25")}, {"n2", mp("10.0.0.128/25")}, {"n3", mp("10.0.0.0/24")}},
			wantAllocated: 1, wantNext: "10.0.1.0/24",
			wantConflicts: map[string][]string{"n1": {"n3"}, "n2": {"n3"}, "n3": {"n1", "n2"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			a := newTestAllocator(t, Options{}, spec("r", "10.0.0.0/22", 24))
			for _, h := range tt.reserve {
				g.Expect(a.Reserve(h.Owner, h.Prefix)).To(Succeed())
			}
			mustInvariants(t, a)
			g.Expect(mustUsage(t, a, "r", t0).Allocated).To(Equal(tt.wantAllocated))
			g.Expect(a.Unmanaged()).To(Equal(tt.wantUnmanaged))
			for owner, want := range tt.wantConflicts {
				g.Expect(a.Conflicts(owner)).To(Equal(want), owner)
			}
			got, err := a.Assign("new", "r", t0)
			if tt.wantNext == "" {
				g.Expect(errors.Is(err, ErrExhausted)).To(BeTrue(), "got %v", err)
			} else {
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(got).To(Equal(mp(tt.wantNext)))
			}
			mustInvariants(t, a)
		})
	}
}

func TestReleaseWithOverlappingOwners(t *testing.T) {
	g := NewWithT(t)
	a := newTestAllocator(t, Options{RecycleDelay: time.Minute}, spec("r", "10.0.0.0/22", 24))
	g.Expect(a.Reserve("wide", mp("10.0.0.0/23"))).To(Succeed())
	g.Expect(a.Reserve("narrow", mp("10.0.1.0/26"))).To(Succeed())
	g.Expect(mustUsage(t, a, "r", t0).Allocated).To(Equal(2))

	// Releasing the wide owner frees 10.0.0.0/24 only: 10.0.1.0/24 is still held.
	g.Expect(a.Release("wide", t0)).To(Equal([]netip.Prefix{mp("10.0.0.0/23")}))
	mustInvariants(t, a)
	g.Expect(mustUsage(t, a, "r", t0)).To(Equal(Usage{Capacity: 4, Allocated: 1, Free: 2, Quarantined: 1}))
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{{mp("10.0.0.0/24"), t0}}))
	g.Expect(a.Holders("r")).To(Equal([]string{"narrow"}))

	g.Expect(a.Release("narrow", t0.Add(time.Second))).To(Equal([]netip.Prefix{mp("10.0.1.0/26")}))
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{{mp("10.0.0.0/24"), t0}, {mp("10.0.1.0/24"), t0.Add(time.Second)}}))
}

func TestReserveTakesBlockOutOfQuarantine(t *testing.T) {
	g := NewWithT(t)
	a := newTestAllocator(t, Options{RecycleDelay: time.Hour}, spec("r", "10.0.0.0/22", 24))
	b := mustAssign(t, a, "old", "r", t0)
	a.Release("old", t0)
	g.Expect(a.Quarantine()).To(HaveLen(1))

	// A Node that already carries the block (the API is the truth) adopts it.
	g.Expect(a.Reserve("adopted", b)).To(Succeed())
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(BeEmpty())
	g.Expect(mustUsage(t, a, "r", t0)).To(Equal(Usage{Capacity: 4, Allocated: 1, Free: 3}))

	// A wide adoption takes several freed blocks out at once.
	for _, o := range []string{"x", "y", "z"} {
		mustAssign(t, a, o, "r", t0)
	}
	for _, o := range []string{"x", "y", "z", "adopted"} {
		a.Release(o, t0)
	}
	g.Expect(a.Quarantine()).To(HaveLen(4))
	g.Expect(a.Reserve("wide", mp("10.0.0.0/23"))).To(Succeed())
	mustInvariants(t, a)
	g.Expect(a.Quarantine()).To(Equal([]QuarantineEntry{{mp("10.0.2.0/24"), t0}, {mp("10.0.3.0/24"), t0}}))
}

func TestInactiveRange(t *testing.T) {
	g := NewWithT(t)
	a := newTestAllocator(t, Options{}, spec("r", "10.0.0.0/22", 24))
	held := mustAssign(t, a, "n1", "r", t0)
	g.Expect(a.SetRanges([]RangeSpec{{Name: "r", Prefix: mp("10.0.0.0/22"), NodeMaskSize: 24, Active: false}})).To(Succeed())

	_, err := a.Assign("n2", "r", t0)
	g.Expect(errors.Is(err, ErrRangeInactive)).To(BeTrue(), "got %v", err)
	_, err = a.AssignMany("n2", []string{"r"}, t0)
	g.Expect(errors.Is(err, ErrRangeInactive)).To(BeTrue(), "got %v", err)

	// A holder of a Draining range still gets its block back idempotently,
	// and the range still reports usage and holders.
	g.Expect(a.Assign("n1", "r", t0)).To(Equal(held))
	g.Expect(a.Holders("r")).To(Equal([]string{"n1"}))
	g.Expect(mustUsage(t, a, "r", t0).Allocated).To(Equal(1))
}

func TestInputValidation(t *testing.T) {
	g := NewWithT(t)
	a := New(Options{RecycleDelay: -time.Second})
	g.Expect(a.opts.RecycleDelay).To(BeZero())
	g.Expect(a.opts.MaxQuarantine).To(Equal(DefaultMaxQuarantine))

	g.Expect(a.Reserve("", mp("10.0.0.0/24"))).To(MatchError(ErrInvalidOwner))
	g.Expect(errors.Is(a.Reserve("n", netip.Prefix{}), ErrInvalidPrefix)).To(BeTrue())
	_, err := a.AssignMany("", []string{"r"}, t0)
	g.Expect(err).To(MatchError(ErrInvalidOwner))
	g.Expect(a.Holdings()).To(BeEmpty())

	g.Expect(Wait.String()).To(Equal("Wait"))
	g.Expect(ReuseOldest.String()).To(Equal("ReuseOldest"))
	g.Expect(ExhaustedPolicy(9).String()).To(Equal("Unknown"))
	r, err := NewRange(mp("10.0.0.0/16"), 24)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(r.String()).To(Equal("10.0.0.0/16 split into /24"))
}
