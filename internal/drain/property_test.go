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

package drain

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// The property test runs drain assist against a simulated cluster, whose
// state is the API (the node labels, annotations, conditions and pods that
// drain assist reads back every step), through random sequences of pod
// terminations, PodDisruptionBudget answers, failed writes, Karpenter and
// Cluster API replacing nodes, admins annotating and cordoning nodes,
// spec edits, a range coming back, and restarts that lose or stale the
// controller's memory of its last status. After every step it checks:
//
//   - no start makes more nodes take a slot than maxUnavailable;
//   - no node is started twice, and no cordon is sent to a cordoned node;
//   - no DaemonSet, mirror, do-not-disrupt, finished or terminating pod is
//     evicted, no node is handed over with a pod left, none is deleted that
//     Karpenter does not manage, and Recommend mode changes nothing;
//   - no node is lost: every node drain assist started is planned and
//     reported, and the counts add up to the holders.
//
// A third of the runs are a conversion to dual-stack: an Active IPv6 range
// without nodeSelector and familyPolicy AllOrWait, some nodes IPv4-only in
// the Active IPv4 range (drain assist replaces them like holders) and
// replacements that get both families.
//
// Then the cluster calms down (budgets allow, writes succeed, Karpenter and
// Cluster API replace what is handed over) and every holder must be gone
// within a bound. DRAIN_SEED=n replays one seed.

type simPod struct {
	Pod
	// guarded pods are selected by the PodDisruptionBudget.
	guarded bool
}

type simNode struct {
	name   string
	prefix netip.Prefix
	// v6 is the node's IPv6 podCIDR, invalid when it has none.
	v6        netip.Prefix
	labelled  bool
	startedAt time.Time
	// cordonedByUs is the annotation; unschedulable the spec field.
	cordonedByUs, unschedulable bool
	dnd                         string
	karpenter                   bool
	condition                   bool
	conditionAt                 time.Time
	deleting                    bool
	deletedAt                   time.Time
	pods                        []simPod
}

type sim struct {
	t        *testing.T
	rng      *rand.Rand
	now      time.Time
	spec     v1alpha1.DrainAssist
	ranges   []v1alpha1.RangeStatus
	nodes    map[string]*simNode
	budget   int
	next     int
	status   *v1alpha1.DrainAssistStatus
	older    *v1alpha1.DrainAssistStatus
	previous *v1alpha1.DrainAssistStatus
	calm     bool
	seen     map[string]int
	// dual: a conversion to dual-stack (familyPolicy AllOrWait, range v6).
	dual bool
}

func TestRandomHistories(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("DRAIN_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seed %d (DRAIN_SEED=%d replays it)", seed, seed)
	seen := map[string]int{}
	for run := range 300 {
		rng := rand.New(rand.NewPCG(seed, uint64(run)))
		s := newSim(t, rng, seen)
		for step := range 60 {
			if err := s.step(); err != nil {
				t.Fatalf("seed %d run %d step %d: %v", seed, run, step, err)
			}
		}
		s.calm = true
		s.spec.Mode = v1alpha1.DrainAssistAuto
		s.ranges[0].Phase = v1alpha1.RangePhaseDraining
		for _, n := range s.nodes {
			n.dnd, n.karpenter = "", true
			for i := range n.pods {
				n.pods[i].DoNotDisrupt = ""
			}
		}
		for step := 0; s.holders() > 0; step++ {
			if step == 400 {
				t.Fatalf("seed %d run %d: %d holders left after the cluster calmed down\nstatus %+v", seed, run, s.holders(), s.status)
			}
			if err := s.step(); err != nil {
				t.Fatalf("seed %d run %d calm step %d: %v", seed, run, step, err)
			}
		}
	}
	t.Logf("seen: %v", seen)
	for _, k := range []string{"start", "evicted", "blocked", "handover-Delete", "handover-Condition", "release", "skipped", "recommended", "timeout", "conflict", "lacks"} {
		if seen[k] == 0 {
			t.Errorf("no history reached %q: the invariants were checked on nothing there", k)
		}
	}
}

