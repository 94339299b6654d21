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
	"encoding/json"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
)

// TestStatusGolden pins the status screen and the layout of the
// StatusReport as -o json and -o yaml print it (cli-runtime's printers, as
// the plugin uses them).
func TestStatusGolden(t *testing.T) {
	c := transition(t)
	s := cli.BuildStatus(c, now)
	var b bytes.Buffer
	if err := cli.WriteStatusText(&b, &s); err != nil {
		t.Fatal(err)
	}
	golden(t, "status-transition.text", b.Bytes())
	for format, p := range map[string]printers.ResourcePrinter{"json": &printers.JSONPrinter{}, "yaml": &printers.YAMLPrinter{}} {
		b.Reset()
		if err := p.PrintObj(&s, &b); err != nil {
			t.Fatal(err)
		}
		golden(t, "status-transition."+format, b.Bytes())
	}
}

// TestMachineOutputLayout holds every report to the rules of the machine
// output: apiVersion and kind of cli.podnetwork.io/v1alpha1, and durations
// only as integer seconds in fields ending in Seconds.
func TestMachineOutputLayout(t *testing.T) {
	c := transition(t)
	status := cli.BuildStatus(c, now)
	check := cli.Check(c, cli.CheckOptions{Now: now})
	plan := cli.Plan(c, c.Ranges(), now)
	rejected := cli.Rejected(cli.Rejection{By: cli.RejectedByValidation, Reason: "Invalid", Message: "no"})
	version := cli.VersionFrom(&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}})
	human := regexp.MustCompile(`^\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d)(\d+(s|m|h))*$`)
	for kind, obj := range map[string]runtime.Object{
		cli.KindStatusReport: &status, cli.KindCheckReport: &check, cli.KindPlanReport: &plan, cli.KindPlanReport + " rejected": &rejected, cli.KindVersion: &version,
	} {
		var b bytes.Buffer
		if err := (&printers.JSONPrinter{}).PrintObj(obj, &b); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if m["apiVersion"] != "cli.podnetwork.io/v1alpha1" || m["kind"] != strings.Fields(kind)[0] {
			t.Errorf("%s: apiVersion %v, kind %v", kind, m["apiVersion"], m["kind"])
		}
		walk(m, "", func(path string, v any) {
			key := path[strings.LastIndex(path, ".")+1:]
			if s, ok := v.(string); ok && human.MatchString(s) {
				t.Errorf("%s: %s = %q looks like a human duration", kind, path, s)
			}
			if strings.HasSuffix(key, "Seconds") {
				if f, ok := v.(float64); !ok || f != float64(int64(f)) || f < 0 {
					t.Errorf("%s: %s = %v is not a whole number of seconds", kind, path, v)
				}
			}
			if key == "for" || key == "age" {
				t.Errorf("%s: %s is a duration without Seconds in its name", kind, path)
			}
		})
		// A copy is equal and shares nothing.
		cp := obj.DeepCopyObject()
		var c bytes.Buffer
		if err := (&printers.JSONPrinter{}).PrintObj(cp, &c); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), c.Bytes()) {
			t.Errorf("%s: DeepCopyObject differs:\n%s\n%s", kind, b.String(), c.String())
		}
	}
	if status.Ranges[0].InPhaseSeconds == nil || *status.Ranges[0].InPhaseSeconds != int64((2*time.Hour+5*time.Minute)/time.Second) {
		t.Errorf("range a in phase for %v seconds, want 7500", status.Ranges[0].InPhaseSeconds)
	}
	if check.StallAfterSeconds != 600 || check.NewNodeGraceSeconds != 60 {
		t.Errorf("check thresholds %d and %d seconds, want 600 and 60", check.StallAfterSeconds, check.NewNodeGraceSeconds)
	}
}

