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

package karpenter_test

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/invariants/history"
)

// The checks replay the recorded history in resourceVersion order (etcd's
// one revision counter orders the changes of every kind) and join it with
// the audit log by object name: the workload's pods have generated names,
// never reused.

// evictionsWithoutBudget returns a message for every accepted eviction
// granted while the pod's PodDisruptionBudget allowed no disruption.
//
// The apiserver grants an eviction of a healthy pod by writing the budget
// first: the pod enters status.disruptedPods and disruptionsAllowed drops,
// in one update conditional on the budget it judged. So the budget as
// recorded just before the first observation that lists the pod in
// disruptedPods is exactly what the eviction was judged on, and must have
// allowed one. An eviction that leaves no trace in the budget is legal
// only for a pod the budget does not protect (Pending, finished, already
// terminating, or not Ready): its last observation before it started
// terminating must say so.
func evictionsWithoutBudget(events []framework.Event, granted []eviction) []string {
	var out []string
	for _, e := range granted {
		before, found := budgetBeforeEviction(events, e.Namespace, e.Pod)
		switch {
		case found && before == nil:
			out = append(out, fmt.Sprintf("%s: no observation of its PodDisruptionBudget before the eviction's write", e))
		case found && before.Status.DisruptionsAllowed < 1:
			out = append(out, fmt.Sprintf("%s: granted while PodDisruptionBudget %s/%s allowed %d disruptions (resourceVersion %s)",
				e, before.Namespace, before.Name, before.Status.DisruptionsAllowed, before.ResourceVersion))
		case !found:
			if p := podBeforeTermination(events, e.Namespace, e.Pod); p != nil && podReady(p) {
				out = append(out, fmt.Sprintf("%s: a Ready pod evicted without its PodDisruptionBudget counting the disruption", e))
			}
		}
	}
	return out
}

// budgetBeforeEviction finds the first observation of a budget in ns that
// lists pod in status.disruptedPods (found), and returns the observation
// of the same budget just before it (nil if none was recorded).
func budgetBeforeEviction(events []framework.Event, ns, pod string) (before *policyv1.PodDisruptionBudget, found bool) {
	last := map[string]*policyv1.PodDisruptionBudget{}
	for _, ev := range events {
		pdb, ok := ev.Object.(*policyv1.PodDisruptionBudget)
		if !ok || pdb.Namespace != ns {
			continue
		}
		if _, listed := pdb.Status.DisruptedPods[pod]; listed && !ev.Deleted {
			return last[pdb.Name], true
		}
		last[pdb.Name] = pdb
	}
	return nil, false
}

// podBeforeTermination returns the pod's last observation before the
// first one that shows it terminating or deleted.
func podBeforeTermination(events []framework.Event, ns, name string) *corev1.Pod {
	var last *corev1.Pod
	for _, ev := range events {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok || p.Namespace != ns || p.Name != name {
			continue
		}
		if ev.Deleted || !p.DeletionTimestamp.IsZero() {
			return last
		}
		last = p
	}
	return last
}

// evictionsOutside returns a message for every eviction (granted or
// refused) of a pod whose node held no podCIDR inside draining: drain
// assist drains only the holders of Draining ranges.
func evictionsOutside(events []framework.Event, evictions []eviction, draining string) []string {
	var out []string
	for _, e := range evictions {
		node := nodeOfPod(events, e.Namespace, e.Pod)
		cidrs := podCIDRsOfNode(events, node)
		if node == "" || !slices.ContainsFunc(cidrs, func(c string) bool { return within(c, draining) }) {
			out = append(out, fmt.Sprintf("%s: the pod ran on node %q with podCIDRs %v, none in the Draining range %s", e, node, cidrs, draining))
		}
	}
	return out
}

// nodeOfPod is the node the pod was bound to, "" if never.
func nodeOfPod(events []framework.Event, ns, name string) string {
	for _, ev := range events {
		if p, ok := ev.Object.(*corev1.Pod); ok && p.Namespace == ns && p.Name == name && p.Spec.NodeName != "" {
			return p.Spec.NodeName
		}
	}
	return ""
}

// podCIDRsOfNode is the first non-empty podCIDRs the node was observed
// with: they never change once set.
func podCIDRsOfNode(events []framework.Event, name string) []string {
	for _, ev := range events {
		if n, ok := ev.Object.(*corev1.Node); ok && n.Name == name && len(n.Spec.PodCIDRs) > 0 {
			return n.Spec.PodCIDRs
		}
	}
	return nil
}

// karpenterTermination is the finalizer Karpenter puts on the Nodes of its
// NodeClaims: it terminates the instance before it lets the Node go.
const karpenterTermination = "karpenter.sh/termination"

// terminatedByKarpenter reports whether the node was seen being deleted
// while it still carried Karpenter's termination finalizer, and then gone:
// Karpenter, not the operator, ended it.
func terminatedByKarpenter(events []framework.Event, name string) bool {
	finalizing, gone := false, false
	for _, ev := range events {
		n, ok := ev.Object.(*corev1.Node)
		if !ok || n.Name != name {
			continue
		}
		if !n.DeletionTimestamp.IsZero() && slices.Contains(n.Finalizers, karpenterTermination) {
			finalizing = true
		}
		gone = gone || ev.Deleted
	}
	return finalizing && gone
}

// observations converts the recording for history.Check, which judges the
// nodes' podCIDRs and the ranges (no overlap at any moment, no block
// reused within recycleDelaySeconds, none outside an Active range,
// releases without holders) and ignores the other kinds.
func observations(events []framework.Event) []history.Observation {
	out := make([]history.Observation, 0, len(events))
	for _, ev := range events {
		out = append(out, history.Observation{RV: ev.RV, Time: ev.Time, Object: ev.Object, Deleted: ev.Deleted})
	}
	return out
}

// evictionsBy returns the evictions user asked for.
func evictionsBy(evictions []eviction, user string) []eviction {
	var out []eviction
	for _, e := range evictions {
		if e.User == user {
			out = append(out, e)
		}
	}
	return out
}

// accepted returns the evictions the apiserver granted.
func accepted(evictions []eviction) []eviction {
	var out []eviction
	for _, e := range evictions {
		if e.Accepted() {
			out = append(out, e)
		}
	}
	return out
}

// within reports whether prefix lies inside cidr.
func within(prefix, cidr string) bool {
	p, err1 := netip.ParsePrefix(prefix)
	c, err2 := netip.ParsePrefix(cidr)
	return err1 == nil && err2 == nil && c.Bits() <= p.Bits() && c.Contains(p.Addr())
}
