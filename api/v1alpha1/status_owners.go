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
	"strings"
)

// The PodNetwork status has four writers, each applying only its own fields
// by server-side apply under its own field manager, so none overwrites
// another: the lifecycle controller, the built-in NodeIPAM, the autoscaler
// and drain assist. Which writer owns which field is declared here, once, by JSON
// name; every writer projects what it compares and applies with
// OwnedStatus. A field
// added to PodNetworkStatus or RangeStatus must be added to these tables
// (a unit test fails until it is), so it never silently becomes one
// writer's.

// StatusOwner is one of the writers of the PodNetwork status.
//
// +kubebuilder:object:generate=false
type StatusOwner string

const (
	// StatusOwnerLifecycle is the lifecycle controller: phases, conditions,
	// consumers, summary, foreign nodes.
	StatusOwnerLifecycle StatusOwner = "lifecycle"
	// StatusOwnerNodeIPAM is the built-in NodeIPAM: block usage, the
	// quarantine and allocation conflicts.
	StatusOwnerNodeIPAM StatusOwner = "node-ipam"
	// StatusOwnerAutoscaler is the autoscaler: its report on the pools.
	StatusOwnerAutoscaler StatusOwner = "autoscaler"
	// StatusOwnerDrainAssist is drain assist: its report on the nodes that
	// hold blocks in Draining ranges.
	StatusOwnerDrainAssist StatusOwner = "drain-assist"
)

// statusFieldOwners owns every field of PodNetworkStatus but ranges, whose
// entries both writers write into (rangeFieldOwners).
var statusFieldOwners = map[string]StatusOwner{
	"conditions":          StatusOwnerLifecycle,
	"observedGeneration":  StatusOwnerLifecycle,
	"summary":             StatusOwnerLifecycle,
	"consumers":           StatusOwnerLifecycle,
	"foreignNodeCount":    StatusOwnerLifecycle,
	"foreignNodes":        StatusOwnerLifecycle,
	"quarantine":          StatusOwnerNodeIPAM,
	"allocationConflicts": StatusOwnerNodeIPAM,
	"autoscaling":         StatusOwnerAutoscaler,
	"drainAssist":         StatusOwnerDrainAssist,
}

// sharedStatusField is the list both writers write entries of.
const sharedStatusField = "ranges"

// rangeEntryOwner owns the entries of status.ranges themselves: it adds and
// purges them. The other writer writes into an entry only the fields it
// owns, next to the key, name, and only where it has something to report.
const rangeEntryOwner = StatusOwnerLifecycle

// rangeKeyField is the key of status.ranges, which both writers send.
const rangeKeyField = "name"

// rangeFieldOwners owns every field of RangeStatus but the key.
var rangeFieldOwners = map[string]StatusOwner{
	"cidr":           StatusOwnerLifecycle,
	"ipFamily":       StatusOwnerLifecycle,
	"nodeMaskSize":   StatusOwnerLifecycle,
	"phase":          StatusOwnerLifecycle,
	"phaseSince":     StatusOwnerLifecycle,
	"awaiting":       StatusOwnerLifecycle,
	"rejections":     StatusOwnerLifecycle,
	"invalidReason":  StatusOwnerLifecycle,
	"invalidMessage": StatusOwnerLifecycle,
	"message":        StatusOwnerLifecycle,
	"coveredBy":      StatusOwnerLifecycle,
	"holders":        StatusOwnerLifecycle,
	"holderCount":    StatusOwnerLifecycle,
	"pool":           StatusOwnerLifecycle,
	"usage":          StatusOwnerNodeIPAM,
}

// FieldOwner returns the writer that owns a field of the status, by JSON
// name: status.<field> when inRange is false, status.ranges[].<field> when
// it is true. The entries of status.ranges and their key belong to the
// writer that adds and purges them (the lifecycle); a field the types do not
// have belongs to nobody (""). The operator uses it to hand fields another
// client wrote back to the writer that owns them.
func FieldOwner(field string, inRange bool) StatusOwner {
	switch {
	case !inRange && field == sharedStatusField, inRange && field == rangeKeyField:
		return rangeEntryOwner
	case inRange:
		return rangeFieldOwners[field]
	default:
		return statusFieldOwners[field]
	}
}

// OwnedStatus returns the part of s that owner writes: its fields, and the
// entries of status.ranges with their key and owner's fields (NodeIPAM's
// only where it has a field set). It is what owner applies, and what it
// compares with what it would apply to skip a write that changes nothing.
func OwnedStatus(owner StatusOwner, s *PodNetworkStatus) PodNetworkStatus {
	var out PodNetworkStatus
	copyOwned(reflect.ValueOf(&out).Elem(), reflect.ValueOf(s.DeepCopy()).Elem(), statusFieldOwners, owner)
	for i := range s.Ranges {
		var entry RangeStatus
		some := copyOwned(reflect.ValueOf(&entry).Elem(), reflect.ValueOf(s.Ranges[i].DeepCopy()).Elem(), rangeFieldOwners, owner)
		if some || owner == rangeEntryOwner {
			entry.Name = s.Ranges[i].Name
			out.Ranges = append(out.Ranges, entry)
		}
	}
	return out
}

// copyOwned copies owner's fields of src, a struct, into dst, by the JSON
// names in owners, and reports whether any of them is set.
func copyOwned(dst, src reflect.Value, owners map[string]StatusOwner, owner StatusOwner) bool {
	some := false
	for i := range src.NumField() {
		if owners[jsonName(src.Type().Field(i))] != owner {
			continue
		}
		if f := src.Field(i); !f.IsZero() {
			dst.Field(i).Set(f)
			some = true
		}
	}
	return some
}

// jsonName is the JSON name of a struct field.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}
