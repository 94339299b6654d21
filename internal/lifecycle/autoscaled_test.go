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

package lifecycle

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/declared"
)

// withUnion declares spec and the autoscaler's set through declared.Union,
// as the controller does.
func (w *world) withUnion(spec []v1alpha1.PodCIDRRange, set ...v1alpha1.AutoscaledRange) *world {
	res := declared.Union(spec, &v1alpha1.AutoscaledRangeSet{Spec: &v1alpha1.AutoscaledRangeSetSpec{Ranges: set}})
	w.in.Spec, w.in.Pools, w.in.Shadowed = res.Ranges, res.Pools, res.Shadowed
	return w
}

// autoRng is a range the autoscaler added, of /24 blocks.
func autoRng(name, pool, cidr string) v1alpha1.AutoscaledRange {
	return v1alpha1.AutoscaledRange{Name: name, Pool: pool, CIDR: v1alpha1.CIDRString(cidr), NodeMaskSize: 24, AddedTime: &metav1.Time{Time: t0}}
}

func TestAutoscaledRangesAreDeclaredAndMarked(t *testing.T) {
	spec := []v1alpha1.PodCIDRRange{specRng("pods", "10.244.0.0/20")}
	w := newWorld().withUnion(spec, autoRng("pods-v4-1", "pods-v4", "10.244.0.0/19")).consumers(
		required("c", ack("pods", "10.244.0.0/20", pending), ack("pods", "10.244.0.0/20", active),
			ack("pods-v4-1", "10.244.0.0/19", pending)))
	out := w.step()
	if phaseOf(out, "pods-v4-1") != active || rangeOf(out, "pods-v4-1").Pool != "pods-v4" {
		t.Fatalf("autoscaled range %+v, want Active with pool pods-v4", rangeOf(out, "pods-v4-1"))
	}
	if rangeOf(out, "pods").Pool != "" || rangeOf(out, "pods").CoveredBy != "pods-v4-1" {
		t.Errorf("admin range %+v, want no pool, covered by the autoscaled supernet", rangeOf(out, "pods"))
	}
	if out.Summary.TotalRanges != 2 || out.Summary.ActiveRanges != 2 || out.Summary.AutoscaledRanges != 1 {
		t.Errorf("summary %+v, want 2 total, 2 active, 1 autoscaled", out.Summary)
	}

	// The admin replaces their spec (apply, replace, GitOps): the
	// autoscaled range stays declared and Active.
	w.withUnion([]v1alpha1.PodCIDRRange{specRng("pods", "10.244.0.0/20"), specRng("more", "10.96.0.0/16")}, autoRng("pods-v4-1", "pods-v4", "10.244.0.0/19"))
	out = w.step()
	if phaseOf(out, "pods-v4-1") != active {
		t.Errorf("autoscaled range %s after the admin's edit, want Active", phaseOf(out, "pods-v4-1"))
	}

	// The autoscaler removes it: it drains like any range that left the
	// spec, and keeps showing its pool.
	w.withUnion(spec)
	out = w.step()
	if r := rangeOf(out, "pods-v4-1"); r == nil || r.Pool != "pods-v4" || (r.Phase != draining && r.Phase != released) {
		t.Errorf("removed autoscaled range %+v, want Draining or Released with its pool", r)
	}
	if out.Summary.AutoscaledRanges != 0 {
		t.Errorf("summary %+v, want 0 autoscaled", out.Summary)
	}
}

func TestAdoptedAutoscaledRangeBecomesTheAdmins(t *testing.T) {
	a := autoRng("p-1", "p", "10.64.0.0/20")
	w := newWorld().withUnion(nil, a).consumers(required("c", ack("p-1", "10.64.0.0/20", pending)))
	if out := w.step(); rangeOf(out, "p-1").Pool != "p" {
		t.Fatalf("pool %q, want p", rangeOf(out, "p-1").Pool)
	}
	w.withUnion([]v1alpha1.PodCIDRRange{specRng("p-1", "10.64.0.0/20", 24)}, a)
	out := w.step()
	if r := rangeOf(out, "p-1"); r.Phase != active || r.Pool != "" {
		t.Errorf("adopted range %+v, want Active without a pool", r)
	}
	if len(eventsWith(out, EventRangeDraining)) != 0 {
		t.Errorf("adoption moved the range: %v", reasons(out))
	}
}

func TestShadowedSpecEntryIsReported(t *testing.T) {
	w := newWorld().withUnion([]v1alpha1.PodCIDRRange{specRng("p-1", "10.99.0.0/16")}, autoRng("p-1", "p", "10.64.0.0/20")).
		consumers(required("c", ack("p-1", "10.64.0.0/20", pending)))
	out := w.step()
	if r := rangeOf(out, "p-1"); r.CIDR != "10.64.0.0/20" || r.Phase != active {
		t.Errorf("range %+v, want the autoscaler's, Active", r)
	}
	d := cond(out, v1alpha1.DegradedCondition)
	if d.Status != metav1.ConditionTrue || d.Reason != v1alpha1.InvalidRangesReason || !strings.Contains(d.Message, "10.99.0.0/16") {
		t.Errorf("Degraded %+v, want InvalidRanges naming the shadowed entry", d)
	}
	if len(eventsWith(out, EventRangeInvalid)) != 1 {
		t.Errorf("events %v, want one RangeInvalid", reasons(out))
	}
	if out = w.step(); len(eventsWith(out, EventRangeInvalid)) != 0 {
		t.Errorf("events %v on the next step, want none (reported once)", reasons(out))
	}
}
