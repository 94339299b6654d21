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

package cli

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// AutoscalingView is the autoscaler in Status: its mode and every pool.
type AutoscalingView struct {
	// Mode is spec.autoscaling.mode (Off when unset).
	Mode v1alpha1.AutoscalingMode `json:"mode"`
	// Message is the autoscaler's one-line summary.
	Message string `json:"message,omitempty"`
	// Pools are the pools of spec.autoscaling, with what the autoscaler
	// reports of each.
	Pools []PoolView `json:"pools"`
}

// PoolView is one autoscaling pool.
type PoolView struct {
	Name string `json:"name"`
	CIDR string `json:"cidr,omitempty"`
	// State is the autoscaler's summary (Steady, Growing, Shrinking,
	// Recommending, Exhausted, Blocked); empty before it reported on the
	// pool.
	State   v1alpha1.PoolState `json:"state,omitempty"`
	Message string             `json:"message,omitempty"`
	// Ranges are the ranges of AutoscaledRangeSet default the pool added.
	Ranges []string `json:"ranges"`
	// MaxRanges is the pool's maxRanges (defaulted).
	MaxRanges int32 `json:"maxRanges,omitempty"`
	// CapacityBlocks and FreeBlocks are the node blocks of the Active ranges
	// serving the pool's nodes; WaitingNodes its nodes without a block.
	CapacityBlocks *int64 `json:"capacityBlocks,omitempty"`
	FreeBlocks     *int64 `json:"freeBlocks,omitempty"`
	WaitingNodes   *int32 `json:"waitingNodes,omitempty"`
	// ExhaustionSeconds is the forecast time until no block is free.
	ExhaustionSeconds *int64 `json:"exhaustionSeconds,omitempty"`
	// Exhausted and Blocked are "reason: message" of the pool's conditions
	// when True.
	Exhausted string `json:"exhausted,omitempty"`
	Blocked   string `json:"blocked,omitempty"`
	// Recommendation is the step Recommend mode would take, in words.
	Recommendation string `json:"recommendation,omitempty"`
}

// autoscalingView reads the autoscaler's pools; nil when there is no
// autoscaling configured, reported, nor any autoscaled range.
func autoscalingView(c *Cluster) *AutoscalingView {
	pn := c.PodNetwork
	set := c.AutoscaledRangeSet
	var status *v1alpha1.AutoscalingStatus
	if pn != nil {
		status = pn.Status.Autoscaling
	}
	hasSet := set != nil && set.Spec != nil && len(set.Spec.Ranges) > 0
	if (pn == nil || !pn.Spec.Autoscaling.IsSet()) && status == nil && !hasSet {
		return nil
	}
	v := &AutoscalingView{Mode: v1alpha1.AutoscalingOff, Pools: []PoolView{}}
	if pn != nil && pn.Spec.Autoscaling.Mode != "" {
		v.Mode = pn.Spec.Autoscaling.Mode
	}
	if status != nil {
		v.Message = status.Message
	}
	index := map[string]int{}
	pool := func(name string) *PoolView {
		if i, ok := index[name]; ok {
			return &v.Pools[i]
		}
		index[name] = len(v.Pools)
		v.Pools = append(v.Pools, PoolView{Name: name, Ranges: []string{}})
		return &v.Pools[len(v.Pools)-1]
	}
	if pn != nil {
		for _, p := range pn.Spec.Autoscaling.Pools {
			pv := pool(p.Name)
			pv.CIDR = p.CIDR
			pv.MaxRanges = p.MaxRanges
			if pv.MaxRanges == 0 {
				pv.MaxRanges = v1alpha1.DefaultPoolMaxRanges
			}
		}
	}
	if status != nil {
		for i := range status.Pools {
			ps := &status.Pools[i]
			pv := pool(ps.Name)
			pv.State, pv.Message = ps.State, ps.Message
			pv.CapacityBlocks, pv.FreeBlocks, pv.WaitingNodes, pv.ExhaustionSeconds = ps.CapacityBlocks, ps.FreeBlocks, ps.WaitingNodes, ps.ExhaustionSeconds
			if cond := meta.FindStatusCondition(ps.Conditions, v1alpha1.PoolExhaustedCondition); cond != nil && cond.Status == "True" {
				pv.Exhausted = cond.Reason + ": " + cond.Message
			}
			if cond := meta.FindStatusCondition(ps.Conditions, v1alpha1.PoolBlockedCondition); cond != nil && cond.Status == "True" {
				pv.Blocked = cond.Reason + ": " + cond.Message
			}
			if r := ps.Recommendation; r.Action != "" {
				pv.Recommendation = strings.TrimSpace(fmt.Sprintf("%s %s %s", r.Action, r.Range, r.CIDR))
			}
		}
	}
	if hasSet {
		for _, r := range set.Spec.Ranges {
			pv := pool(r.Pool)
			pv.Ranges = append(pv.Ranges, r.Name)
		}
	}
	return v
}