func newSim(t *testing.T, rng *rand.Rand, seen map[string]int) *sim {
	s := &sim{t: t, rng: rng, now: t0, nodes: map[string]*simNode{}, seen: seen,
		ranges: []v1alpha1.RangeStatus{
			{Name: "old", CIDR: "10.1.0.0/16", Phase: v1alpha1.RangePhaseDraining},
			{Name: "new", CIDR: "10.2.0.0/16", Phase: v1alpha1.RangePhaseActive},
		}}
	s.spec = v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverDelete, NodeTimeoutSeconds: 600}
	if rng.IntN(2) == 0 {
		s.spec.Handover = v1alpha1.HandoverCondition
	}
	s.randomMaxUnavailable()
	for range 2 + rng.IntN(8) {
		s.addNode(true)
	}
	if rng.IntN(3) == 0 {
		s.dual = true
		s.ranges = append(s.ranges, v1alpha1.RangeStatus{Name: "v6", CIDR: "fd00::/48", Phase: v1alpha1.RangePhaseActive})
		// IPv4-only nodes of the Active range, from before the
		// conversion.
		for range 1 + rng.IntN(5) {
			s.addNode(false)
			s.nodes[fmt.Sprintf("n-%03d", s.next-1)].v6 = netip.Prefix{}
		}
	}
	return s
}

func (s *sim) randomMaxUnavailable() {
	var v intstr.IntOrString
	if s.rng.IntN(2) == 0 {
		v = intstr.FromInt32(int32(1 + s.rng.IntN(3)))
	} else {
		v = intstr.FromString(strconv.Itoa(10+s.rng.IntN(91)) + "%")
	}
	s.spec.MaxUnavailable = &v
}

// addNode adds a node holding a block of the Draining range (a holder) or
// of the Active one (a replacement), with random pods.
func (s *sim) addNode(holder bool) {
	i := s.next
	s.next++
	third := byte(10)
	if !holder {
		third = 20
	}
	n := &simNode{name: fmt.Sprintf("n-%03d", i), karpenter: s.rng.IntN(6) > 0,
		prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, third, byte(i / 256), byte(i % 256)}), 32)}
	if !holder {
		n.prefix = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 2, byte(i / 256), byte(i % 256)}), 32)
		if s.dual {
			// NodeIPAM gives a replacement every family under AllOrWait.
			n.v6 = netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0, 0, 0, 0, byte(i / 256), byte(i % 256)}), 64)
		}
	} else {
		n.prefix = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 1, byte(i / 256), byte(i % 256)}), 32)
	}
	if s.rng.IntN(10) == 0 {
		n.dnd = v1alpha1.DoNotDisruptAnnotation
	}
	if s.rng.IntN(8) == 0 {
		n.unschedulable = true
	}
	for j := range s.rng.IntN(4) {
		s.addPod(n, j)
	}
	s.nodes[n.name] = n
}

func (s *sim) addPod(n *simNode, j int) {
	p := simPod{Pod: Pod{Namespace: "app", Name: fmt.Sprintf("%s-p%d-%d", n.name, j, s.rng.IntN(1000))}}
	switch s.rng.IntN(10) {
	case 0:
		p.DaemonSet = true
	case 1:
		p.Mirror = true
	case 2:
		p.Finished = true
	case 3:
		if !s.calm {
			p.DoNotDisrupt = v1alpha1.KarpenterDoNotDisruptAnnotation
		}
	case 4, 5:
		p.guarded = true
	}
	n.pods = append(n.pods, p)
}

func (s *sim) holders() int {
	in := s.input()
	return newPlanner(&in).total
}

