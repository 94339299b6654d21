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

package history

import (
	"cmp"
	"net/netip"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework/invariants"
)

// Check replays the observations in RV order and judges every invariant of
// the package documentation; then it judges the writes against the lease.
// It neither modifies nor keeps obs and writes.
func Check(obs []Observation, writes []Write, opts Options) Report {
	c := newChecker(opts)
	c.indexWrites(writes)
	sorted := sortObservations(obs)
	for i := range sorted {
		c.observe(&sorted[i])
	}
	c.counts[CountObservations] = len(sorted)
	c.liveness()
	c.judgeWrites(writes)
	return c.report()
}

// checker is the replay state: everything as of the RV being replayed.
type checker struct {
	opts   Options
	nw     *network
	ls     *leases
	tenure int // incremented at every new lease tenure

	nodes map[string]*nodeState
	held  prefixIndex[string]      // podCIDRs of existing nodes -> node name
	freed prefixIndex[*freedBlock] // podCIDRs of deleted nodes not held again

	quarantine    []v1alpha1.QuarantinedBlock // status.quarantine as last observed
	quarantinedRV map[netip.Prefix]int64      // block -> last RV status.quarantine listed it
	shapeReported map[string]bool
	pnRV          int64
	pnTime        time.Time
	end           time.Time // the latest observation Time
	endRV         int64
	violations    []Violation
	counts        map[string]int
	stale         []StaleWrite
	staleByRV     map[int64]bool
	landedByRV    map[int64]*Write
	procOf        map[string]string // holderIdentity -> process

}

// nodeState is one Node object as last observed.
type nodeState struct {
	node     *corev1.Node
	cidrs    []netip.Prefix
	deleting bool
	rv       int64     // of the last observation
	time     time.Time // of the last observation
}

// freedBlock is a podCIDR whose node was deleted.
type freedBlock struct {
	prefix netip.Prefix
	node   string
	at     time.Time // Observation.Time of the deletion
	rv     int64
	tenure int // the lease tenure at the deletion
}

func newChecker(opts Options) *checker {
	if opts.FieldManager == "" {
		opts.FieldManager = invariants.DefaultFieldManager
	}
	if opts.LeaseName == "" {
		opts.LeaseName = DefaultLeaseName
	}
	if opts.NodeIPAMConsumer == "" {
		opts.NodeIPAMConsumer = "node-ipam"
	}
	if opts.ClockSlack == 0 {
		opts.ClockSlack = time.Second
	}
	opts.ClockSlack = max(opts.ClockSlack, 0)
	return &checker{
		opts:          opts,
		nw:            newNetwork(opts.NodeIPAMConsumer),
		ls:            newLeases(opts),
		nodes:         map[string]*nodeState{},
		quarantinedRV: map[netip.Prefix]int64{},
		shapeReported: map[string]bool{},
		counts:        map[string]int{},
		staleByRV:     map[int64]bool{},
		landedByRV:    map[int64]*Write{},
	}
}

// sortObservations returns the observations of the known kinds in RV
// order, each change once: a watch that restarts may deliver an event
// twice.
func sortObservations(obs []Observation) []Observation {
	out := make([]Observation, 0, len(obs))
	for _, o := range obs {
		if kind(o.Object) != "" {
			out = append(out, o)
		}
	}
	slices.SortStableFunc(out, func(a, b Observation) int { return cmp.Compare(a.RV, b.RV) })
	return slices.CompactFunc(out, func(a, b Observation) bool {
		return a.RV == b.RV && a.Deleted == b.Deleted && kind(a.Object) == kind(b.Object) &&
			a.Object.GetNamespace() == b.Object.GetNamespace() && a.Object.GetName() == b.Object.GetName()
	})
}

// kind names the kinds Check replays; "" for any other object, or a nil
// one.
func kind(o Object) string {
	switch o := o.(type) {
	case *corev1.Node:
		if o != nil {
			return "Node"
		}
	case *v1alpha1.PodNetwork:
		if o != nil {
			return "PodNetwork"
		}
	case *v1alpha1.PodNetworkConsumer:
		if o != nil {
			return "PodNetworkConsumer"
		}
	case *coordinationv1.Lease:
		if o != nil {
			return "Lease"
		}
	case *v1alpha1.AutoscaledRangeSet:
		if o != nil {
			return "AutoscaledRangeSet"
		}
	}
	return ""
}

func (c *checker) observe(o *Observation) {
	if o.Time.After(c.end) {
		c.end = o.Time
	}
	c.endRV = o.RV
	switch obj := o.Object.(type) {
	case *corev1.Node:
		c.observeNode(o, obj)
	case *v1alpha1.PodNetwork:
		c.observePodNetwork(o, obj)
	case *v1alpha1.PodNetworkConsumer:
		c.nw.observeConsumer(obj, o.Deleted)
	case *coordinationv1.Lease:
		if c.ls.matches(obj.Namespace, obj.Name) && c.ls.observe(*o, obj) {
			c.tenure++
			c.counts[CountLeaseHolders]++
		}
	case *v1alpha1.AutoscaledRangeSet:
		c.nw.observeAutoscaled(obj, o.Deleted)
	}
}

func (c *checker) violate(inv string, o *Observation, format string, args ...any) {
	c.violations = append(c.violations, violation(inv, o.RV, o.Time, format, args...))
}

func (c *checker) report() Report {
	r := Report{Counts: c.counts, Stale: c.stale}
	for _, s := range c.stale {
		r.StaleWrites = append(r.StaleWrites, s.Write)
	}
	attribute := func(vs []Violation) []Violation {
		for i := range vs {
			if w := c.landedByRV[vs[i].RV]; w != nil {
				vs[i].Process = w.Process
				vs[i].StaleWrite = c.staleByRV[vs[i].RV]
			}
		}
		slices.SortStableFunc(vs, func(a, b Violation) int {
			return cmp.Or(cmp.Compare(a.RV, b.RV), cmp.Compare(slices.Index(Invariants, a.Invariant), slices.Index(Invariants, b.Invariant)))
		})
		return vs
	}
	r.Violations = attribute(c.violations)
	return r
}
