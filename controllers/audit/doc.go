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

// Package audit is the operator's continuous audit, opt-in
// (--enable-audit): a leader-only runnable that, every --audit-interval,
// lists pods and NetworkPolicies page by page and reads the adapters'
// ConfigMaps, hands them to internal/audit, which decides what disagrees
// with the pod network, and reports what it found as
// podnetwork_audit_findings and as Warning events on the objects, each
// once until it clears.
//
// It needs to list every pod and NetworkPolicy of the cluster, which the
// operator's always-on ClusterRole does not grant: its markers below go
// into a ClusterRole of their own (config/rbac/audit), which the chart
// renders and binds only with audit.enabled, beside a ClusterRole that
// lets it get the adapters' ConfigMaps by name (their names are values).
package audit

// +kubebuilder:rbac:groups="",resources=pods,verbs=list
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=list
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