// walk calls f on every leaf of a decoded JSON document, with its path.
func walk(v any, path string, f func(path string, v any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			walk(x, path+"."+k, f)
		}
	case []any:
		for i, x := range v {
			walk(x, fmt.Sprintf("%s[%d]", path, i), f)
		}
	default:
		f(path, v)
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

// TestPlanOutcome: a change whose ranges all get where it takes them
// proceeds; one that leaves a range invalid, rejected or waiting for a
// consumer that will not answer is stuck, and says why.
func TestPlanOutcome(t *testing.T) {
	fixed := func(t *testing.T) *cli.Cluster {
		c := transition(t)
		c.Consumers[2].Status.Ranges = c.Consumers[0].Status.Ranges
		return c
	}
	add := func(c *cli.Cluster, rs ...v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
		return append(append([]v1alpha1.PodCIDRRange{}, c.Ranges()...), rs...)
	}

	c := fixed(t)
	p := cli.Plan(c, add(c, v1alpha1.PodCIDRRange{Name: "c", CIDR: "10.246.0.0/16"}), now)
	if p.Outcome != cli.OutcomeProceeds || len(p.Stuck) != 0 {
		t.Errorf("adding c: outcome %s, stuck %q", p.Outcome, p.Stuck)
	}

	p = cli.Plan(c, add(c, v1alpha1.PodCIDRRange{Name: "svc", CIDR: "10.96.0.0/16"}, v1alpha1.PodCIDRRange{Name: "far", CIDR: "172.16.0.0/16"}), now)
	if p.Outcome != cli.OutcomeStuck || len(p.Stuck) != 2 ||
		!strings.HasPrefix(p.Stuck[0], "far: stays Pending: rejected by kube-proxy") || !strings.HasPrefix(p.Stuck[1], "svc: stays Pending: invalid: ServiceCIDROverlap") {
		t.Errorf("adding svc and far: outcome %s, stuck %q", p.Outcome, p.Stuck)
	}

	// A third-party consumer that has never written its status: optional,
	// nobody waits for it; required, it is not assumed to accept, and what
	// waits for it stays.
	c = fixed(t)
	c.Consumers = append(c.Consumers, consumer("silent", false, metav1.ConditionTrue))
	c.Consumers[3].Status = v1alpha1.PodNetworkConsumerStatus{}
	if p := cli.Plan(c, add(c, v1alpha1.PodCIDRRange{Name: "c", CIDR: "10.246.0.0/16"}), now); p.Outcome != cli.OutcomeProceeds {
		t.Errorf("with a silent optional consumer: outcome %s, stuck %q", p.Outcome, p.Stuck)
	}
	c.Consumers[3].Spec.Required = ptr.To(true)
	p = cli.Plan(c, add(c, v1alpha1.PodCIDRRange{Name: "c", CIDR: "10.246.0.0/16"}), now)
	var rc cli.RangePlan
	for _, r := range p.Ranges {
		if r.Name == "c" {
			rc = r
		}
	}
	if p.Outcome != cli.OutcomeStuck || rc.Eventually != v1alpha1.RangePhasePending || !slices.Equal(rc.WaitsFor, []string{"silent"}) ||
		rc.Stuck != "stays Pending: waits for silent, which has never written its status" {
		t.Errorf("with a silent required consumer: outcome %s, range c %+v", p.Outcome, rc)
	}
	if cp := p.Consumers[3]; cp.Name != "silent" || !cp.NeverAnswered || len(cp.Answers) == 0 || cp.Answers[0].Result != cli.ResultNoAnswer {
		t.Errorf("silent consumer plan %+v", cp)
	}
	var b bytes.Buffer
	if err := cli.WritePlanText(&b, &p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"has never written its status: its acceptance is not assumed", "STUCK: the change would not complete\n", "\n  c: stays Pending: waits for silent, which has never written its status\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, b.String())
		}
	}
	// Once it has written its status, it is assumed to accept, as ever.
	c.Consumers[3].Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConsumerReadyCondition, Status: metav1.ConditionTrue}}
	if p := cli.Plan(c, add(c, v1alpha1.PodCIDRRange{Name: "c", CIDR: "10.246.0.0/16"}), now); p.Outcome != cli.OutcomeProceeds {
		t.Errorf("with a required consumer that has written its status: outcome %s, stuck %q", p.Outcome, p.Stuck)
	}
}

func TestPlanRejectedText(t *testing.T) {
	for _, tt := range []struct {
		r    cli.Rejection
		want string
	}{
		{cli.Rejection{By: cli.RejectedByValidation, Reason: "Invalid", Message: "PodNetwork.podnetwork.io \"default\" is invalid", Causes: []string{"spec.ranges[2].cidr: must be in canonical form"}},
			"The API server refuses this change (server-side dry-run); nothing was written:\n  spec.ranges[2].cidr: must be in canonical form\n"},
		{cli.Rejection{By: cli.RejectedByAdmission, Reason: "Forbidden", Message: "admission webhook \"x\" denied the request: no"},
			"An admission check of the API server refuses this change (server-side dry-run); nothing was written:\n  admission webhook \"x\" denied the request: no\n"},
	} {
		p := cli.Rejected(tt.r)
		var b bytes.Buffer
		if err := cli.WritePlanText(&b, &p); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want || p.Outcome != cli.OutcomeRejected {
			t.Errorf("outcome %s, text:\n%s\nwant:\n%s", p.Outcome, b.String(), tt.want)
		}
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
