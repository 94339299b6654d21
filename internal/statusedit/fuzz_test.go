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
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// FuzzFindAndTakeover feeds Find and Takeover a status entry of another
// field manager with any field set (the apiserver validates managedFields
// loosely, and a client may write them), next to the operator's own, and
// checks that they never panic, that Takeover leaves no other manager
// owning a status field, and that no field loses its owner. The seed corpus
// is in testdata/fuzz.
func FuzzFindAndTakeover(f *testing.F) {
	f.Add(`{"f:status":{"f:ranges":{"k:{\"name\":\"a\"}":{"f:phase":{}}}}}`, "kubectl-edit", false)
	f.Add(`{"f:status":{"f:quarantine":{},"f:ranges":{"k:{\"name\":\"x\"}":{".":{},"f:name":{},"f:usage":{".":{},"f:free":{}}}}}}`, "script", true)
	f.Add(`{"f:status":{"f:conditions":{"k:{\"type\":\"Junk\"}":{".":{},"f:type":{}}}}}`, LifecycleManager, false)
	f.Add(`{"f:status":{"f:ranges":{"k:{\"name\":7}":{"f:phase":{}}}}}`, "odd-key", false)
	f.Add(`{"f:spec":{}}`, "spec-only", false)
	f.Fuzz(func(t *testing.T, fields, manager string, apply bool) {
		if !utf8.ValidString(fields) || !utf8.ValidString(manager) {
			// The apiserver decodes an object's JSON to UTF-8, so a field
			// path with invalid bytes names no field of any object; that
			// structured-merge-diff re-encodes such a path with U+FFFD
			// loses nothing, but would break this test's equality check.
			return
		}
		op := metav1.ManagedFieldsOperationUpdate
		if apply {
			op = metav1.ManagedFieldsOperationApply
		}
		entries := []metav1.ManagedFieldsEntry{
			entry(LifecycleManager, metav1.ManagedFieldsOperationApply, lifecycleA),
			entry(NodeIPAMManager, metav1.ManagedFieldsOperationApply, nodeIPAMA),
			entry(manager, op, fields),
		}
		_ = Find(entries)
		_ = ByRange(Find(entries))
		out, changed, err := Takeover(entries, metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), []string{"a"})
		if err != nil {
			return // an entry whose fields cannot be read is left alone
		}
		if !changed {
			return
		}
		if HasOthers(out) || len(Find(out)) > 0 {
			t.Fatalf("another manager still owns status fields after Takeover: %+v", out)
		}
		if before, after := owned(t, entries), owned(t, out); !before.Equals(after) {
			t.Fatalf("fields changed owners' union:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// owned is the union of the status fields every status entry owns.
func owned(t *testing.T, entries []metav1.ManagedFieldsEntry) *fieldpath.Set {
	all := fieldpath.NewSet()
	for _, e := range entries {
		if e.Subresource != statusSubresource {
			continue
		}
		s, err := decode(e)
		if err != nil {
			t.Fatalf("Takeover wrote fields that cannot be read: %v", err)
		}
		all = all.Union(s)
	}
	return all
}