// AutoscaledOwner returns the pool of AutoscaledRangeSet default that added
// the range name, and whether the autoscaler added it: from the set, or
// from the PodNetwork's status when the set could not be read.
func (c *Cluster) AutoscaledOwner(name string) (string, bool) {
	if set := c.AutoscaledRangeSet; set != nil && set.Spec != nil {
		for _, r := range set.Spec.Ranges {
			if r.Name == name {
				return r.Pool, true
			}
		}
	}
	if c.PodNetwork != nil {
		if rs := c.PodNetwork.Status.FindRange(name); rs != nil && rs.Pool != "" {
			return rs.Pool, true
		}
	}
	return "", false
}

// RemoveAutoscaled explains why range name, which pool added, is not
// removed from spec.ranges, and how to remove it.
func RemoveAutoscaled(name, pool string) string {
	return fmt.Sprintf("range %q is not in spec.ranges: pool %s of AutoscaledRangeSet %s added it, and the autoscaler owns it. "+
		"To remove it, edit pool %s in the PodNetwork's spec.autoscaling.pools (shrink gives back a range left empty; mode Off or a lower maxRanges keeps it from adding another), "+
		"or delete its entry from AutoscaledRangeSet %s (kubectl edit ars %s): it then drains like a range removed from spec.ranges (docs/autoscaling.md#turning-it-off)",
		name, pool, v1alpha1.AutoscaledRangeSetName, pool, v1alpha1.AutoscaledRangeSetName, v1alpha1.AutoscaledRangeSetName)
}

// writeAutoscalingText prints the pools of status.
func writeAutoscalingText(b *strings.Builder, a *AutoscalingView) error {
	if a == nil || len(a.Pools) == 0 {
		return nil
	}
	fmt.Fprintf(b, "\nAUTOSCALING (mode %s)\n", a.Mode)
	t := newTable("POOL", "CIDR", "STATE", "RANGES", "FREE BLOCKS", "WAITING NODES", "MESSAGE")
	for i := range a.Pools {
		p := &a.Pools[i]
		ranges := "-"
		if len(p.Ranges) > 0 {
			ranges = strings.Join(p.Ranges, ",")
		}
		if p.MaxRanges > 0 {
			ranges += fmt.Sprintf(" (%d of max %d)", len(p.Ranges), p.MaxRanges)
		}
		free := "-"
		if p.FreeBlocks != nil {
			free = fmt.Sprintf("%d of %d", *p.FreeBlocks, ptr.Deref(p.CapacityBlocks, 0))
		}
		waiting := "-"
		if p.WaitingNodes != nil {
			waiting = fmt.Sprint(*p.WaitingNodes)
		}
		t.row(p.Name, orDash(p.CIDR), orDash(string(p.State)), ranges, free, waiting, orDash(p.Message))
		if p.Exhausted != "" {
			t.detail("exhausted: %s", p.Exhausted)
		}
		if p.Blocked != "" {
			t.detail("blocked: %s", p.Blocked)
		}
		if p.ExhaustionSeconds != nil {
			t.detail("forecast: no free block in %s", ageOf(*p.ExhaustionSeconds))
		}
		if p.Recommendation != "" {
			t.detail("recommends: %s", p.Recommendation)
		}
	}
	return t.write(b)
}
