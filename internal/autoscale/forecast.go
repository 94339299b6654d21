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

package autoscale

import (
	"math"
	"time"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

const (
	// DefaultLeadTime is the lead time of a pool before any range it added
	// has become Active: how long a range is assumed to take from being
	// added to Active.
	DefaultLeadTime = 30 * time.Second

	// minLeadTime and maxLeadTime bound a measured lead time: the API keeps
	// times to the second, and a range that waited hours for a consumer
	// says nothing about the next one.
	minLeadTime = time.Second
	maxLeadTime = time.Hour

	// lookAheadLeadTimes is how many lead times ahead the forecast looks:
	// the next range must be Active before the threshold is crossed even
	// if it takes twice as long as the last one.
	lookAheadLeadTimes = 2

	// minRateWindow is the shortest window an arrival rate is measured
	// over, so a few nodes created in the same second do not read as a
	// huge rate.
	minRateWindow = 5 * time.Second

	// maxRequeue is the longest Decide waits before it looks again: the
	// forecast moves with time even when no object changes.
	maxRequeue = 30 * time.Second
)

// rateWindows are the windows the arrival rate is measured over; the
// highest rate wins, so a burst is seen at once and a steady stream is not
// forgotten between two nodes.
var rateWindows = []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute}

// arrivalRate returns the arrival rate, in nodes per second, of nodes
// created at the given times: the highest of the rates over rateWindows.
// When every node is younger than a window, that window is shortened to the
// age of the oldest one (at least minRateWindow): a pool whose nodes all
// arrived in the last seconds has that rate, not a tenth of it.
func arrivalRate(created []time.Time, now time.Time) float64 {
	if len(created) == 0 {
		return 0
	}
	oldest := created[0]
	for _, c := range created {
		if c.Before(oldest) {
			oldest = c
		}
	}
	age := now.Sub(oldest)
	best := 0.0
	for _, w := range rateWindows {
		n := 0
		for _, c := range created {
			if d := now.Sub(c); d >= 0 && d < w {
				n++
			}
		}
		window := w
		if age < w {
			window = max(age, minRateWindow)
		}
		best = max(best, float64(n)/window.Seconds())
	}
	return best
}

// leadTime returns how long the pool's most recently added range that is
// Active took from being added (addedTime) to Active (phaseSince), bounded,
// or DefaultLeadTime when none is known.
func leadTime(pool string, set []v1alpha1.AutoscaledRange, tracked map[string]*v1alpha1.RangeStatus) time.Duration {
	var latest time.Time
	lead := DefaultLeadTime
	for i := range set {
		a := &set[i]
		rs := tracked[a.Name]
		if a.Pool != pool || a.AddedTime == nil || rs == nil || rs.Phase != v1alpha1.RangePhaseActive || rs.PhaseSince == nil ||
			rs.CIDR != string(a.CIDR) || !a.AddedTime.After(latest) {
			continue
		}
		latest = a.AddedTime.Time
		lead = min(max(rs.PhaseSince.Sub(a.AddedTime.Time), minLeadTime), maxLeadTime)
	}
	return lead
}

// forecast is a pool's capacity, demand and what they imply.
type forecast struct {
	capacity int64   // node blocks of the serving ranges
	free     int64   // free blocks of the serving ranges
	waiting  int64   // nodes of the pool without a block of its family
	rate     float64 // nodes of the pool arriving per second
	lead     time.Duration
}

// projected returns the free blocks forecast lookAheadLeadTimes lead times
// ahead, waiting nodes served first.
func (f forecast) projected() float64 {
	return float64(f.free-f.waiting) - f.rate*(lookAheadLeadTimes*f.lead).Seconds()
}

// exhaustion returns the time until no block is free at the observed rate,
// and false when nothing arrives.
func (f forecast) exhaustion() (time.Duration, bool) {
	if f.rate <= 0 {
		return 0, false
	}
	secs := math.Max(float64(f.free-f.waiting), 0) / f.rate
	return time.Duration(math.Min(secs, float64(math.MaxInt64/int64(time.Second))) * float64(time.Second)), true
}

// belowGrow reports whether the forecast crosses the grow threshold. A pool
// without any serving capacity grows.
func (f forecast) belowGrow(g v1alpha1.GrowThreshold) bool {
	p := f.projected()
	if f.capacity == 0 {
		return true
	}
	return (g.FreeBlocksBelow > 0 && p < float64(g.FreeBlocksBelow)) ||
		(g.FreePercentBelow > 0 && p*100 < float64(g.FreePercentBelow)*float64(f.capacity))
}

// aboveShrink reports whether the forecast satisfies every threshold the
// shrink policy sets.
func (f forecast) aboveShrink(s v1alpha1.ShrinkPolicy) bool {
	p := f.projected()
	if f.capacity == 0 {
		return false
	}
	return (s.FreeBlocksAbove == 0 || p >= float64(s.FreeBlocksAbove)) &&
		(s.FreePercentAbove == 0 || p*100 >= float64(s.FreePercentAbove)*float64(f.capacity))
}
