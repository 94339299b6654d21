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
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/statusedit"
)

// FuzzComputeUntrustedInput feeds Compute a status entry edited by hand
// (any phase and cidr, any fields another client set), a consumer's
// acknowledgement as the CRD lets it through and beyond (any cidr, phase,
// result and message) and a node podCIDR of any text, and checks that
// Compute never panics, keeps the protocol's promises (checkInvariants:
// nothing is activated or released on an edit's word) and writes only
// what the API accepts: known phases, notes and messages within their
// limits, valid UTF-8. The seed corpus is in testdata/fuzz.
func FuzzComputeUntrustedInput(f *testing.F) {
	f.Add("Active", "10.244.0.0/16", true, "phase", "10.244.0.0/16", "Pending", "Accepted", "", "10.244.3.0/24")
	f.Add("Released", "10.244.0.0/16", false, "phase", "10.244.0.0/16", "Draining", "Accepted", "", "10.244.3.0/24")
	f.Add("Draining", "not-a-cidr", false, "cidr", "not-a-cidr", "Draining", "Accepted", "", "")
	f.Add("Bogus", "10.244.1.0/16", true, "", "garbage", "Bogus", "Maybe", strings.Repeat("é", 1024), "010.244.0.0/24")
	f.Add("Active", "10.99.0.0/16", true, ".,cidr,name,phase", "10.99.0.0/16", "Active", "Rejected", "no", "junk")
	f.Fuzz(func(t *testing.T, phase, rangeCIDR string, inSpec bool, editedFields, ackCIDR, ackPhase, ackResult, message, nodePodCIDR string) {
		for _, s := range []string{phase, rangeCIDR, editedFields, ackCIDR, ackPhase, ackResult, message, nodePodCIDR} {
			if !utf8.ValidString(s) {
				return // the API stores only valid UTF-8
			}
		}
		in := Input{Now: t0, Generation: 1}
		if inSpec {
			in.Spec = []v1alpha1.PodCIDRRange{specRng("a", "10.244.0.0/16"), specRng("b", "10.245.0.0/16")}
		}
		a := tracked("a", "10.244.0.0/16", v1alpha1.RangePhase(phase))
		a.CIDR = rangeCIDR
		in.Status.Ranges = []v1alpha1.RangeStatus{a, tracked("b", "10.245.0.0/16", draining)}
		if editedFields != "" {
			in.Edits = []statusedit.Edit{{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate,
				Ranges: map[string][]string{"a": strings.Split(editedFields, ",")}}}
		}
		in.Consumers = []Consumer{required("x", v1alpha1.ConsumerRangeStatus{Name: "a", CIDR: ackCIDR,
			Phase: v1alpha1.RangePhase(ackPhase), Result: v1alpha1.AckResult(ackResult), Message: message})}
		read := cidr.ObservePrefixes([]string{nodePodCIDR})
		in.Nodes = []Node{{Name: "n", PodCIDRs: read.Prefixes, UnreadablePodCIDRs: read.Unreadable, Problems: read.Problems}}

		out := Compute(in)
		if err := checkInvariants(in, out); err != nil {
			t.Fatalf("%v\ninput: %+v\noutput: %+v\nevents: %+v", err, in.Status.Ranges, out.Ranges, out.Events)
		}
		for _, ev := range out.Events {
			if len(ev.Message) > v1alpha1.MaxMessageLength || !utf8.ValidString(ev.Message) {
				t.Fatalf("event %s note of %d bytes, valid UTF-8 %v", ev.Reason, len(ev.Message), utf8.ValidString(ev.Message))
			}
		}
		for _, r := range out.Ranges {
			if !knownPhase(r.Phase) {
				t.Fatalf("range %q written with phase %q", r.Name, r.Phase)
			}
			for _, m := range append([]string{r.Message, r.InvalidMessage}, rejectionMessages(r)...) {
				if len(m) > v1alpha1.MaxMessageLength || !utf8.ValidString(m) {
					t.Fatalf("range %q message of %d bytes, valid UTF-8 %v", r.Name, len(m), utf8.ValidString(m))
				}
			}
			if r.Phase == active {
				if _, err := netip.ParsePrefix(r.CIDR); err != nil {
					t.Fatalf("Active range %q with cidr %q", r.Name, r.CIDR)
				}
			}
		}
		for _, c := range out.Consumers {
			if len(c.Message) > v1alpha1.MaxMessageLength || !utf8.ValidString(c.Message) {
				t.Fatalf("consumer %q message of %d bytes", c.Name, len(c.Message))
			}
		}
		for _, c := range out.Conditions {
			if len(c.Message) > maxConditionMessage || !utf8.ValidString(c.Message) {
				t.Fatalf("condition %s message of %d bytes", c.Type, len(c.Message))
			}
		}
	})
}

func rejectionMessages(r v1alpha1.RangeStatus) []string {
	var out []string
	for _, rj := range r.Rejections {
		out = append(out, rj.Message)
	}
	return out
}
