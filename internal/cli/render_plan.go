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
	"strings"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// WritePlanText prints the plan: the changes, what happens to each range,
// how each consumer answers, what each adapter writes and, when the change
// would not complete, why.
func WritePlanText(w io.Writer, p *PlanReport) error {
	var b strings.Builder
	if r := p.Rejection; r != nil {
		if r.By == RejectedByAdmission {
			b.WriteString("An admission check of the API server refuses this change (server-side dry-run); nothing was written:\n")
		} else {
			b.WriteString("The API server refuses this change (server-side dry-run); nothing was written:\n")
		}
		lines := r.Causes
		if len(lines) == 0 {
			lines = []string{r.Message}
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		if len(r.Conflicts) > 0 {
			b.WriteString("The ranges that overlap:\n")
			for _, c := range r.Conflicts {
				fmt.Fprintf(&b, "  %s\n", c)
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	if len(p.Changes) == 0 {
		b.WriteString("No change to the ranges: this is where the current state leads.\n")
	} else {
		b.WriteString("Changes (accepted by a server-side dry-run; nothing was written):\n")
		for _, c := range p.Changes {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	if !p.Settled {
		fmt.Fprintf(&b, "The simulation still moved after %d rounds of answers; the last state is shown.\n", p.Rounds)
	}
	if len(p.Ranges) > 0 {
		b.WriteString("\nRANGES\n")
		t := newTable("NAME", "CIDR", "NOW", "AFTER APPLY", "EVENTUALLY")
		for i := range p.Ranges {
			r := &p.Ranges[i]
			t.row(r.Name, r.CIDR, orDash(string(r.Now)), string(r.AfterApply), string(r.Eventually))
			planDetails(t, r)
		}
		if err := t.write(&b); err != nil {
			return err
		}
	}
	if len(p.Consumers) > 0 {
		b.WriteString("\nCONSUMERS\n")
		t := newTable("NAME", "REQUIRED", "KIND", "ANSWERS")
		for _, c := range p.Consumers {
			t.row(c.Name, yesNo(c.Required), c.Kind, orDash(answerSummary(c)))
			if c.NeverAnswered {
				t.detail("has never written its status: its acceptance is not assumed")
			}
		}
		if err := t.write(&b); err != nil {
			return err
		}
	}
	if len(p.Adapters) > 0 {
		b.WriteString("\nADAPTERS\n")
		t := newTable("CONSUMER", "CONFIGMAP", "NOW", "WRITES")
		for _, a := range p.Adapters {
			writes := a.Writes
			switch {
			case a.Error != "":
				writes = "nothing"
			case a.Changes:
				writes += " (and restarts its DaemonSet)"
			default:
				writes += " (unchanged)"
			}
			t.row(a.Consumer, a.ConfigMap, orDash(a.Now), writes)
			if a.Error != "" {
				t.detail("%s", a.Error)
			}
			for _, pr := range a.Problems {
				t.detail("problem: %s", pr)
			}
		}
		if err := t.write(&b); err != nil {
			return err
		}
	}
	if err := writeDrainScheduleText(&b, p.DrainSchedule); err != nil {
		return err
	}
	if err := writeNetworkPoliciesText(&b, p.NetworkPolicies); err != nil {
		return err
	}
	if len(p.Stuck) > 0 {
		b.WriteString("\nSTUCK: the change would not complete\n")
		for _, s := range p.Stuck {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func planDetails(t *table, r *RangePlan) {
	if r.Invalid != "" {
		t.detail("invalid: %s", r.Invalid)
	}
	if len(r.MustAcknowledge) > 0 && r.AfterApply != r.Now {
		t.detail("%s must be acknowledged by: %s", r.AfterApply, strings.Join(r.MustAcknowledge, ", "))
	}
	for _, rej := range r.Rejections {
		t.detail("rejected by %s: %s", rej.Consumer, orDash(rej.Message))
	}
	if r.HolderCount > 0 && r.Eventually == v1alpha1.RangePhaseDraining {
		t.detail("held by %s, which must be replaced before it is Released: %s", count(int(r.HolderCount), "node"), list(r.Holders, int(r.HolderCount), 10))
	}
	if r.CoveredBy != "" && r.Eventually != Purged {
		t.detail("inside Active range %s: its nodes keep their blocks", r.CoveredBy)
	}
	if len(r.Assumed) > 0 {
		t.detail("assumes acceptance by third-party consumers, whose answers cannot be predicted: %s", strings.Join(r.Assumed, ", "))
	}
}

// answerSummary lists a consumer's answers in one cell: "accepts c
// (Pending), a (Draining); rejects d (Pending)".
func answerSummary(c ConsumerPlan) string {
	groups := map[string][]string{}
	var order []string
	for _, a := range c.Answers {
		verb := map[string]string{
			string(v1alpha1.AckAccepted): "accepts", string(v1alpha1.AckRejected): "rejects",
			ResultAssumed: "assumed to accept", ResultNoAnswer: "does not answer",
		}[a.Result]
		if _, seen := groups[verb]; !seen {
			order = append(order, verb)
		}
		groups[verb] = append(groups[verb], fmt.Sprintf("%s (%s)", a.Range, a.Phase))
	}
	parts := make([]string, 0, len(order))
	for _, verb := range order {
		parts = append(parts, verb+" "+strings.Join(groups[verb], ", "))
	}
	return strings.Join(parts, "; ")
}