// environment moves the cluster on: pods terminate, handed-over nodes are
// replaced, budgets change, admins act, the spec changes.
func (s *sim) environment() {
	r := s.rng
	for name, n := range s.nodes {
		n.pods = slices.DeleteFunc(n.pods, func(p simPod) bool { return p.Terminating && r.IntN(2) == 0 })
		switch {
		case n.deleting && r.IntN(3) == 0:
			delete(s.nodes, name)
			if r.IntN(2) == 0 {
				s.addNode(false) // Karpenter's replacement
			}
			continue
		case n.condition && !n.deleting && r.IntN(4) == 0:
			n.deleting, n.deletedAt = true, s.now // Cluster API remediates
		}
		if s.calm {
			continue
		}
		if r.IntN(30) == 0 {
			n.dnd = map[bool]string{true: v1alpha1.KarpenterDoNotDisruptAnnotation, false: ""}[n.dnd == ""]
		}
		if r.IntN(30) == 0 {
			n.unschedulable = true
		}
		if r.IntN(15) == 0 && !n.unschedulable {
			s.addPod(n, len(n.pods))
		}
	}
	if s.calm {
		s.budget = 1
		return
	}
	if r.IntN(4) == 0 {
		s.budget = 1 - s.budget
	}
	if r.IntN(20) == 0 {
		s.randomMaxUnavailable()
	}
	if r.IntN(25) == 0 {
		s.spec.Mode = map[bool]v1alpha1.DrainAssistMode{true: v1alpha1.DrainAssistRecommend, false: v1alpha1.DrainAssistAuto}[s.spec.Mode == v1alpha1.DrainAssistAuto]
	}
	if r.IntN(30) == 0 {
		// The range is back in the spec, or removed again.
		s.ranges[0].Phase = map[bool]v1alpha1.RangePhase{true: v1alpha1.RangePhaseActive, false: v1alpha1.RangePhaseDraining}[s.ranges[0].Phase == v1alpha1.RangePhaseDraining]
	}
	if r.IntN(10) == 0 {
		// A restart: the memory of the last status is lost, or stale.
		s.previous = map[bool]*v1alpha1.DrainAssistStatus{true: nil, false: s.older}[r.IntN(2) == 0]
	}
}

// input reads the simulated API as the controller would, before
// Candidates.
func (s *sim) input() Input {
	in := Input{Now: s.now, Generation: 1, Spec: s.spec, Ranges: s.ranges, Previous: s.previous, Poll: 10 * time.Second}
	if s.dual {
		in.FamilyPolicy = v1alpha1.FamilyPolicyAllOrWait
		in.Declared = []v1alpha1.PodCIDRRange{{Name: "new", CIDR: "10.2.0.0/16"}, {Name: "v6", CIDR: "fd00::/48"}}
	}
	names := make([]string, 0, len(s.nodes))
	for name := range s.nodes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		n := s.nodes[name]
		node := Node{Name: name, PodCIDRs: []netip.Prefix{n.prefix}, Marked: n.labelled, Deleting: n.deleting}
		if n.v6.IsValid() {
			node.PodCIDRs = append(node.PodCIDRs, n.v6)
		}
		if n.labelled {
			node.Detail = s.detail(n)
		}
		in.Nodes = append(in.Nodes, node)
	}
	return in
}

func (s *sim) detail(n *simNode) *Detail {
	d := &Detail{StartedAt: n.startedAt, CordonedByUs: n.cordonedByUs, Unschedulable: n.unschedulable, DoNotDisrupt: n.dnd,
		KarpenterManaged: n.karpenter, ReplacementRequested: n.condition, PodsRead: s.calm || s.rng.IntN(20) > 0}
	if n.condition {
		d.HandedOverAt = n.conditionAt
	}
	if n.deleting {
		d.HandedOverAt = n.deletedAt
	}
	if d.PodsRead {
		for _, p := range n.pods {
			d.Pods = append(d.Pods, p.Pod)
		}
	}
	return d
}

func (s *sim) step() error {
	s.environment()
	in := s.input()
	for _, name := range Candidates(in) {
		for i := range in.Nodes {
			// A candidate gone from the API since the cache saw it is
			// not found: it stays unread.
			if in.Nodes[i].Name == name && s.rng.IntN(15) > 0 {
				in.Nodes[i].Detail = s.detail(s.nodes[name])
			}
		}
	}
	plan := Decide(in)
	if err := s.checkPlan(&in, &plan); err != nil {
		return err
	}
	results := s.apply(&plan)
	rep := Summarize(in, plan, results)
	if err := s.checkReport(&in, &plan, &rep); err != nil {
		return err
	}
	s.older, s.status, s.previous = s.status, rep.Status, rep.Status
	for _, n := range rep.Status.Nodes {
		switch {
		case n.State == v1alpha1.DrainNodeSkipped:
			s.seen["skipped"]++
		case n.State == v1alpha1.DrainNodeRecommended:
			s.seen["recommended"]++
		case n.Reason == v1alpha1.DrainReasonTimeout:
			s.seen["timeout"]++
		}
		if len(n.LacksFamilies) > 0 {
			s.seen["lacks"]++
		}
	}
	s.now = s.now.Add(time.Duration(s.rng.IntN(300)) * time.Second)
	return nil
}

