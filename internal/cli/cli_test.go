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

package cli_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
)

func TestStatusGolden(t *testing.T) {
	c := transition(t)
	s := cli.BuildStatus(c, now)
	for _, format := range []string{cli.FormatText, cli.FormatJSON, cli.FormatYAML} {
		var b bytes.Buffer
		if err := cli.Write(&b, format, s, func(w io.Writer) error { return cli.WriteStatusText(w, &s) }); err != nil {
			t.Fatal(err)
		}
		golden(t, "status-transition."+format, b.Bytes())
	}
}

func TestStatusWithoutPodNetwork(t *testing.T) {
	s := cli.BuildStatus(&cli.Cluster{}, now)
	var b bytes.Buffer
	if err := cli.WriteStatusText(&b, &s); err != nil {
		t.Fatal(err)
	}
	golden(t, "status-none.text", b.Bytes())
}

func TestCheckGolden(t *testing.T) {
	r := cli.Check(transition(t), cli.CheckOptions{Now: now})
	var b bytes.Buffer
	if err := cli.WriteCheckText(&b, &r); err != nil {
		t.Fatal(err)
	}
	golden(t, "check-transition.text", b.Bytes())
	// Every check of the audit found what the fixture planted.
	found := map[string]bool{}
	for _, f := range r.Findings {
		if f.Severity == cli.SeverityError {
			found[f.Check] = true
		}
	}
	for _, check := range []string{cli.CheckPodNetwork, cli.CheckOverlaps, cli.CheckForeign, cli.CheckWithoutPodCIDRs, cli.CheckAcks, cli.CheckAdapterConfig} {
		if !found[check] {
			t.Errorf("check %s found no error in the transition fixture", check)
		}
	}
}

func TestCheckGraceAndStall(t *testing.T) {
	c := transition(t)
	// Seen right after the Pending range appeared and the node joined, the
	// lag and the missing podCIDRs are warnings, not errors.
	r := cli.Check(c, cli.CheckOptions{Now: t0.Add(time.Hour + 10*time.Second), StallAfter: time.Hour, NewNodeGrace: 24 * time.Hour})
	for _, f := range r.Findings {
		if f.Severity == cli.SeverityError && (f.Check == cli.CheckAcks || f.Check == cli.CheckWithoutPodCIDRs) {
			t.Errorf("want a warning, got an error: %+v", f)
		}
	}
}

func TestPlanGolden(t *testing.T) {
	c := transition(t)
	// Clean up what the transition fixture broke that plan does not care
	// about, and let the plugin catch up.
	c.Consumers[2].Status.Ranges = c.Consumers[0].Status.Ranges
	proposed := append(c.Ranges()[:0:0], c.Ranges()...)
	proposed = append(proposed[1:], // remove a
		v1alpha1.PodCIDRRange{Name: "c", CIDR: "10.246.0.0/16"},
		v1alpha1.PodCIDRRange{Name: "svc", CIDR: "10.96.0.0/16"},
		v1alpha1.PodCIDRRange{Name: "far", CIDR: "172.16.0.0/16"},
	)
	p := cli.Plan(c, proposed, now)
	var b bytes.Buffer
	if err := cli.WritePlanText(&b, &p); err != nil {
		t.Fatal(err)
	}
	golden(t, "plan-transition.text", b.Bytes())
	want := map[string]v1alpha1.RangePhase{
		"a":   v1alpha1.RangePhaseDraining, // held by n1 and n2
		"b":   v1alpha1.RangePhaseActive,
		"c":   v1alpha1.RangePhaseActive,
		"svc": v1alpha1.RangePhasePending, // overlaps the ServiceCIDR
		"far": v1alpha1.RangePhasePending, // kube-proxy would need 0.0.0.0/0: rejected
		"old": v1alpha1.RangePhaseDraining,
	}
	for _, r := range p.Ranges {
		if w, ok := want[r.Name]; ok && r.Eventually != w {
			t.Errorf("range %s: eventually %s, want %s", r.Name, r.Eventually, w)
		}
	}
	if !p.Settled {
		t.Errorf("the simulation did not settle in %d rounds", p.Rounds)
	}
}

func TestPlanWithoutChange(t *testing.T) {
	c := transition(t)
	p := cli.Plan(c, c.Ranges(), now)
	if len(p.Changes) != 0 {
		t.Errorf("changes %q, want none", p.Changes)
	}
	var b bytes.Buffer
	if err := cli.WritePlanText(&b, &p); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "No change to the ranges") {
		t.Errorf("plan without change starts with %q", strings.SplitN(b.String(), "\n", 2)[0])
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second:                   "0s",
		42 * time.Second:               "42s",
		5*time.Minute + 30*time.Second: "5m30s",
		5 * time.Minute:                "5m",
		25 * time.Minute:               "25m",
		2*time.Hour + 5*time.Minute:    "2h5m",
		30 * time.Hour:                 "30h",
		50 * time.Hour:                 "2d2h",
		10 * 24 * time.Hour:            "10d",
	} {
		if got := cli.Age(d); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
}
