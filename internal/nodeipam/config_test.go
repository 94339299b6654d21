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
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
)

func TestNewConfig(t *testing.T) {
	zoneA := terms(exprs(req("zone", corev1.NodeSelectorOpIn, "a")))
	tests := []struct {
		name           string
		pn             *v1alpha1.PodNetwork
		wantRanges     []allocator.RangeSpec
		wantCandidates []string
		wantUnusable   []string
		wantSelErr     []string
		wantDelay      time.Duration
		wantPolicy     allocator.ExhaustedPolicy
	}{
		{
			name:      "no PodNetwork: nothing, default policy",
			pn:        nil,
			wantDelay: DefaultRecycleDelay, wantPolicy: allocator.Wait,
		},
		{
			name: "phases: Pending and Draining tracked inactive, Active allocating, Released left out",
			pn: podNetwork().
				rng("a-pending", "10.1.0.0/16", v1alpha1.RangePhasePending).
				rng("b-active", "10.2.0.0/16", v1alpha1.RangePhaseActive).
				rng("c-draining", "10.3.0.0/16", v1alpha1.RangePhaseDraining).
				rng("d-released", "10.4.0.0/16", v1alpha1.RangePhaseReleased).
				policy(5, v1alpha1.WhenExhaustedReuseOldest).obj(),
			wantRanges: []allocator.RangeSpec{
				{Name: "a-pending", Prefix: mp("10.1.0.0/16"), NodeMaskSize: 24},
				{Name: "b-active", Prefix: mp("10.2.0.0/16"), NodeMaskSize: 24, Active: true},
				{Name: "c-draining", Prefix: mp("10.3.0.0/16"), NodeMaskSize: 24},
			},
			wantCandidates: []string{"b-active"},
			wantDelay:      5 * time.Second, wantPolicy: allocator.ReuseOldest,
		},
		{
			name: "an invalid Pending range is not offered, hence not tracked",
			pn: podNetwork().
				rng("a", "10.1.0.0/16", v1alpha1.RangePhasePending, invalid(v1alpha1.RangeInvalidRangeConflict)).obj(),
			wantDelay: DefaultRecycleDelay, wantPolicy: allocator.Wait,
		},
		{
			name: "a range nested in an Active supernet allocates as part of it",
			pn: podNetwork().
				rng("big", "10.0.0.0/15", v1alpha1.RangePhaseActive).
				rng("small", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("v6", "fd00::/56", v1alpha1.RangePhaseActive).obj(),
			wantRanges: []allocator.RangeSpec{
				{Name: "big", Prefix: mp("10.0.0.0/15"), NodeMaskSize: 24, Active: true},
				{Name: "small", Prefix: mp("10.0.0.0/16"), NodeMaskSize: 24, Active: true},
				{Name: "v6", Prefix: mp("fd00::/56"), NodeMaskSize: 64, Active: true},
			},
			wantCandidates: []string{"big", "v6"},
			wantDelay:      DefaultRecycleDelay, wantPolicy: allocator.Wait,
		},
		{
			name: "a range nested in a Pending supernet is still a candidate",
			pn: podNetwork().
				rng("big", "10.0.0.0/15", v1alpha1.RangePhasePending).
				rng("small", "10.0.0.0/16", v1alpha1.RangePhaseActive).obj(),
			wantRanges: []allocator.RangeSpec{
				{Name: "big", Prefix: mp("10.0.0.0/15"), NodeMaskSize: 24},
				{Name: "small", Prefix: mp("10.0.0.0/16"), NodeMaskSize: 24, Active: true},
			},
			wantCandidates: []string{"small"},
			wantDelay:      DefaultRecycleDelay, wantPolicy: allocator.Wait,
		},
		{
			name: "overlap with another block size: the Pending range is unusable, the Active one kept",
			pn: podNetwork().
				rng("z-active", "10.0.0.0/16", v1alpha1.RangePhaseActive).
				rng("a-pending", "10.0.0.0/15", v1alpha1.RangePhasePending, mask(26)).obj(),
			wantRanges: []allocator.RangeSpec{
				{Name: "z-active", Prefix: mp("10.0.0.0/16"), NodeMaskSize: 24, Active: true},
			},
			wantCandidates: []string{"z-active"},
			wantUnusable:   []string{"a-pending"},
			wantDelay:      DefaultRecycleDelay, wantPolicy: allocator.Wait,
		},
		{
			name: "a range the allocator cannot split is unusable",
			pn: podNetwork().
				rng("huge", "10.0.0.0/16", v1alpha1.RangePhasePending, mask(8)).obj(),
			wantUnusable: []string{"huge"},
			wantDelay:    DefaultRecycleDelay, wantPolicy: allocator.Wait,
		},
		{
			name: "an Active range without a spec entry is tracked but no candidate",
			pn: func() *v1alpha1.PodNetwork {
				pn := podNetwork().rng("a", "10.0.0.0/16", v1alpha1.RangePhaseActive).obj()
				pn.Spec.Ranges = nil
				return pn
			}(),
			wantRanges: []allocator.RangeSpec{{Name: "a", Prefix: mp("10.0.0.0/16"), NodeMaskSize: 24, Active: true}},
			wantDelay:  DefaultRecycleDelay, wantPolicy: allocator.Wait,
		},
		{
			name: "ranges whose status another client set are tracked inactive until the lifecycle repaired them",
			pn: podNetwork().
				rng("edited-active", "10.1.0.0/16", v1alpha1.RangePhaseActive).
				rng("edited-released", "10.2.0.0/16", v1alpha1.RangePhaseReleased).
				rng("ok", "10.3.0.0/16", v1alpha1.RangePhaseActive).
				handEdited("edited-active", "phase").handEdited("edited-released", "phase").obj(),
			wantRanges: []allocator.RangeSpec{
				{Name: "edited-active", Prefix: mp("10.1.0.0/16"), NodeMaskSize: 24},
				{Name: "edited-released", Prefix: mp("10.2.0.0/16"), NodeMaskSize: 24},
				{Name: "ok", Prefix: mp("10.3.0.0/16"), NodeMaskSize: 24, Active: true},
			},
			wantCandidates: []string{"ok"},
			wantDelay:      DefaultRecycleDelay, wantPolicy: allocator.Wait,
		},
		{
			name: "selector errors are reported, the range stays a candidate",
			pn: podNetwork().
				rng("a", "10.0.0.0/16", v1alpha1.RangePhaseActive, selector(terms(exprs(req("zone", "Near", "a"))))).
				rng("b", "10.1.0.0/16", v1alpha1.RangePhaseActive, selector(zoneA)).obj(),
			wantRanges: []allocator.RangeSpec{
				{Name: "a", Prefix: mp("10.0.0.0/16"), NodeMaskSize: 24, Active: true},
				{Name: "b", Prefix: mp("10.1.0.0/16"), NodeMaskSize: 24, Active: true},
			},
			wantCandidates: []string{"a", "b"},
			wantSelErr:     []string{"a"},
			wantDelay:      DefaultRecycleDelay, wantPolicy: allocator.Wait,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConfig(tt.pn)
			if !slices.Equal(c.Ranges, tt.wantRanges) {
				t.Errorf("Ranges = %+v\nwant %+v", c.Ranges, tt.wantRanges)
			}
			var cands []string
			for _, cd := range c.Candidates {
				cands = append(cands, cd.Name)
			}
			if !slices.Equal(cands, tt.wantCandidates) {
				t.Errorf("Candidates = %v, want %v", cands, tt.wantCandidates)
			}
			if got := sortedKeys(c.Unusable); !slices.Equal(got, tt.wantUnusable) {
				t.Errorf("Unusable = %v, want %v", c.Unusable, tt.wantUnusable)
			}
			if got := sortedKeys(c.SelectorErrors); !slices.Equal(got, tt.wantSelErr) {
				t.Errorf("SelectorErrors = %v, want %v", c.SelectorErrors, tt.wantSelErr)
			}
			if c.RecycleDelay != tt.wantDelay || c.WhenExhausted != tt.wantPolicy {
				t.Errorf("policy = %v %v, want %v %v", c.RecycleDelay, c.WhenExhausted, tt.wantDelay, tt.wantPolicy)
			}
			// The allocator accepts every configuration NewConfig produces.
			if err := allocator.New(allocator.Options{}).SetRanges(c.Ranges); err != nil {
				t.Errorf("SetRanges: %v", err)
			}
			same := NewConfig(tt.pn)
			if !c.SameRanges(&same) {
				t.Errorf("SameRanges of two configs of the same PodNetwork is false")
			}
		})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
