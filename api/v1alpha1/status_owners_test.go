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

package v1alpha1

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEveryStatusFieldHasOneOwner fails when a field of PodNetworkStatus or
// RangeStatus is added without declaring which writer owns it.
func TestEveryStatusFieldHasOneOwner(t *testing.T) {
	check := func(typ reflect.Type, owners map[string]StatusOwner, shared string) {
		seen := map[string]bool{}
		for i := range typ.NumField() {
			name := jsonName(typ.Field(i))
			seen[name] = true
			if name == shared {
				continue
			}
			if o := owners[name]; o != StatusOwnerLifecycle && o != StatusOwnerNodeIPAM && o != StatusOwnerAutoscaler && o != StatusOwnerDrainAssist {
				t.Errorf("%s.%s has no owner: declare it in status_owners.go", typ.Name(), name)
			}
		}
		for name := range owners {
			if !seen[name] {
				t.Errorf("status_owners.go declares %s.%s, which does not exist", typ.Name(), name)
			}
		}
	}
	check(reflect.TypeFor[PodNetworkStatus](), statusFieldOwners, sharedStatusField)
	check(reflect.TypeFor[RangeStatus](), rangeFieldOwners, rangeKeyField)
}

// TestOwnedStatusSplitsEveryField fills every field and checks that each
// is in exactly one writer's part (the key of a range entry in both), and
// that the parts together are the whole status.
func TestOwnedStatusSplitsEveryField(t *testing.T) {
	var s PodNetworkStatus
	fill(reflect.ValueOf(&s).Elem())
	parts := map[StatusOwner]PodNetworkStatus{
		StatusOwnerLifecycle:   OwnedStatus(StatusOwnerLifecycle, &s),
		StatusOwnerNodeIPAM:    OwnedStatus(StatusOwnerNodeIPAM, &s),
		StatusOwnerAutoscaler:  OwnedStatus(StatusOwnerAutoscaler, &s),
		StatusOwnerDrainAssist: OwnedStatus(StatusOwnerDrainAssist, &s),
	}
	exactlyOne := func(what string, field func(PodNetworkStatus) reflect.Value) {
		n := 0
		for _, p := range parts {
			if !field(p).IsZero() {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is in %d writers' parts, want 1", what, n)
		}
	}
	typ := reflect.TypeFor[PodNetworkStatus]()
	for i := range typ.NumField() {
		if jsonName(typ.Field(i)) == sharedStatusField {
			continue
		}
		exactlyOne("status."+jsonName(typ.Field(i)), func(p PodNetworkStatus) reflect.Value { return reflect.ValueOf(p).Field(i) })
	}
	rtyp := reflect.TypeFor[RangeStatus]()
	for i := range rtyp.NumField() {
		name := jsonName(rtyp.Field(i))
		if name == rangeKeyField {
			continue
		}
		exactlyOne("status.ranges[]."+name, func(p PodNetworkStatus) reflect.Value {
			switch len(p.Ranges) {
			case 0: // the autoscaler's and drain assist's parts
				return reflect.ValueOf(RangeStatus{}).Field(i)
			case 1:
				return reflect.ValueOf(p.Ranges[0]).Field(i)
			}
			t.Fatalf("part has %d range entries, want 1", len(p.Ranges))
			return reflect.Value{}
		})
	}
	for o, p := range parts {
		if o == StatusOwnerAutoscaler || o == StatusOwnerDrainAssist {
			// The autoscaler and drain assist write into no range entry.
			if len(p.Ranges) != 0 {
				t.Errorf("%s's part has range entries: %+v", o, p.Ranges)
			}
			continue
		}
		if len(p.Ranges) != 1 || p.Ranges[0].Name != s.Ranges[0].Name {
			t.Errorf("%s's part lacks the key of the range entry: %+v", o, p.Ranges)
		}
	}

	lifecycle := parts[StatusOwnerLifecycle]
	merged := lifecycle.DeepCopy()
	nodeIPAM := parts[StatusOwnerNodeIPAM]
	merged.Quarantine, merged.AllocationConflicts = nodeIPAM.Quarantine, nodeIPAM.AllocationConflicts
	merged.Ranges[0].Usage = nodeIPAM.Ranges[0].Usage
	merged.Autoscaling = parts[StatusOwnerAutoscaler].Autoscaling
	merged.DrainAssist = parts[StatusOwnerDrainAssist].DrainAssist
	if !equality.Semantic.DeepEqual(*merged, s) {
		t.Errorf("the parts together differ from the status:\n%+v\nwant\n%+v", *merged, s)
	}
}

func TestOwnedStatusRangeEntries(t *testing.T) {
	s := PodNetworkStatus{Ranges: []RangeStatus{
		{Name: "a", CIDR: "10.1.0.0/16", Phase: RangePhaseActive, Usage: NewRangeUsage(256, 0, 256, 0)},
		{Name: "b", CIDR: "10.2.0.0/16", Phase: RangePhaseReleased},
		{Name: "purged", Usage: NewRangeUsage(1, 0, 1, 0)}, // NodeIPAM's fields outlived the lifecycle's
	}}
	names := func(p PodNetworkStatus) (out []string) {
		for _, rs := range p.Ranges {
			out = append(out, rs.Name)
		}
		return out
	}
	// The lifecycle owns the entries: it sees the one it purged, to drop it.
	if got := names(OwnedStatus(StatusOwnerLifecycle, &s)); !reflect.DeepEqual(got, []string{"a", "b", "purged"}) {
		t.Errorf("lifecycle's entries %v", got)
	}
	if got := names(OwnedStatus(StatusOwnerNodeIPAM, &s)); !reflect.DeepEqual(got, []string{"a", "purged"}) {
		t.Errorf("NodeIPAM's entries %v, want only those with usage", got)
	}
}

func TestFieldOwner(t *testing.T) {
	tests := []struct {
		field   string
		inRange bool
		want    StatusOwner
	}{
		{"conditions", false, StatusOwnerLifecycle},
		{"quarantine", false, StatusOwnerNodeIPAM},
		{"allocationConflicts", false, StatusOwnerNodeIPAM},
		{"autoscaling", false, StatusOwnerAutoscaler},
		{"drainAssist", false, StatusOwnerDrainAssist},
		{"ranges", false, StatusOwnerLifecycle},
		{"name", true, StatusOwnerLifecycle},
		{"phase", true, StatusOwnerLifecycle},
		{"usage", true, StatusOwnerNodeIPAM},
		{"bogus", false, ""},
		{"bogus", true, ""},
	}
	for _, tt := range tests {
		if got := FieldOwner(tt.field, tt.inRange); got != tt.want {
			t.Errorf("FieldOwner(%q, %v) = %q, want %q", tt.field, tt.inRange, got, tt.want)
		}
	}
}

// fill sets every field reachable from v to a non-zero value.
func fill(v reflect.Value) {
	if v.Type() == reflect.TypeFor[metav1.Time]() {
		v.Set(reflect.ValueOf(metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}
