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
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// statusSubresource is the subresource every write of the status goes
// through; other entries of managedFields are about the spec and metadata.
const statusSubresource = "status"

// entryField stands for a range entry itself: the client added it.
const entryField = "."

// Edit is what one other client set in the status and the operator has not
// overwritten since.
type Edit struct {
	// Manager and Operation name the client's field manager.
	Manager   string
	Operation metav1.ManagedFieldsOperationType
	// Ranges maps the name of a status.ranges entry to the fields of it the
	// client set, by JSON name, sorted; "." when it added the entry.
	Ranges map[string][]string
	// Fields are the other status fields it set, by JSON name, sorted.
	Fields []string
}

// String names the client and the fields, for events and logs.
func (e Edit) String() string {
	var parts []string
	names := make([]string, 0, len(e.Ranges))
	for name := range e.Ranges {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, f := range e.Ranges[name] {
			if f == entryField {
				parts = append(parts, fmt.Sprintf("status.ranges{%s}", name))
			} else {
				parts = append(parts, fmt.Sprintf("status.ranges{%s}.%s", name, f))
			}
		}
	}
	for _, f := range e.Fields {
		parts = append(parts, "status."+f)
	}
	return fmt.Sprintf("%q (%s) set %s", e.Manager, e.Operation, strings.Join(parts, ", "))
}

// Find returns the status fields that field managers other than the
// operator's own (an update under one of their names included) set and
// that neither of the operator's managers also owns,
// one Edit per such manager, sorted by manager. A field both own holds the
// value the operator last applied; a field only the other owns was changed
// by it. Entries whose field set cannot be read are skipped (the apiserver
// writes them, so that does not happen).
//
// A range entry itself (".", and its key "name") counts as the operator's
// only when the lifecycle owns it: only the lifecycle adds entries, while
// NodeIPAM's usage report names every entry it reports on, and so co-owns
// an entry another client added as soon as it reports the entry's usage.
// Judged by the union, such an entry would look like one the operator
// added whose cidr another client changed (held Draining for good) rather
// than one another client added (drained and released).
func Find(entries []metav1.ManagedFieldsEntry) []Edit {
	ours, added := fieldpath.NewSet(), fieldpath.NewSet()
	for _, e := range entries {
		if isOperatorEntry(e) {
			if s, err := decode(e); err == nil {
				ours = ours.Union(s)
				if e.Manager == LifecycleManager {
					added = added.Union(s)
				}
			}
		}
	}
	var out []Edit
	for _, e := range entries {
		if e.Subresource != statusSubresource || isOperatorEntry(e) {
			continue
		}
		s, err := decode(e)
		if err != nil {
			continue
		}
		edit := Edit{Manager: e.Manager, Operation: e.Operation, Ranges: map[string][]string{}}
		s.Iterate(func(p fieldpath.Path) {
			f, ok := classify(p)
			owned := ours
			if f.inRange && (f.field == entryField || f.field == "name") {
				owned = added
			}
			switch {
			case !ok, owned.Has(p):
			case f.inRange:
				if !slices.Contains(edit.Ranges[f.rangeName], f.field) {
					edit.Ranges[f.rangeName] = append(edit.Ranges[f.rangeName], f.field)
				}
			case !slices.Contains(edit.Fields, f.field):
				edit.Fields = append(edit.Fields, f.field)
			}
		})
		if len(edit.Ranges) == 0 && len(edit.Fields) == 0 {
			continue
		}
		for name := range edit.Ranges {
			sort.Strings(edit.Ranges[name])
		}
		sort.Strings(edit.Fields)
		out = append(out, edit)
	}
	slices.SortStableFunc(out, func(a, b Edit) int { return strings.Compare(a.Manager, b.Manager) })
	return out
}

// HasOthers reports whether a field manager other than the operator's own
// owns any status field, even one an operator manager owns too: Takeover
// would move something.
func HasOthers(entries []metav1.ManagedFieldsEntry) bool {
	for _, e := range entries {
		if e.Subresource == statusSubresource && !isOperatorEntry(e) {
			return true
		}
	}
	return false
}

// RangeEdit sums up what other clients changed in one range entry.
type RangeEdit struct {
	// Managers are the clients, sorted.
	Managers []string
	// Added is true when a client added the entry.
	Added bool
	// Identity is true when a client set its cidr or nodeMaskSize, which
	// name which addresses the range holds.
	Identity bool
	// Phase is true when a client set its phase.
	Phase bool
	// PhaseSince is true when a client set its phaseSince.
	PhaseSince bool
	// Fields are all the fields the clients set, sorted, "." for the entry.
	Fields []string
}

// ByRange sums up the edits per range entry.
func ByRange(edits []Edit) map[string]RangeEdit {
	out := map[string]RangeEdit{}
	for _, e := range edits {
		for name, fields := range e.Ranges {
			re := out[name]
			re.Managers = append(re.Managers, e.Manager)
			for _, f := range fields {
				switch f {
				case entryField:
					re.Added = true
				case "cidr", "nodeMaskSize":
					re.Identity = true
				case "phase":
					re.Phase = true
				case "phaseSince":
					re.PhaseSince = true
				}
				if !slices.Contains(re.Fields, f) {
					re.Fields = append(re.Fields, f)
				}
			}
			sort.Strings(re.Managers)
			re.Managers = slices.Compact(re.Managers)
			sort.Strings(re.Fields)
			out[name] = re
		}
	}
	return out
}

// field is where a path of the status points.
type field struct {
	inRange   bool
	rangeName string
	// field is the JSON name of the status field, or of the range entry's
	// field ("." for the entry itself).
	field string
}

// classify locates p, a path into the object: ok is false outside status.
// A path below a field (usage.capacity) is that field (usage).
func classify(p fieldpath.Path) (field, bool) {
	if len(p) < 2 || p[0].FieldName == nil || *p[0].FieldName != "status" || p[1].FieldName == nil {
		return field{}, false
	}
	top := *p[1].FieldName
	if top != "ranges" || len(p) < 3 || p[2].Key == nil {
		return field{field: top}, true
	}
	name := ""
	for _, k := range *p[2].Key {
		if k.Name == "name" && k.Value != nil && k.Value.IsString() {
			name = k.Value.AsString()
		}
	}
	if len(p) == 3 || p[3].FieldName == nil {
		return field{inRange: true, rangeName: name, field: entryField}, true
	}
	return field{inRange: true, rangeName: name, field: *p[3].FieldName}, true
}

// isOperatorEntry reports whether e records the status fields one of the
// operator's writers applied. An update under one of their names is not
// theirs: they only ever apply.
func isOperatorEntry(e metav1.ManagedFieldsEntry) bool {
	return e.Subresource == statusSubresource && IsOperator(e.Manager) && e.Operation == metav1.ManagedFieldsOperationApply
}

func decode(e metav1.ManagedFieldsEntry) (*fieldpath.Set, error) {
	s := fieldpath.NewSet()
	if e.FieldsV1 == nil {
		return s, nil
	}
	if err := s.FromJSON(bytes.NewReader(e.FieldsV1.GetRawBytes())); err != nil {
		return nil, fmt.Errorf("reading the fields of manager %q: %w", e.Manager, err)
	}
	return s, nil
}
