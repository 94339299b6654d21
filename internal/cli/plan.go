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
	"net/netip"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/declared"
	"podnetwork.io/operator/internal/lifecycle"
	"podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/text"
)

// maxPlanRounds bounds the simulation: each round every consumer answers
// the current phases and the lifecycle moves on; a range needs at most four
// rounds (Pending → Active, Active → Draining → Released → purged).
const maxPlanRounds = 8

// Purged is the final phase Plan shows for a range the lifecycle stops
// tracking.
const Purged v1alpha1.RangePhase = "Purged"

// Kinds of consumers, by how Plan predicts their answers.
const (
	KindNodeIPAM   = "NodeIPAM"
	KindAdapter    = "adapter"
	KindThirdParty = "third-party"
)

// PlanReport is what `kubectl podnetwork plan` prints; kind PlanReport of
// cli.podnetwork.io/v1alpha1 in the machine output.
type PlanReport struct {
	metav1.TypeMeta `json:",inline"`
	// Outcome sums the prediction up; the exit code follows it.
	Outcome PlanOutcome `json:"outcome"`
	// Rejection is why the API server refused the change in its
	// server-side dry-run (Outcome Rejected); nothing else is computed
	// then.
	Rejection *Rejection `json:"rejection,omitempty"`
	// Stuck says, one line per range, why the change would not complete
	// (Outcome Stuck).
	Stuck []string `json:"stuck,omitempty"`
	// Changes says in words how the declared ranges change.
	Changes []string `json:"changes"`
	// Ranges is every range tracked now or after the change, by name.
	Ranges []RangePlan `json:"ranges"`
	// Consumers are the consumers' predicted answers.
	Consumers []ConsumerPlan `json:"consumers"`
	// Adapters are what each adapter would write.
	Adapters []AdapterPlan `json:"adapters"`
	// Rounds is how many rounds of answers the simulation took to settle.
	Rounds int `json:"rounds"`
	// Settled is false when the simulation still moved after maxPlanRounds.
	Settled bool `json:"settled"`
	// DrainSchedule is how drain assist would replace the nodes holding
	// blocks in ranges the change leaves Draining (PlanDrain); absent when
	// none does.
	DrainSchedule *DrainSchedule `json:"drainSchedule,omitempty"`
	// NetworkPolicies are the NetworkPolicies whose ipBlock rules cover
	// every range in use but leave out a range the change adds
	// (PlanNetworkPolicies); absent when it adds none.
	NetworkPolicies *NetworkPolicyPlan `json:"networkPolicies,omitempty"`
}

// PlanOutcome sums a plan up.
type PlanOutcome string

const (
	// OutcomeProceeds: every range gets where the change takes it, or waits
	// only for the nodes that hold a Draining range to be replaced. Exit
	// code 0.
	OutcomeProceeds PlanOutcome = "Proceeds"
	// OutcomeStuck: the API server accepts the change, but some range would
	// never get where it takes it: the range is invalid, a consumer rejects
	// it, or it waits for a required consumer that will not answer (an
	// adapter that cannot read its configuration, a third-party consumer
	// that has never written its status). Exit code 1.
	OutcomeStuck PlanOutcome = "Stuck"
	// OutcomeRejected: the API server refuses the change in the dry-run
	// (the CRD's schema or CEL rules, an admission webhook or policy).
	// Exit code 1.
	OutcomeRejected PlanOutcome = "Rejected"
)

// Rejection is the API server's refusal of a change.
type Rejection struct {
	// By says what refused it: Validation (the CRD's schema and CEL rules)
	// or Admission (an admission webhook or a ValidatingAdmissionPolicy).
	By RejectedBy `json:"by"`
	// Reason is the API status reason (Invalid, Forbidden, ...).
	Reason string `json:"reason"`
	// Message is the API server's message.
	Message string `json:"message"`
	// Causes are the field causes the API server gave, "field: message".
	Causes []string `json:"causes,omitempty"`
	// Conflicts name the ranges of the proposed spec that break the
	// overlap rule (lifecycle.SpecConflicts): the CRD's message cannot.
	Conflicts []string `json:"conflicts,omitempty"`
}

