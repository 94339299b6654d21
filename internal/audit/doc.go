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

// Package audit decides what in the cluster disagrees with the pod network.
//
// Two callers use it. The metrics collector counts, at every scrape, the
// node podCIDRs outside every tracked range and the nodes whose podCIDRs
// cannot be read (CountNodePodCIDRs), from the nodes the cache holds, so
// every replica reports the same numbers and nothing is kept in memory.
// The continuous audit (controllers/audit, opt-in) feeds a Run the pods,
// NetworkPolicies and adapter ConfigMaps it lists, page by page, and gets
// back the number of findings of every Kind and the findings to announce
// with an event: each one once, until it clears.
//
// Nothing here talks to the API server or logs; a Run holds only what one
// audit has seen, and what earlier audits announced comes in as Input.
package audit

// Kind is what a finding is about; its value is the kind label of
// podnetwork_audit_findings.
type Kind string

// The kinds of finding.
const (
	// PodIPOutsideNodePodCIDRs is a pod whose IP lies outside the podCIDRs
	// of its node (of that IP family).
	PodIPOutsideNodePodCIDRs Kind = "pod-ip-outside-node-podcidrs"
	// PodIPOutsideRanges is a pod whose IP lies outside every Active and
	// Draining range (of that IP family).
	PodIPOutsideRanges Kind = "pod-ip-outside-ranges"
	// NetworkPolicyMissingRange is a NetworkPolicy with a rule whose
	// ipBlocks cover every range that was in use when the policy was last
	// written, but not a range that became Active since.
	NetworkPolicyMissingRange Kind = "networkpolicy-missing-range"
	// AdapterConfigDrift is an adapter's ConfigMap that drifted from the
	// ranges (adapters.Config.Drift), whether the adapter runs or not.
	AdapterConfigDrift Kind = "adapter-config-drift"
)

// Kinds returns every kind, in the order the documentation lists them.
func Kinds() []Kind {
	return []Kind{PodIPOutsideNodePodCIDRs, PodIPOutsideRanges, NetworkPolicyMissingRange, AdapterConfigDrift}
}

// The reasons of the audit's Warning events, one per kind, and their
// action.
const (
	PodIPOutsideNodePodCIDRsReason  = "PodIPOutsideNodePodCIDRs"
	PodIPOutsideRangesReason        = "PodIPOutsideRanges"
	NetworkPolicyMissingRangeReason = "NetworkPolicyMissingRange"
	AdapterConfigDriftReason        = "AdapterConfigDrift"
	EventAction                     = "Audit"
)
