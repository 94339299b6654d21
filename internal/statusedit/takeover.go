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
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// fieldsV1 is the only format managedFields use.
const fieldsV1 = "FieldsV1"

// Takeover returns entries with every status field of other field managers
// handed to the operator's, and those managers' status entries removed.
// Each field goes to the writer that owns it (v1alpha1.FieldOwner):
// NodeIPAM's, the autoscaler's and drain assist's fields to that writer's
// manager when it has an entry (it runs, so its next report overwrites
// them), every other to the lifecycle's, whose
// entry is created if needed. Every field of the range entries named in
// purged goes to the lifecycle, NodeIPAM's included, so that the
// lifecycle's next apply, which leaves those entries out, removes them
// whole. changed is false when nothing moved.
//
// The caller writes the result as the object's managedFields; the fields
// keep their values until the new owner applies.
func Takeover(entries []metav1.ManagedFieldsEntry, now metav1.Time, purged []string) (out []metav1.ManagedFieldsEntry, changed bool, err error) {
	// The apiserver keeps one entry per manager and operation; should there
	// be more (a client-written managedFields), their fields are united so
	// none loses its owner.
	lifecycle, nodeIPAM, autoscaler, drainAssist := -1, -1, -1, -1
	toLifecycle, toNodeIPAM, toAutoscaler, toDrainAssist := fieldpath.NewSet(), fieldpath.NewSet(), fieldpath.NewSet(), fieldpath.NewSet()
	for i, e := range entries {
		if !isOperatorEntry(e) {
			continue
		}
		var into **fieldpath.Set
		switch e.Manager {
		case LifecycleManager:
			lifecycle, into = i, &toLifecycle
		case NodeIPAMManager:
			nodeIPAM, into = i, &toNodeIPAM
		case AutoscalerManager:
			autoscaler, into = i, &toAutoscaler
		case DrainAssistManager:
			drainAssist, into = i, &toDrainAssist
		default:
			continue
		}
		s, err := decode(e)
		if err != nil {
			return nil, false, err
		}
		*into = (*into).Union(s)
	}
	if nodeIPAM >= 0 {
		moved := fieldpath.NewSet()
		toNodeIPAM.Iterate(func(p fieldpath.Path) {
			if f, ok := classify(p); ok && f.inRange && slices.Contains(purged, f.rangeName) {
				moved.Insert(p)
			}
		})
		if !moved.Empty() {
			toNodeIPAM = toNodeIPAM.Difference(moved)
			toLifecycle = toLifecycle.Union(moved)
			changed = true
		}
	}
	apiVersion := v1alpha1.GroupVersion.String()
	var kept []metav1.ManagedFieldsEntry
	for i, e := range entries {
		if e.Subresource != statusSubresource || isOperatorEntry(e) {
			kept = append(kept, entries[i])
			continue
		}
		s, err := decode(e)
		if err != nil {
			return nil, false, err
		}
		s.Iterate(func(p fieldpath.Path) {
			f, ok := classify(p)
			switch {
			case ok && nodeIPAM >= 0 && v1alpha1.FieldOwner(f.field, f.inRange) == v1alpha1.StatusOwnerNodeIPAM &&
				!(f.inRange && slices.Contains(purged, f.rangeName)):
				toNodeIPAM.Insert(p)
			case ok && autoscaler >= 0 && !f.inRange && v1alpha1.FieldOwner(f.field, f.inRange) == v1alpha1.StatusOwnerAutoscaler:
				toAutoscaler.Insert(p)
			case ok && drainAssist >= 0 && !f.inRange && v1alpha1.FieldOwner(f.field, f.inRange) == v1alpha1.StatusOwnerDrainAssist:
				toDrainAssist.Insert(p)
			default:
				toLifecycle.Insert(p)
			}
		})
		apiVersion = e.APIVersion
		changed = true
	}
	if !changed {
		return entries, false, nil
	}
	out = kept[:0:0]
	for _, e := range kept {
		switch {
		case isOperatorEntry(e) && e.Manager == LifecycleManager:
			continue // written below
		case isOperatorEntry(e) && e.Manager == NodeIPAMManager:
			if toNodeIPAM.Empty() {
				continue
			}
			if err := setFields(&e, toNodeIPAM, now); err != nil {
				return nil, false, err
			}
		case isOperatorEntry(e) && e.Manager == AutoscalerManager:
			if err := setFields(&e, toAutoscaler, now); err != nil {
				return nil, false, err
			}
		case isOperatorEntry(e) && e.Manager == DrainAssistManager:
			if err := setFields(&e, toDrainAssist, now); err != nil {
				return nil, false, err
			}
		}
		out = append(out, e)
	}
	owner := metav1.ManagedFieldsEntry{Manager: LifecycleManager, Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: apiVersion, Subresource: statusSubresource}
	if lifecycle >= 0 {
		owner = *entries[lifecycle].DeepCopy()
	}
	if err := setFields(&owner, toLifecycle, now); err != nil {
		return nil, false, err
	}
	return append(out, owner), true, nil
}

// setFields makes s the fields of e, set now.
func setFields(e *metav1.ManagedFieldsEntry, s *fieldpath.Set, now metav1.Time) error {
	raw, err := s.ToJSON()
	if err != nil {
		return fmt.Errorf("encoding the fields of manager %q: %w", e.Manager, err)
	}
	e.FieldsType = fieldsV1
	e.FieldsV1 = &metav1.FieldsV1{Raw: raw}
	e.Time = &now
	return nil
}