// RejectedBy says what refused a change.
type RejectedBy string

const (
	// RejectedByValidation is the CRD's schema and CEL rules.
	RejectedByValidation RejectedBy = "Validation"
	// RejectedByAdmission is an admission webhook or a
	// ValidatingAdmissionPolicy.
	RejectedByAdmission RejectedBy = "Admission"
)

// Rejected is the report of a change the API server refused.
func Rejected(r Rejection) PlanReport {
	return PlanReport{TypeMeta: typeMeta(KindPlanReport), Outcome: OutcomeRejected, Rejection: &r,
		Changes: []string{}, Ranges: []RangePlan{}, Consumers: []ConsumerPlan{}, Adapters: []AdapterPlan{}}
}

// RangePlan is what happens to one range.
type RangePlan struct {
	Name string `json:"name"`
	CIDR string `json:"cidr"`
	// Now is the phase today ("" when not tracked), AfterApply the phase
	// once the operator has seen the change, before any consumer answers,
	// and Eventually the phase once every consumer answered as predicted
	// (Purged when it is no longer tracked).
	Now        v1alpha1.RangePhase `json:"now,omitempty"`
	AfterApply v1alpha1.RangePhase `json:"afterApply"`
	Eventually v1alpha1.RangePhase `json:"eventually"`
	// Invalid is "reason: message" when the lifecycle finds the range
	// invalid (a ServiceCIDR, a node address, another range).
	Invalid string `json:"invalid,omitempty"`
	// MustAcknowledge are the required consumers that must acknowledge
	// AfterApply.
	MustAcknowledge []string `json:"mustAcknowledge,omitempty"`
	// Rejections are the predicted rejections that keep it Pending.
	Rejections []v1alpha1.RangeRejection `json:"rejections,omitempty"`
	// Holders are the nodes that must be replaced before it is Released.
	Holders     []string `json:"holders,omitempty"`
	HolderCount int32    `json:"holderCount,omitempty"`
	// CoveredBy is the Active range that contains it, so its nodes need no
	// replacement.
	CoveredBy string `json:"coveredBy,omitempty"`
	// Assumed lists the third-party consumers whose acceptance the
	// prediction assumed.
	Assumed []string `json:"assumedAcceptedBy,omitempty"`
	// WaitsFor are the required consumers it still waits for once every
	// answer that can be predicted is in: they will not answer.
	WaitsFor []string `json:"waitsFor,omitempty"`
	// Stuck says why the range never gets where the change takes it;
	// empty when it does.
	Stuck string `json:"stuck,omitempty"`
}

// ConsumerPlan is how one consumer is predicted to answer.
type ConsumerPlan struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	// Kind is NodeIPAM, adapter or third-party; Predictable is false for a
	// third-party consumer, whose answers Plan assumes to be acceptances.
	Kind        string   `json:"kind"`
	Predictable bool     `json:"predictable"`
	Answers     []Answer `json:"answers"`
	// NeverAnswered is true for a required third-party consumer that has
	// never written its status: nothing says it runs, so its acceptance is
	// not assumed and what waits for it is stuck.
	NeverAnswered bool `json:"neverAnswered,omitempty"`
}

// Answer is a predicted acknowledgement of one phase of one range.
type Answer struct {
	Range   string              `json:"range"`
	Phase   v1alpha1.RangePhase `json:"phase"`
	Result  string              `json:"result"`
	Message string              `json:"message,omitempty"`
}

// Results of an Answer besides v1alpha1.AckAccepted and AckRejected.
const (
	// ResultAssumed is an acceptance Plan cannot predict (a third-party
	// consumer) and assumes.
	ResultAssumed = "Assumed"
	// ResultNoAnswer means the consumer would not answer (an adapter that
	// cannot read its configuration).
	ResultNoAnswer = "NoAnswer"
)

