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

package statusedit

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// entry builds a managedFields entry of the status subresource; the fields
// are FieldsV1 JSON as the apiserver writes them.
func entry(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "podnetwork.io/v1alpha1",
		Subresource: "status", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

const (
	apply  = metav1.ManagedFieldsOperationApply
	update = metav1.ManagedFieldsOperationUpdate

	// What the lifecycle owns after tracking range a.
	lifecycleA = `{"f:status":{"f:conditions":{},"f:ranges":{"k:{\"name\":\"a\"}":{".":{},"f:cidr":{},"f:name":{},"f:nodeMaskSize":{},"f:phase":{},"f:phaseSince":{}}}}}`
	// What NodeIPAM owns after reporting a's usage and a quarantine.
	nodeIPAMA = `{"f:status":{"f:quarantine":{},"f:ranges":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:usage":{".":{},"f:capacity":{}}}}}}`
)

func TestFind(t *testing.T) {
	spec := metav1.ManagedFieldsEntry{Manager: "kubectl-client-side-apply", Operation: update, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:ranges":{}}}`)}}
	tests := []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		want    []Edit
	}{
		{
			name:    "only the operator wrote the status",
			entries: []metav1.ManagedFieldsEntry{spec, entry(LifecycleManager, apply, lifecycleA), entry(NodeIPAMManager, apply, nodeIPAMA)},
		},
		{
			name:    "drain assist's report is the operator's",
			entries: []metav1.ManagedFieldsEntry{spec, entry(LifecycleManager, apply, lifecycleA), entry(DrainAssistManager, apply, `{"f:status":{"f:drainAssist":{}}}`)},
		},
		{
			name:    "the autoscaler's report is the operator's",
			entries: []metav1.ManagedFieldsEntry{spec, entry(LifecycleManager, apply, lifecycleA), entry(AutoscalerManager, apply, `{"f:status":{"f:autoscaling":{}}}`)},
		},
		{
			name: "kubectl edit changed a phase, which the lifecycle lost",
			entries: []metav1.ManagedFieldsEntry{
				entry(LifecycleManager, apply, `{"f:status":{"f:ranges":{"k:{\"name\":\"a\"}":{".":{},"f:cidr":{},"f:name":{}}}}}`),
				entry("kubectl-edit", update, `{"f:status":{"f:ranges":{"k:{\"name\":\"a\"}":{"f:phase":{}}}}}`),
			},
			want: []Edit{{Manager: "kubectl-edit", Operation: update, Ranges: map[string][]string{"a": {"phase"}}}},
		},
		{
			name: "a field the operator also owns holds its value: no edit",
			entries: []metav1.ManagedFieldsEntry{
				entry(LifecycleManager, apply, lifecycleA),
				entry("kubectl-edit", update, `{"f:status":{"f:ranges":{"k:{\"name\":\"a\"}":{"f:phase":{}}}}}`),
			},
		},
		{
			name: "an added entry, a usage lie and a quarantine by two clients",
			entries: []metav1.ManagedFieldsEntry{
				entry(LifecycleManager, apply, lifecycleA),
				entry("script", apply, `{"f:status":{"f:ranges":{"k:{\"name\":\"x\"}":{".":{},"f:cidr":{},"f:name":{},"f:phase":{}}}}}`),
				entry("kubectl-patch", update, `{"f:status":{"f:quarantine":{},"f:ranges":{"k:{\"name\":\"a\"}":{"f:usage":{".":{},"f:capacity":{},"f:free":{}}}}}}`),
			},
			want: []Edit{
				{Manager: "kubectl-patch", Operation: update, Ranges: map[string][]string{"a": {"usage"}}, Fields: []string{"quarantine"}},
				{Manager: "script", Operation: apply, Ranges: map[string][]string{"x": {".", "cidr", "name", "phase"}}},
			},
		},
		{
			// NodeIPAM reported the usage of an Active entry a client added
			// before the lifecycle saw it: the entry is still the client's.
			name: "an added entry NodeIPAM reports usage for is still added",
			entries: []metav1.ManagedFieldsEntry{
				entry(LifecycleManager, apply, lifecycleA),
				entry(NodeIPAMManager, apply, `{"f:status":{"f:ranges":{"k:{\"name\":\"x\"}":{".":{},"f:name":{},"f:usage":{".":{},"f:capacity":{}}}}}}`),
				entry("kubectl-edit", update, `{"f:status":{"f:ranges":{"k:{\"name\":\"x\"}":{".":{},"f:cidr":{},"f:name":{},"f:nodeMaskSize":{},"f:phase":{}}}}}`),
			},
			want: []Edit{{Manager: "kubectl-edit", Operation: update, Ranges: map[string][]string{"x": {".", "cidr", "name", "nodeMaskSize", "phase"}}}},
		},
		{
			name: "an update under the lifecycle's name is not the lifecycle's",
			entries: []metav1.ManagedFieldsEntry{
				entry(LifecycleManager, update, `{"f:status":{"f:conditions":{}}}`),
			},
			want: []Edit{{Manager: LifecycleManager, Operation: update, Ranges: map[string][]string{}, Fields: []string{"conditions"}}},
		},
		{
			name:    "an unreadable entry is skipped",
			entries: []metav1.ManagedFieldsEntry{entry("broken", update, `{"f:status":`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(Find(tt.entries)).To(Equal(tt.want))
		})
	}
}

func TestByRangeAndString(t *testing.T) {
	g := NewWithT(t)
	edits := []Edit{
		{Manager: "b", Operation: update, Ranges: map[string][]string{"a": {"phase"}, "x": {".", "cidr", "name"}}},
		{Manager: "a", Operation: update, Ranges: map[string][]string{"a": {"cidr", "phase"}}, Fields: []string{"quarantine"}},
	}
	g.Expect(ByRange(edits)).To(Equal(map[string]RangeEdit{
		"a": {Managers: []string{"a", "b"}, Identity: true, Phase: true, Fields: []string{"cidr", "phase"}},
		"x": {Managers: []string{"b"}, Added: true, Identity: true, Fields: []string{".", "cidr", "name"}},
	}))
	g.Expect(edits[1].String()).To(Equal(`"a" (Update) set status.ranges{a}.cidr, status.ranges{a}.phase, status.quarantine`))
	g.Expect(edits[0].String()).To(Equal(`"b" (Update) set status.ranges{a}.phase, status.ranges{x}, status.ranges{x}.cidr, status.ranges{x}.name`))
}

func TestTakeover(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	fields := func(entries []metav1.ManagedFieldsEntry) map[string]string {
		out := map[string]string{}
		for _, e := range entries {
			out[e.Manager+"/"+string(e.Operation)+"/"+e.Subresource] = e.FieldsV1.GetRawString()
		}
		return out
	}
	spec := metav1.ManagedFieldsEntry{Manager: "admin", Operation: update, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:ranges":{}}}`)}}
	tests := []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		purged  []string
		want    map[string]string // nil: nothing moves
	}{
		{
			name:    "nothing to take",
			entries: []metav1.ManagedFieldsEntry{spec, entry(LifecycleManager, apply, lifecycleA), entry(NodeIPAMManager, apply, nodeIPAMA)},
		},
		{
			name: "NodeIPAM's fields go to NodeIPAM, the rest to the lifecycle",
			entries: []metav1.ManagedFieldsEntry{
				spec,
				entry(LifecycleManager, apply, `{"f:status":{"f:ranges":{"k:{\"name\":\"a\"}":{".":{},"f:name":{}}}}}`),
				entry(NodeIPAMManager, apply, `{"f:status":{"f:quarantine":{}}}`),
				entry("kubectl-edit", update, `{"f:status":{"f:allocationConflicts":{},"f:conditions":{},"f:ranges":{"k:{\"name\":\"a\"}":{"f:phase":{},"f:usage":{".":{},"f:free":{}}}}}}`),
			},
			want: map[string]string{
				"admin/Update/":                    `{"f:spec":{"f:ranges":{}}}`,
				LifecycleManager + "/Apply/status": `{"f:status":{"f:conditions":{},"f:ranges":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:phase":{}}}}}`,
				NodeIPAMManager + "/Apply/status":  `{"f:status":{"f:allocationConflicts":{},"f:quarantine":{},"f:ranges":{"k:{\"name\":\"a\"}":{"f:usage":{".":{},"f:free":{}}}}}}`,
			},
		},
		{
			name: "the autoscaler's report goes to the autoscaler",
			entries: []metav1.ManagedFieldsEntry{
				entry(LifecycleManager, apply, lifecycleA),
				entry(AutoscalerManager, apply, `{"f:status":{"f:autoscaling":{".":{},"f:pools":{}}}}`),
				entry("kubectl-edit", update, `{"f:status":{"f:autoscaling":{"f:pools":{}},"f:conditions":{},"f:foreignNodes":{}}}`),
			},
			want: map[string]string{
				LifecycleManager + "/Apply/status":  `{"f:status":{"f:conditions":{},"f:foreignNodes":{},"f:ranges":{"k:{\"name\":\"a\"}":{".":{},"f:cidr":{},"f:name":{},"f:nodeMaskSize":{},"f:phase":{},"f:phaseSince":{}}}}}`,
				AutoscalerManager + "/Apply/status": `{"f:status":{"f:autoscaling":{".":{},"f:pools":{}}}}`,
			},
		},
		{
			name: "drain assist's report goes to drain assist",
			entries: []metav1.ManagedFieldsEntry{
				entry(LifecycleManager, apply, lifecycleA),
				entry(DrainAssistManager, apply, `{"f:status":{"f:drainAssist":{".":{},"f:total":{}}}}`),
				entry("kubectl-edit", update, `{"f:status":{"f:drainAssist":{"f:message":{}},"f:foreignNodes":{}}}`),
			},
			want: map[string]string{
				LifecycleManager + "/Apply/status":   `{"f:status":{"f:conditions":{},"f:foreignNodes":{},"f:ranges":{"k:{\"name\":\"a\"}":{".":{},"f:cidr":{},"f:name":{},"f:nodeMaskSize":{},"f:phase":{},"f:phaseSince":{}}}}}`,
				DrainAssistManager + "/Apply/status": `{"f:status":{"f:drainAssist":{".":{},"f:message":{},"f:total":{}}}}`,
			},
		},
		{
			name: "without NodeIPAM everything goes to the lifecycle, whose entry is created",
			entries: []metav1.ManagedFieldsEntry{
				entry("kubectl-edit", update, `{"f:status":{"f:quarantine":{},"f:ranges":{"k:{\"name\":\"x\"}":{".":{},"f:name":{}}}}}`),
			},
			want: map[string]string{
				LifecycleManager + "/Apply/status": `{"f:status":{"f:quarantine":{},"f:ranges":{"k:{\"name\":\"x\"}":{".":{},"f:name":{}}}}}`,
			},
		},
		{
			name: "every field of a purged entry goes to the lifecycle, and an emptied NodeIPAM entry goes",
			entries: []metav1.ManagedFieldsEntry{
				entry(LifecycleManager, apply, lifecycleA),
				entry(NodeIPAMManager, apply, `{"f:status":{"f:ranges":{"k:{\"name\":\"old\"}":{".":{},"f:name":{},"f:usage":{}}}}}`),
			},
			purged: []string{"old"},
			want: map[string]string{
				LifecycleManager + "/Apply/status": `{"f:status":{"f:conditions":{},"f:ranges":{"k:{\"name\":\"a\"}":{".":{},"f:cidr":{},"f:name":{},"f:nodeMaskSize":{},"f:phase":{},"f:phaseSince":{}},"k:{\"name\":\"old\"}":{".":{},"f:name":{},"f:usage":{}}}}}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			out, changed, err := Takeover(tt.entries, now, tt.purged)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(changed).To(Equal(tt.want != nil))
			if tt.want == nil {
				g.Expect(out).To(Equal(tt.entries))
				return
			}
			g.Expect(fields(out)).To(Equal(tt.want))
			g.Expect(Find(out)).To(BeEmpty(), "no other client owns a status field any more")
			for _, e := range out {
				if e.Subresource == "status" {
					g.Expect(e.Time).To(Equal(&now))
					g.Expect(e.APIVersion).To(Equal("podnetwork.io/v1alpha1"))
				}
			}
		})
	}
}
