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

	"go4.org/netipx"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// IgnoreAnnotation, set to "true" on a NetworkPolicy, keeps the audit from
// checking it: a policy that means to allow only the ranges it lists.
const IgnoreAnnotation = "podnetwork.io/audit-ignore"

// NetworkPolicies checks the ipBlocks of policies, one page of a list.
//
// A policy written for the pod network as it was keeps allowing only the
// ranges it lists: pods on the nodes of a range added since are not
// allowed. Nothing in a policy says it is meant for the pod network, so a
// rule counts as written for it when, per IP family, its ipBlocks cover
// every range that was in use when the policy was last written (Draining
// now, or Active since before that write, LastWritten) and at least one
// there is; it misses a range that became Active after that write and
// that its ipBlocks do not cover. A rule that allows only part of the
// ranges (one pool's) was not written for the whole pod network and is
// never reported, and neither is a policy annotated IgnoreAnnotation.
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
	if np.Annotations[IgnoreAnnotation] == "true" {
		return
	}
	written := LastWritten(&np.ObjectMeta)
	if !r.activeAfter(written) {
		return // nothing new since the policy was written: the common case, and cheap
	}
	var misses []ruleMiss
	for i := range np.Spec.Ingress {
		if m, ok := r.ruleMisses(np.Spec.Ingress[i].From, written); ok {
			m.rule = fmt.Sprintf("ingress rule %d", i+1)
			misses = append(misses, m)
		}
	}
	for i := range np.Spec.Egress {
		if m, ok := r.ruleMisses(np.Spec.Egress[i].To, written); ok {
			m.rule = fmt.Sprintf("egress rule %d", i+1)
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
		parts[i] = fmt.Sprintf("%s allows %s, which covers every range in use when the policy was last written but not %s", m.rule, joinPrefixes(m.allows), strings.Join(missed, ", "))
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

// ruleMisses returns the ranges that became Active after written and that
// the ipBlocks of peers do not cover, in a family whose older ranges they
// all cover; ok is false when there are none.
func (r *Run) ruleMisses(peers []networkingv1.NetworkPolicyPeer, written time.Time) (ruleMiss, bool) {
	set, allows := ipBlocks(peers)
	if set == nil {
		return ruleMiss{}, false
	}
	var m ruleMiss
	for _, v4 := range []bool{true, false} {
		older, covered := 0, true
		var missed []inUseRange
		for i := range r.inUse {
			u := &r.inUse[i]
			if u.prefix.Addr().Is4() != v4 {
				continue
			}
			switch {
			case u.activeAfter(written):
				if !set.ContainsPrefix(u.prefix) {
					missed = append(missed, *u)
				}
			default:
				older++
				covered = covered && set.ContainsPrefix(u.prefix)
			}
		}
		if older > 0 && covered {
			m.missed = append(m.missed, missed...)
		}
	}
	m.allows = allows
	return m, len(m.missed) > 0
}

// ipBlocks returns the addresses the ipBlocks of peers allow (their CIDRs
// without their excepts) and the CIDRs; nil when no peer is an ipBlock.
// A CIDR that does not parse is left out (the API server validates them).
func ipBlocks(peers []networkingv1.NetworkPolicyPeer) (*netipx.IPSet, []netip.Prefix) {
	var b netipx.IPSetBuilder
	var allows []netip.Prefix
	for i := range peers {
		blk := peers[i].IPBlock
		if blk == nil {
			continue
		}
		p, err := netip.ParsePrefix(blk.CIDR)
		if err != nil {
			continue
		}
		allows = append(allows, p.Masked())
		var one netipx.IPSetBuilder
		one.AddPrefix(p.Masked())
		for _, e := range blk.Except {
			if q, err := netip.ParsePrefix(e); err == nil {
				one.RemovePrefix(q.Masked())
			}
		}
		if s, err := one.IPSet(); err == nil {
			b.AddSet(s)
		}
	}
	if len(allows) == 0 {
		return nil, nil
	}
	set, err := b.IPSet()
	if err != nil {
		return nil, nil
	}
	return set, allows
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