// AdapterPlan is what one adapter would write.
type AdapterPlan struct {
	Consumer  string `json:"consumer"`
	ConfigMap string `json:"configMap"`
	// Now is the managed values today; Writes what the adapter would write
	// once the simulation settled; Changes whether that differs, and then
	// the adapter restarts the component's DaemonSet.
	Now     string `json:"now"`
	Writes  string `json:"writes"`
	Changes bool   `json:"changes"`
	// Problems are the adapter's problems with the covering prefixes.
	Problems []string `json:"problems,omitempty"`
	// Error is why the adapter cannot manage the configuration at all.
	Error string `json:"error,omitempty"`
}

// Plan predicts what the operator and its consumers do once spec.ranges
// becomes proposed (so the declared ranges become Declared(proposed)), with
// their own pure code: lifecycle.Compute for the phases,
// nodeipam.Config.Ack for NodeIPAM's answers and each adapter's planner for
// its answers and what it writes. A third-party consumer's answers cannot
// be predicted: Plan assumes it accepts and says so. Nodes are not replaced
// in the simulation, so a Draining range that nodes still hold stays
// Draining.
func Plan(c *Cluster, proposed []v1alpha1.PodCIDRRange, now time.Time) PlanReport {
	d := c.Declared(proposed)
	res := PlanReport{TypeMeta: typeMeta(KindPlanReport), Changes: describeChanges(c.Ranges(), d.Ranges),
		Ranges: []RangePlan{}, Consumers: []ConsumerPlan{}, Adapters: []AdapterPlan{}}
	pn := &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName}}
	if c.PodNetwork != nil {
		pn = c.PodNetwork.DeepCopy()
	}
	// Like declared.View: the readers written against a PodNetwork alone
	// (NodeIPAM's configuration) see the declared ranges.
	pn.Spec.Ranges = d.Ranges
	sim := &simulation{c: c, pn: pn, declared: d, now: now, configs: map[string]string{}, answers: map[string][]Answer{}}
	for i := range c.Consumers {
		if c.Consumers[i].DeletionTimestamp.IsZero() {
			sim.consumers = append(sim.consumers, *c.Consumers[i].DeepCopy())
		}
		if neverAnswered(&c.Consumers[i]) && !c.predictable(c.Consumers[i].Name) {
			sim.silent = append(sim.silent, c.Consumers[i].Name)
		}
	}
	for _, a := range c.Adapters {
		sim.configs[a.Consumer] = a.Config
	}
	before := slices.Clone(pn.Status.Ranges)
	sim.step()
	afterApply := slices.Clone(sim.pn.Status.Ranges)
	res.Settled = false
	for res.Rounds < maxPlanRounds {
		res.Rounds++
		prev := slices.Clone(sim.pn.Status.Ranges)
		sim.answer()
		sim.step()
		if samePhases(prev, sim.pn.Status.Ranges) {
			res.Settled = true
			break
		}
	}
	res.Ranges = rangePlans(before, afterApply, sim.pn.Status.Ranges, sim.assumed)
	res.Consumers = sim.consumerPlans()
	res.Adapters = sim.adapterPlans()
	res.Outcome = OutcomeProceeds
	for i := range res.Ranges {
		r := &res.Ranges[i]
		r.Stuck = sim.stuck(r)
		if r.Stuck != "" {
			res.Outcome = OutcomeStuck
			res.Stuck = append(res.Stuck, r.Name+": "+r.Stuck)
		}
	}
	return res
}

// neverAnswered reports whether cons is a required consumer that has never
// written its status: no acknowledgement, no condition, no
// observedGeneration. Whatever it is, nothing says it runs.
func neverAnswered(cons *v1alpha1.PodNetworkConsumer) bool {
	st := &cons.Status
	return cons.IsRequired() && cons.DeletionTimestamp.IsZero() &&
		len(st.Ranges) == 0 && len(st.Conditions) == 0 && ptr.Deref(st.ObservedGeneration, 0) == 0
}

