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
	"io"
	"net/netip"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/lifecycle"
	"podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/text"
)

// Severity says whether a finding fails `kubectl podnetwork check`.
type Severity string

const (
	// SeverityError is a problem: check exits non-zero.
	SeverityError Severity = "error"
	// SeverityWarning is worth a look but can be normal for a while (a
	// transition in progress, a node that just joined).
	SeverityWarning Severity = "warning"
)

// The checks, by the name findings carry.
const (
	CheckPodNetwork      = "podnetwork"
	CheckOverlaps        = "overlapping-podcidrs"
	CheckForeign         = "foreign-podcidrs"
	CheckWithoutPodCIDRs = "nodes-without-podcidrs"
	CheckAcks            = "acknowledgements"
	CheckAdapterConfig   = "adapter-config"
	CheckOperator        = "operator"
)

// Finding is one problem check found.
type Finding struct {
	Severity Severity `json:"severity"`
	Check    string   `json:"check"`
	// Subject is the object the finding is about ("node/a", "range/b",
	// "podnetworkconsumer/c", "configmap/ns/name[key]").
	Subject string `json:"subject,omitempty"`
	Message string `json:"message"`
}

// CheckResult is one check and how many objects it looked at.
type CheckResult struct {
	Name    string `json:"name"`
	Checked string `json:"checked"`
	Errors  int    `json:"errors"`
	Warns   int    `json:"warnings"`
	// Skipped says why the check did not run: what it needs could not be
	// read.
	Skipped string `json:"skipped,omitempty"`
}

// CheckReport is what `kubectl podnetwork check` prints; kind CheckReport
// of cli.podnetwork.io/v1alpha1 in the machine output.
type CheckReport struct {
	metav1.TypeMeta `json:",inline"`
	Checks          []CheckResult `json:"checks"`
	Findings        []Finding     `json:"findings"`
	Errors          int           `json:"errors"`
	Warnings        int           `json:"warnings"`
	// StallAfterSeconds and NewNodeGraceSeconds are the thresholds the
	// audit applied (--stall-after, --new-node-grace).
	StallAfterSeconds   int64 `json:"stallAfterSeconds"`
	NewNodeGraceSeconds int64 `json:"newNodeGraceSeconds"`
	// Operator is the operator's Deployment readiness and leader-election
	// Lease, as status shows them; nil when they were not read.
	Operator *OperatorStatus `json:"operator,omitempty"`
	// Unreadable is what the plugin was not allowed to read; the checks
	// that need it are skipped.
	Unreadable []Unreadable `json:"unreadable,omitempty"`
}

// CheckOptions tune the audit.
type CheckOptions struct {
	// Now is the time of the audit.
	Now time.Time
	// StallAfter is how long a consumer may lag on a phase before its
	// missing acknowledgement is an error rather than a warning (the
	// operator's --stall-after; zero means lifecycle.DefaultStallAfter).
	StallAfter time.Duration
	// NewNodeGrace is how long a node without podCIDRs counts as just
	// joined (a warning) rather than waiting (an error). Zero means a
	// minute.
	NewNodeGrace time.Duration
}

type checker struct {
	c       *Cluster
	opts    CheckOptions
	report  CheckReport
	current *CheckResult
}

// Check audits c with the operator's own rules; it needs no operator
// running.
func Check(c *Cluster, opts CheckOptions) CheckReport {
	if opts.StallAfter == 0 {
		opts.StallAfter = lifecycle.DefaultStallAfter
	}
	if opts.NewNodeGrace == 0 {
		opts.NewNodeGrace = time.Minute
	}
	k := &checker{c: c, opts: opts, report: CheckReport{TypeMeta: typeMeta(KindCheckReport), Findings: []Finding{},
		StallAfterSeconds: seconds(opts.StallAfter), NewNodeGraceSeconds: seconds(opts.NewNodeGrace), Unreadable: c.unreadable(),
		Operator: operatorStatus(c, opts.Now)}}
	if c.Operator != nil {
		k.run(CheckOperator, k.operator, ResourceDeployments)
	}
	k.run(CheckPodNetwork, k.podNetwork, ResourcePodNetworks)
	k.run(CheckOverlaps, k.overlaps, ResourceNodes)
	k.run(CheckForeign, k.foreign, ResourceNodes, ResourcePodNetworks)
	k.run(CheckWithoutPodCIDRs, k.withoutPodCIDRs, ResourceNodes, ResourcePodNetworks, ResourceConsumers)
	k.run(CheckAcks, k.acks, ResourcePodNetworks, ResourceConsumers)
	// The adapters are known by their PodNetworkConsumers.
	k.run(CheckAdapterConfig, k.adapterConfig, ResourceConsumers)
	return k.report
}