// checkPlan checks what Decide asks for against the cluster as it is.
func (s *sim) checkPlan(in *Input, plan *Plan) error {
	if plan.Act != (s.spec.Mode == v1alpha1.DrainAssistAuto) {
		return fmt.Errorf("mode %s, act %v: the controller carries steps out only when Act", s.spec.Mode, plan.Act)
	}
	planned := map[string]*NodePlan{}
	busyAfter := 0
	for i := range plan.Nodes {
		np := &plan.Nodes[i]
		planned[np.Name] = np
		n := s.nodes[np.Name]
		if np.Has(StepStart) && !plan.Act {
			return fmt.Errorf("%s: started in mode %s", np.Name, plan.Mode)
		}
		if np.Has(StepStart) && n.labelled {
			return fmt.Errorf("%s: started twice", np.Name)
		}
		if np.Has(StepStart) && np.Cordon && n.unschedulable {
			return fmt.Errorf("%s: cordoned although it is cordoned", np.Name)
		}
		if (np.Has(StepEvict) || np.Has(StepHandOver)) && !n.labelled && !np.Has(StepStart) {
			return fmt.Errorf("%s: evicted or handed over without being started", np.Name)
		}
		for _, p := range np.Evict {
			if p.DaemonSet || p.Mirror || p.DoNotDisrupt != "" || p.Finished || p.Terminating {
				return fmt.Errorf("%s: evicts pod %+v", np.Name, p)
			}
		}
		if np.Has(StepHandOver) {
			for _, p := range n.pods {
				if !p.DaemonSet && !p.Mirror && !p.Finished {
					return fmt.Errorf("%s: handed over with pod %s left", np.Name, p.Key())
				}
			}
			if np.Handover == v1alpha1.HandoverDelete && !n.karpenter {
				return fmt.Errorf("%s: deleted, but Karpenter does not manage it", np.Name)
			}
			if n.dnd != "" {
				return fmt.Errorf("%s: handed over despite %s", np.Name, n.dnd)
			}
		}
	}
	for _, n := range s.nodes {
		if n.labelled && planned[n.name] == nil {
			return fmt.Errorf("%s: started, and lost: no plan for it", n.name)
		}
		holds := len(newPlanner(in).holds[n.name]) > 0
		np := planned[n.name]
		if n.labelled || (n.deleting && holds) || (np != nil && (np.Has(StepStart) || np.State == v1alpha1.DrainNodeRecommended)) {
			busyAfter++
		}
	}
	if (len(starts(*plan)) > 0 || slices.ContainsFunc(plan.Nodes, func(np NodePlan) bool { return np.State == v1alpha1.DrainNodeRecommended })) &&
		busyAfter > plan.MaxUnavailable {
		return fmt.Errorf("starts %v make %d nodes busy, maxUnavailable %d", starts(*plan), busyAfter, plan.MaxUnavailable)
	}
	if busyAfter != plan.Busy {
		return fmt.Errorf("plan says %d busy, the cluster has %d", plan.Busy, busyAfter)
	}
	return nil
}