// stuck says why the range r never gets where the change takes it, or ""
// when it does: it is invalid, a consumer rejects it, or it still waits for
// consumers once every answer that can be predicted is in. A Draining range
// that only waits for its nodes to be replaced is not stuck: replacing them
// is the next step.
func (s *simulation) stuck(r *RangePlan) string {
	switch {
	case r.Invalid != "":
		return fmt.Sprintf("stays %s: invalid: %s", r.Eventually, r.Invalid)
	case len(r.Rejections) > 0:
		var by []string
		for _, rej := range r.Rejections {
			by = append(by, rej.Consumer)
		}
		return fmt.Sprintf("stays %s: rejected by %s", r.Eventually, strings.Join(by, ", "))
	case len(r.WaitsFor) > 0:
		var why []string
		for _, name := range r.WaitsFor {
			switch {
			case slices.Contains(s.silent, name):
				why = append(why, name+", which has never written its status")
			case s.errors[name] != "":
				why = append(why, name+", which cannot answer: "+s.errors[name])
			default:
				why = append(why, name+", which does not answer")
			}
		}
		return fmt.Sprintf("stays %s: waits for %s", r.Eventually, strings.Join(why, "; "))
	}
	return ""
}

type simulation struct {
	c  *Cluster
	pn *v1alpha1.PodNetwork
	// declared are the declared ranges of the proposed spec.ranges.
	declared  declared.Result
	now       time.Time
	consumers []v1alpha1.PodNetworkConsumer
	// configs are the adapters' configurations as they would be written.
	configs map[string]string
	// answers are every predicted answer, by consumer, in order.
	answers map[string][]Answer
	// assumed maps a range to the third-party consumers assumed to accept.
	assumed map[string][]string
	errors  map[string]string
	// silent are the required consumers that have never written their
	// status: they are predicted not to answer.
	silent []string
}

// step runs the lifecycle once on the simulated state.
func (s *simulation) step() {
	in := s.c.lifecycleInput(s.pn, s.declared, s.consumers, s.now, -1)
	out := lifecycle.Compute(in)
	out.ApplyTo(&s.pn.Status)
	// The lifecycle takes back the status fields other clients set once it
	// has dealt with them (statusedit), so only the first step sees them.
	s.pn.ManagedFields = nil
}

// answer lets every consumer acknowledge the current phases as predicted.
func (s *simulation) answer() {
	for i := range s.consumers {
		cons := &s.consumers[i]
		predict := s.predictor(cons.Name)
		previous := cons.Status.Ranges
		cons.Status.Ranges = v1alpha1.Acks(s.pn, previous, metav1.NewTime(s.now), func(rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
			// An answer the consumer has given stands: it is no prediction.
			if acked, rejected, msg := v1alpha1.AckState(previous, &rs); acked || rejected {
				if rejected {
					return v1alpha1.AckRejected, msg, true
				}
				return v1alpha1.AckAccepted, msg, true
			}
			result, msg, done := predict(rs)
			s.record(cons.Name, rs, result, msg, done)
			if result == ResultAssumed {
				result = v1alpha1.AckAccepted
			}
			return result, msg, done
		})
	}
}

// record keeps a predicted answer once per consumer, range and phase.
// Answers to Active are left out: nothing waits for them.
func (s *simulation) record(consumer string, rs v1alpha1.RangeStatus, result v1alpha1.AckResult, msg string, done bool) {
	if rs.Phase == v1alpha1.RangePhaseActive {
		return
	}
	a := Answer{Range: rs.Name, Phase: rs.Phase, Result: string(result), Message: msg}
	if !done {
		a.Result = ResultNoAnswer
	}
	if slices.ContainsFunc(s.answers[consumer], func(x Answer) bool { return x.Range == a.Range && x.Phase == a.Phase }) {
		return
	}
	s.answers[consumer] = append(s.answers[consumer], a)
	if a.Result == ResultAssumed {
		if s.assumed == nil {
			s.assumed = map[string][]string{}
		}
		if !slices.Contains(s.assumed[rs.Name], consumer) {
			s.assumed[rs.Name] = append(s.assumed[rs.Name], consumer)
		}
	}
}