// run runs the check f, or skips it when one of the resources it needs
// could not be read.
func (k *checker) run(name string, f func() string, needs ...string) {
	k.report.Checks = append(k.report.Checks, CheckResult{Name: name})
	k.current = &k.report.Checks[len(k.report.Checks)-1]
	var missing []string
	for _, r := range needs {
		if !k.c.Readable(r) {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		k.current.Skipped = strings.Join(missing, " and ") + " could not be read"
		return
	}
	k.current.Checked = f()
}

func (k *checker) add(sev Severity, subject, format string, args ...any) {
	k.report.Findings = append(k.report.Findings, Finding{Severity: sev, Check: k.current.Name, Subject: subject, Message: fmt.Sprintf(format, args...)})
	if sev == SeverityError {
		k.report.Errors++
		k.current.Errors++
	} else {
		k.report.Warnings++
		k.current.Warns++
	}
}

// podNetwork reports a missing PodNetwork and what its Degraded condition
// says.
func (k *checker) podNetwork() string {
	pn := k.c.PodNetwork
	if pn == nil {
		k.add(SeverityWarning, "", "there is no PodNetwork %q: nothing is managed yet", v1alpha1.PodNetworkName)
		return "no PodNetwork"
	}
	subject := "podnetwork/" + pn.Name
	if ptr.Deref(pn.Status.ObservedGeneration, 0) != pn.Generation {
		k.add(SeverityWarning, subject, "the operator has seen generation %d of %d: is it running?", ptr.Deref(pn.Status.ObservedGeneration, 0), pn.Generation)
	}
	if d := meta.FindStatusCondition(pn.Status.Conditions, v1alpha1.DegradedCondition); d != nil && d.Status == metav1.ConditionTrue {
		k.add(SeverityError, subject, "Degraded (%s): %s", d.Reason, d.Message)
	}
	return fmt.Sprintf("PodNetwork %s, %s", pn.Name, count(len(pn.Status.Ranges), "tracked range"))
}

// overlaps finds node podCIDRs that overlap another node's, with NodeIPAM's
// own sweep.
func (k *checker) overlaps() string {
	var hs []nodeipam.Holding
	for i := range k.c.Nodes {
		for _, p := range cidr.ParseObserved(k.c.Nodes[i].Spec.PodCIDRs) {
			hs = append(hs, nodeipam.Holding{Node: k.c.Nodes[i].Name, Prefix: p})
		}
	}
	for _, conflict := range nodeipam.FindOverlaps(hs) {
		k.add(SeverityError, "node/"+conflict.Node, "%s: two allocators are at work or podCIDRs were set by hand; replace one of the nodes", conflict)
	}
	return fmt.Sprintf("%s of %s", count(len(hs), "podCIDR"), count(len(k.c.Nodes), "node"))
}

// foreign finds podCIDRs outside every tracked range, with the rule of
// status.foreignNodes.
func (k *checker) foreign() string {
	var tracked []netip.Prefix
	if k.c.PodNetwork != nil {
		for _, rs := range k.c.PodNetwork.Status.Ranges {
			if p, err := netip.ParsePrefix(rs.CIDR); err == nil {
				tracked = append(tracked, p.Masked())
			}
		}
	}
	for i := range k.c.Nodes {
		n := &k.c.Nodes[i]
		if out := lifecycle.ForeignPodCIDRs(cidr.ParseObserved(n.Spec.PodCIDRs), tracked); len(out) > 0 {
			k.add(SeverityError, "node/"+n.Name, "podCIDR %s lies outside every tracked range: add a range that covers it, or replace the node",
				text.List(out))
		}
	}
	return fmt.Sprintf("%s against %s", count(len(k.c.Nodes), "node"), count(len(tracked), "tracked range"))
}

// withoutPodCIDRs explains every node that has no podCIDRs yet.
func (k *checker) withoutPodCIDRs() string {
	pn := k.c.PodNetwork
	var cfg nodeipam.Config
	if pn != nil {
		cfg = nodeipam.NewConfig(declaredView(k.c))
	}
	ipam := k.c.consumer(k.c.NodeIPAM)
	waiting := 0
	for i := range k.c.Nodes {
		n := &k.c.Nodes[i]
		if len(n.Spec.PodCIDRs) > 0 || !n.DeletionTimestamp.IsZero() {
			continue
		}
		waiting++
		subject := "node/" + n.Name
		sev := SeverityError
		if k.opts.Now.Sub(n.CreationTimestamp.Time) < k.opts.NewNodeGrace {
			sev = SeverityWarning
		}
		switch {
		case ipam == nil:
			k.add(sev, subject, "has no podCIDRs and NodeIPAM is not running (no PodNetworkConsumer %q): whatever allocates podCIDRs in this cluster has not served it", k.c.NodeIPAM)
		case pn == nil:
			k.add(sev, subject, "has no podCIDRs and there is no PodNetwork to allocate from")
		default:
			k.add(sev, subject, "has no podCIDRs: %s", whyNoBlock(&cfg, pn, n.Name, n.Labels))
		}
	}
	return fmt.Sprintf("%s, %d without podCIDRs", count(len(k.c.Nodes), "node"), waiting)
}

// whyNoBlock says why NodeIPAM has no block for the node, with its own
// candidate choice.
func whyNoBlock(cfg *nodeipam.Config, pn *v1alpha1.PodNetwork, name string, labels map[string]string) string {
	choice := nodeipam.Choose(cfg.Candidates, name, labels, v1alpha1.IPv4)
	if awaited := cfg.FamilyWait(name, labels, choice); len(awaited) > 0 {
		return nodeipam.FamilyWaitReason(awaited)
	}
	if len(choice) == 0 {
		return "no Active range's nodeSelector matches it; add a range for it or change its labels"
	}
	for _, family := range choice {
		var free, quarantined int64
		for _, r := range family {
			if rs := pn.Status.FindRange(r); rs != nil {
				free += ptr.Deref(rs.Usage.Free, 0)
				quarantined += ptr.Deref(rs.Usage.Quarantined, 0)
			}
		}
		if free == 0 {
			msg := fmt.Sprintf("its candidate ranges %s have no free block", strings.Join(family, ", "))
			if quarantined > 0 {
				msg += fmt.Sprintf(" (%d quarantined blocks become free after recycleDelaySeconds)", quarantined)
			}
			return msg + "; add a range (kubectl podnetwork plan --add NAME=CIDR shows what happens)"
		}
	}
	return fmt.Sprintf("its candidate ranges (%s) have free blocks, so NodeIPAM should assign one at once: check the operator's logs and the node's CIDRNotAvailable events",
		strings.Join(slices.Concat(choice...), ", "))
}

// acks compares every consumer's acknowledgements with the current phase of
// every range it is asked to acknowledge.
func (k *checker) acks() string {
	pn := k.c.PodNetwork
	if pn == nil {
		return "no PodNetwork"
	}
	ranges := v1alpha1.RangesToAcknowledge(pn)
	n := 0
	for i := range k.c.Consumers {
		cons := &k.c.Consumers[i]
		if !cons.DeletionTimestamp.IsZero() {
			continue
		}
		n++
		subject := "podnetworkconsumer/" + cons.Name
		for j := range ranges {
			rs := &ranges[j]
			acked, rejected, msg := v1alpha1.AckState(cons.Status.Ranges, rs)
			// A consumer that is not required is never waited for: only its
			// rejections are worth a look.
			if acked || (!rejected && !cons.IsRequired()) {
				continue
			}
			since := ptr.Deref(rs.PhaseSince, metav1.Time{}).Time
			lag := k.opts.Now.Sub(since)
			sev := SeverityWarning
			// Nothing waits for an acknowledgement of Active: lagging on it
			// is never an error.
			if (rejected && cons.IsRequired()) || (cons.IsRequired() && rs.Phase != v1alpha1.RangePhaseActive && lag >= k.opts.StallAfter) {
				sev = SeverityError
			}
			what := fmt.Sprintf("range %s (%s) has been %s for %s", rs.Name, rs.CIDR, rs.Phase, Age(lag))
			switch {
			case rejected:
				k.add(sev, subject, "rejected %s: %s", what, orDash(msg))
			default:
				k.add(sev, subject, "has not acknowledged that %s; its acknowledgement says %s", what, describeAck(cons.Status.Ranges, rs.Name))
			}
		}
	}
	return fmt.Sprintf("%s, %s to acknowledge", count(n, "consumer"), count(len(ranges), "range"))
}

func describeAck(acks []v1alpha1.ConsumerRangeStatus, name string) string {
	for _, a := range acks {
		if a.Name == name {
			return fmt.Sprintf("%s %s (%s)", a.Result, a.Phase, a.CIDR)
		}
	}
	return "nothing yet"
}

// adapterConfig compares the configuration each adapter manages with what
// the ranges need: the adapter's own plan, and the ranges in use that it no
// longer covers.
func (k *checker) adapterConfig() string {
	pn := k.c.PodNetwork
	checked := 0
	for i := range k.c.Adapters {
		a := &k.c.Adapters[i]
		subject := "configmap/" + a.ConfigMap
		if a.Unreadable != "" {
			k.add(SeverityWarning, subject, "the %s adapter's configuration was not checked: %s could not be read", a.Consumer, a.Unreadable)
			continue
		}
		if a.Found {
			checked++
		}
		cfg := adapters.Config{Adapter: a.Consumer, Text: a.Config, Found: a.Found, Running: k.c.consumer(a.Consumer) != nil, Covered: a.Covered}
		if self := k.c.consumer(a.Consumer); self != nil {
			cfg.Acks = self.Status.Ranges // a range accepted as not carried yet is no drift
		}
		covered, drift, compared := cfg.Drift(pn)
		for _, d := range drift {
			k.add(SeverityError, subject, "%s", d)
		}
		if !compared {
			continue
		}
		var previous []v1alpha1.ConsumerRangeStatus
		if self := k.c.consumer(a.Consumer); self != nil {
			previous = self.Status.Ranges
		}
		plan, err := a.Plan(a.Config, k.c.adapterInput(a, pn, previous))
		if err != nil {
			k.add(SeverityError, subject, "the %s adapter cannot manage it: %v", a.Consumer, err)
			continue
		}
		if plan.Config != a.Config {
			k.add(SeverityWarning, subject, "the ranges need %s, it holds %s: the %s adapter rewrites it and restarts the DaemonSet while the operator runs",
				plan.Summary, orDash(text.List(covered.Prefixes)), a.Consumer)
		}
		for _, p := range plan.Decision.Problems {
			k.add(SeverityError, subject, "%s", p)
		}
	}
	return count(checked, "adapter configuration")
}

// WriteCheckText prints the report: one line per check, then the findings,
// then the totals.
func WriteCheckText(w io.Writer, r *CheckReport) error {
	var b strings.Builder
	t := newTable("CHECK", "RESULT", "CHECKED")
	for _, c := range r.Checks {
		result := "ok"
		switch {
		case c.Errors > 0:
			result = count(c.Errors, "error")
			if c.Warns > 0 {
				result += ", " + count(c.Warns, "warning")
			}
		case c.Warns > 0:
			result = count(c.Warns, "warning")
		}
		if c.Skipped != "" {
			result = "skipped"
		}
		t.row(c.Name, result, orDash(c.Checked+c.Skipped))
	}
	if err := t.write(&b); err != nil {
		return err
	}
	if len(r.Findings) > 0 {
		b.WriteString("\n")
		for _, f := range r.Findings {
			subject := ""
			if f.Subject != "" {
				subject = f.Subject + ": "
			}
			fmt.Fprintf(&b, "%-7s  %s  %s%s\n", strings.ToUpper(string(f.Severity)), f.Check, subject, f.Message)
		}
	}
	fmt.Fprintf(&b, "\n%s, %s\n", count(r.Errors, "error"), count(r.Warnings, "warning"))
	_, err := io.WriteString(w, b.String())
	return err
}
