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

// Package statusedit finds the changes other clients made to the
// PodNetwork status, which only the operator may write, and hands the
// fields they wrote back to the operator.
//
// The apiserver records in an object's managedFields which field manager
// set each field. The operator writes the PodNetwork status only by
// server-side apply, under the field managers of this package, and an
// update by any other client takes over the fields it changed. So a status
// field that another manager owns, and none of the operator's, was set
// by someone else (kubectl edit --subresource=status, a script, a GitOps
// tool) and not overwritten since: Find reports it, the lifecycle decides
// what to do about it, and Takeover moves the field back to the operator's
// managers, so that their next apply sets or drops it like any of their
// own. The record survives restarts because it is in the object.
//
// Two things leave no trace: removing a field or a list entry (nobody
// owns what is gone), and writing under one of the operator's own field
// manager names.
package statusedit

// The field managers the operator writes the PodNetwork status with.
const (
	// LifecycleManager is the lifecycle controller's: it owns the range
	// entries and every status field but NodeIPAM's.
	LifecycleManager = "podnetwork-operator/lifecycle"
	// NodeIPAMManager is NodeIPAM's: ranges[].usage, quarantine and
	// allocationConflicts (v1alpha1.FieldOwner).
	NodeIPAMManager = "podnetwork-operator/node-ipam"
	// AutoscalerManager is the autoscaler's: autoscaling.
	AutoscalerManager = "podnetwork-operator/autoscaler"
	// DrainAssistManager is drain assist's: drainAssist.
	DrainAssistManager = "podnetwork-operator/drain-assist"
)

// IsOperator reports whether manager is one of the operator's status field
// managers.
func IsOperator(manager string) bool {
	return manager == LifecycleManager || manager == NodeIPAMManager || manager == AutoscalerManager || manager == DrainAssistManager
}
