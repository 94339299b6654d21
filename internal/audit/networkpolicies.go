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

package audit

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/netpolicy"
	"podnetwork.io/operator/internal/text"
)

// IgnoreAnnotation, set to "true" on a NetworkPolicy, keeps the audit from
// checking it: a policy that means to allow only the ranges it lists.
const IgnoreAnnotation = netpolicy.IgnoreAnnotation

// NetworkPolicies checks the ipBlocks of policies, one page of a list.
//
// A policy written for the pod network as it was keeps allowing only the
// ranges it lists: pods on the nodes of a range added since are not
// allowed. The rule is netpolicy's (the one `kubectl podnetwork plan`
// applies to the ranges a change adds): the ranges the policy was written
// for are those in use when it was last written (Draining now, or Active
// since before that write, LastWritten), and a rule misses a range that
// became Active after that write and that its ipBlocks do not cover. A
// rule that allows only part of the ranges (one pool's) was not written
// for the whole pod network and is never reported, and neither is a
// policy annotated IgnoreAnnotation.
func (r *Run) NetworkPolicies(policies []networkingv1.NetworkPolicy) {
	for i := range policies {
		r.networkPolicy(&policies[i])
	}
}

// ruleMiss is a rule of a policy and the ranges it misses.
type ruleMiss struct {
	rule   string
	allows []netip.Prefix
	missed []inUseRange
}

func (r *Run) networkPolicy(np *networkingv1.NetworkPolicy) {
	if netpolicy.Ignored(np) {
		return
	}
	written := LastWritten(&np.ObjectMeta)
	if !r.activeAfter(written) {
		return // nothing new since the policy was written: the common case, and cheap
	}
	var known, newer []netpolicy.Range
	var newerRanges []inUseRange
	for i := range r.inUse {
		u := &r.inUse[i]
		if u.activeAfter(written) {
			newer = append(newer, netpolicy.Range{Name: u.name, Prefix: u.prefix})
			newerRanges = append(newerRanges, *u)
		} else {
			known = append(known, netpolicy.Range{Name: u.name, Prefix: u.prefix})
		}
	}
	var misses []ruleMiss
	for _, rule := range netpolicy.Rules(np) {
		m := ruleMiss{rule: rule.Name, allows: rule.Allows}
		for _, i := range rule.LeavesOut(known, newer) {
			m.missed = append(m.missed, newerRanges[i])
		}
		if len(m.missed) > 0 {
			misses = append(misses, m)
		}
	}
	if len(misses) == 0 {
		return
	}
	var missedNames []string
	parts := make([]string, len(misses))
	for i, m := range misses {
		missed := make([]string, len(m.missed))
		for j, u := range m.missed {
			missed[j] = fmt.Sprintf("%s (%s, Active since %s)", u.name, u.prefix, u.since.UTC().Format(time.RFC3339))
			missedNames = append(missedNames, u.name)
		}
		parts[i] = fmt.Sprintf("%s allows %s, which covers every range in use when the policy was last written but not %s", m.rule, text.List(m.allows), strings.Join(missed, ", "))
	}
	slices.Sort(missedNames)
	ref := corev1.ObjectReference{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy", Namespace: np.Namespace, Name: np.Name, UID: np.UID}
	r.add(Finding{Kind: NetworkPolicyMissingRange, Regarding: ref, Related: podNetworkRef(), Reason: NetworkPolicyMissingRangeReason,
		Message: strings.Join(parts, "; ") + ": pods on the nodes of the new range are not allowed; add its CIDR to the ipBlocks, or annotate the policy " +
			IgnoreAnnotation + `="true" if it means to allow only the ranges it lists`,
		key: findingKey(NetworkPolicyMissingRange, &ref, strings.Join(slices.Compact(missedNames), ","))})
}

// activeAfter reports whether a range became Active after t.
func (r *Run) activeAfter(t time.Time) bool {
	for i := range r.inUse {
		if r.inUse[i].activeAfter(t) {
			return true
		}
	}
	return false
}

// activeAfter reports whether u became Active after t: a range a policy
// written at t could not know.
func (u *inUseRange) activeAfter(t time.Time) bool {
	return u.phase == v1alpha1.RangePhaseActive && u.since.After(t)
}

// LastWritten is when an object was last written, as far as its metadata
// tells: the latest time of its managedFields entries, or its creation.
func LastWritten(m *metav1.ObjectMeta) time.Time {
	t := m.CreationTimestamp.Time
	for i := range m.ManagedFields {
		if mt := m.ManagedFields[i].Time; mt != nil && mt.After(t) {
			t = mt.Time
		}
	}
	return t
}