// predictor returns how the named consumer answers a phase: NodeIPAM with
// its own Config.Ack, an adapter with its planner, anyone else assumed.
func (s *simulation) predictor(name string) func(rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
	if name == s.c.NodeIPAM {
		cfg := nodeipam.NewConfig(s.pn)
		return func(rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
			if rs.Phase == v1alpha1.RangePhaseReleased {
				// NodeIPAM drops the range from its allocator and its usage
				// from status, then accepts.
				return v1alpha1.AckAccepted, nodeipam.AckReleasedMessage, true
			}
			return cfg.Ack(rs, func(netip.Prefix) bool { return false })
		}
	}
	for i := range s.c.Adapters {
		a := &s.c.Adapters[i]
		if a.Consumer != name {
			continue
		}
		return s.adapterPredictor(a)
	}
	if slices.Contains(s.silent, name) {
		return func(v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) { return "", "", false }
	}
	return func(v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
		return ResultAssumed, "assumed: a third-party consumer's answer cannot be predicted", true
	}
}

// adapterPredictor plans the adapter's configuration for the current
// phases, as the adapter would, and answers from that plan: a Pending range
// the component cannot take is rejected, every other phase accepted once
// the configuration is written and rolled out.
func (s *simulation) adapterPredictor(a *Adapter) func(rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
	none := func(v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) { return "", "", false }
	if !a.Found {
		s.setError(a.Consumer, "its ConfigMap key is missing: it answers nothing")
		return none
	}
	var previous []v1alpha1.ConsumerRangeStatus
	for i := range s.consumers {
		if s.consumers[i].Name == a.Consumer {
			previous = s.consumers[i].Status.Ranges
		}
	}
	plan, err := a.Plan(s.configs[a.Consumer], s.c.adapterInput(a, s.pn, previous))
	if err != nil {
		s.setError(a.Consumer, fmt.Sprintf("it cannot manage its configuration and answers nothing: %v", err))
		return none
	}
	if plan.RangeIndependent != "" {
		return func(v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
			return v1alpha1.AckAccepted, plan.RangeIndependent, true
		}
	}
	s.configs[a.Consumer] = plan.Config
	return func(rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, bool) {
		if msg, ok := plan.Decision.Rejected[rs.Name]; ok && rs.Phase == v1alpha1.RangePhasePending {
			return v1alpha1.AckRejected, msg, true
		}
		return v1alpha1.AckAccepted, plan.Summary + " written and rolled out", true
	}
}

func (s *simulation) setError(consumer, msg string) {
	if s.errors == nil {
		s.errors = map[string]string{}
	}
	s.errors[consumer] = msg
}

// predictable reports whether Plan predicts the answers of the named
// consumer with its own code: NodeIPAM and the adapters.
func (c *Cluster) predictable(name string) bool {
	return name == c.NodeIPAM || slices.ContainsFunc(c.Adapters, func(a Adapter) bool { return a.Consumer == name })
}

func (s *simulation) consumerPlans() []ConsumerPlan {
	out := []ConsumerPlan{}
	for _, cons := range s.consumers {
		p := ConsumerPlan{Name: cons.Name, Required: cons.IsRequired(), Kind: KindThirdParty, Answers: s.answers[cons.Name],
			NeverAnswered: slices.Contains(s.silent, cons.Name)}
		switch {
		case cons.Name == s.c.NodeIPAM:
			p.Kind, p.Predictable = KindNodeIPAM, true
		case s.c.predictable(cons.Name):
			p.Kind, p.Predictable = KindAdapter, true
		}
		if p.Answers == nil {
			p.Answers = []Answer{}
		}
		out = append(out, p)
	}
	return out
}

func (s *simulation) adapterPlans() []AdapterPlan {
	out := []AdapterPlan{}
	for i := range s.c.Adapters {
		a := &s.c.Adapters[i]
		p := AdapterPlan{Consumer: a.Consumer, ConfigMap: a.ConfigMap, Error: s.errors[a.Consumer]}
		if a.Found {
			p.Now = coveredSummary(a, a.Config)
			p.Writes = coveredSummary(a, s.configs[a.Consumer])
			p.Changes = s.configs[a.Consumer] != a.Config
			var previous []v1alpha1.ConsumerRangeStatus
			for j := range s.consumers {
				if s.consumers[j].Name == a.Consumer {
					previous = s.consumers[j].Status.Ranges
				}
			}
			if plan, err := a.Plan(s.configs[a.Consumer], s.c.adapterInput(a, s.pn, previous)); err == nil {
				p.Problems = plan.Decision.Problems
			}
		}
		out = append(out, p)
	}
	return out
}