// apply carries the plan out with random outcomes, as the controller
// would: it stops at a node's first failed step.
func (s *sim) apply(plan *Plan) map[string]NodeResult {
	if !plan.Act {
		return nil
	}
	fail := func() bool { return !s.calm && s.rng.IntN(10) == 0 }
	out := map[string]NodeResult{}
	for i := range plan.Nodes {
		np := &plan.Nodes[i]
		n := s.nodes[np.Name]
		var r NodeResult
	steps:
		for _, step := range np.Steps {
			switch step {
			case StepStart:
				if fail() {
					r.StartError = "conflict"
					s.seen["conflict"]++
					break steps
				}
				n.labelled, n.startedAt = true, s.now.Truncate(time.Second)
				if np.Cordon {
					n.unschedulable, n.cordonedByUs = true, true
				}
				r.Started = true
				s.seen["start"]++
			case StepEvict:
				for _, p := range np.Evict {
					r.Evictions = append(r.Evictions, s.evict(n, p))
				}
			case StepHandOver:
				if fail() {
					r.HandOverError = "boom"
					break steps
				}
				if np.Handover == v1alpha1.HandoverDelete {
					n.deleting, n.deletedAt = true, s.now.Truncate(time.Second)
				} else {
					n.condition, n.conditionAt = true, s.now.Truncate(time.Second)
				}
				r.HandedOver = true
				s.seen["handover-"+string(np.Handover)]++
			case StepRelease:
				if fail() {
					r.ReleaseError = "boom"
					break steps
				}
				n.labelled, n.startedAt, n.condition = false, time.Time{}, false
				if np.Uncordon {
					n.unschedulable, n.cordonedByUs = false, false
				}
				r.Released = true
				s.seen["release"]++
			}
		}
		out[np.Name] = r
	}
	return out
}

func (s *sim) evict(n *simNode, p Pod) Eviction {
	i := slices.IndexFunc(n.pods, func(x simPod) bool { return x.Key() == p.Key() })
	switch {
	case i < 0:
		return Eviction{Pod: p, Outcome: Gone}
	case n.pods[i].guarded && s.budget == 0:
		s.seen["blocked"]++
		return Eviction{Pod: p, Outcome: Blocked, PDB: "app/guard"}
	case !s.calm && s.rng.IntN(15) == 0:
		return Eviction{Pod: p, Outcome: Failed, Message: "boom"}
	}
	n.pods[i].Terminating = true
	s.seen["evicted"]++
	return Eviction{Pod: p, Outcome: Evicted}
}

// checkReport checks the status against the cluster after the steps.
func (s *sim) checkReport(in *Input, plan *Plan, rep *Report) error {
	st := rep.Status
	sum := *st.Waiting + *st.Draining + *st.Blocked + *st.HandedOver + *st.Skipped
	if sum != *st.Total || int(*st.Total) != plan.Total {
		return fmt.Errorf("counts %+v do not add up to %d holders", st, plan.Total)
	}
	if len(st.Nodes) > v1alpha1.MaxDrainAssistListedNodes {
		return fmt.Errorf("%d nodes listed", len(st.Nodes))
	}
	listedNames := map[string]v1alpha1.DrainNodeStatus{}
	for _, n := range st.Nodes {
		listedNames[n.Name] = n
		if len(n.Message) > v1alpha1.MaxMessageLength {
			return fmt.Errorf("%s: message of %d bytes", n.Name, len(n.Message))
		}
	}
	holds := newPlanner(in).holds
	for _, n := range s.nodes {
		if !n.labelled || len(holds[n.name]) == 0 || len(st.Nodes) == v1alpha1.MaxDrainAssistListedNodes {
			continue
		}
		l, ok := listedNames[n.name]
		if !ok {
			return fmt.Errorf("%s: started, and not reported", n.name)
		}
		if l.State == v1alpha1.DrainNodeRecommended || (l.State == v1alpha1.DrainNodeSkipped && !slices.Contains(planSteps(plan, n.name), StepRelease)) {
			return fmt.Errorf("%s: started, reported %s", n.name, l.State)
		}
	}
	labelled := false
	for _, n := range s.nodes {
		labelled = labelled || n.labelled
	}
	if rep.RequeueAfter == 0 && (plan.Total > 0 || labelled) && !in.Deleting {
		return fmt.Errorf("nodes left and no requeue")
	}
	return nil
}

func planSteps(plan *Plan, name string) []Step {
	for _, np := range plan.Nodes {
		if np.Name == name {
			return np.Steps
		}
	}
	return nil
}