// coveredSummary names what a configuration covers.
func coveredSummary(a *Adapter, config string) string {
	cov, err := a.Covered(config)
	switch {
	case err != nil:
		return "unreadable: " + err.Error()
	case cov.RangeIndependent != "":
		return "range-independent"
	case len(cov.Prefixes) == 0:
		return "nothing"
	}
	return text.List(cov.Prefixes)
}

// samePhases reports whether two status range lists have the same ranges in
// the same phases with the same acknowledgement state.
func samePhases(a, b []v1alpha1.RangeStatus) bool {
	return slices.EqualFunc(a, b, func(x, y v1alpha1.RangeStatus) bool {
		return x.Name == y.Name && x.CIDR == y.CIDR && x.Phase == y.Phase &&
			slices.Equal(x.Awaiting, y.Awaiting) && equality.Semantic.DeepEqual(x.Rejections, y.Rejections)
	})
}

// rangePlans joins the three states by range name, in name order.
func rangePlans(before, afterApply, final []v1alpha1.RangeStatus, assumed map[string][]string) []RangePlan {
	find := func(rs []v1alpha1.RangeStatus, name string) *v1alpha1.RangeStatus {
		for i := range rs {
			if rs[i].Name == name {
				return &rs[i]
			}
		}
		return nil
	}
	var names []string
	for _, list := range [][]v1alpha1.RangeStatus{before, afterApply, final} {
		for _, rs := range list {
			if !slices.Contains(names, rs.Name) {
				names = append(names, rs.Name)
			}
		}
	}
	slices.Sort(names)
	out := []RangePlan{}
	for _, name := range names {
		p := RangePlan{Name: name, AfterApply: Purged, Eventually: Purged, Assumed: assumed[name]}
		if b := find(before, name); b != nil {
			p.Now, p.CIDR = b.Phase, b.CIDR
		}
		if a := find(afterApply, name); a != nil {
			p.AfterApply, p.CIDR = a.Phase, a.CIDR
			p.MustAcknowledge = a.Awaiting
		}
		if f := find(final, name); f != nil {
			p.Eventually, p.CIDR = f.Phase, f.CIDR
			if f.InvalidReason != "" {
				p.Invalid = string(f.InvalidReason) + ": " + f.InvalidMessage
			}
			p.Rejections, p.Holders, p.HolderCount, p.CoveredBy = f.Rejections, f.Holders, f.HolderCount, f.CoveredBy
			p.WaitsFor = f.Awaiting
		}
		out = append(out, p)
	}
	return out
}

// describeChanges says how the declared ranges change, by name.
func describeChanges(old, proposed []v1alpha1.PodCIDRRange) []string {
	out := []string{}
	byName := func(rs []v1alpha1.PodCIDRRange, name string) *v1alpha1.PodCIDRRange {
		for i := range rs {
			if rs[i].Name == name {
				return &rs[i]
			}
		}
		return nil
	}
	for i := range proposed {
		n := &proposed[i]
		o := byName(old, n.Name)
		switch {
		case o == nil:
			out = append(out, fmt.Sprintf("add %s (%s, /%d blocks, nodes: %s)", n.Name, n.CIDR, n.EffectiveNodeMaskSize(), nodeipam.DescribeNodeSelector(n.NodeSelector)))
		case o.CIDR != n.CIDR || o.EffectiveNodeMaskSize() != n.EffectiveNodeMaskSize():
			out = append(out, fmt.Sprintf("replace %s (%s) with %s", n.Name, o.CIDR, n.CIDR))
		case !equality.Semantic.DeepEqual(o.NodeSelector, n.NodeSelector):
			out = append(out, fmt.Sprintf("change the nodes of %s to: %s (only blocks allocated from now on)", n.Name, nodeipam.DescribeNodeSelector(n.NodeSelector)))
		}
	}
	for i := range old {
		if byName(proposed, old[i].Name) == nil {
			out = append(out, fmt.Sprintf("remove %s (%s)", old[i].Name, old[i].CIDR))
		}
	}
	return out
}
