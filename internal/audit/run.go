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
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/slimnode"
)

// Input is what one audit checks the cluster's objects against.
type Input struct {
	// PodNetwork is PodNetwork "default"; nil when there is none: then no
	// range is in use, and only pod IPs against their node's podCIDRs and
	// missing adapter ConfigMaps can be findings.
	PodNetwork *v1alpha1.PodNetwork
	// Nodes are the nodes, for their podCIDRs (the cache's: read, never
	// changed).
	Nodes []*slimnode.Node
	// PodIPs checks the pods' IPs against their node's podCIDRs and the
	// ranges in use; off where the CNI does not allocate pod IPs from node
	// podCIDRs.
	PodIPs bool
	// Announced are the findings earlier audits announced that had not
	// cleared: the previous Result.Announced, nil at the first audit.
	Announced Announced
	// MaxAnnounce bounds the new findings one audit announces; the others
	// wait for the next audits.
	MaxAnnounce int
}

// Announced is a set of findings that were announced, each until it
// clears. The zero value is empty.
type Announced map[string]struct{}

// Finding is one object that disagrees with the pod network, as its event
// says it.
type Finding struct {
	Kind Kind
	// Regarding is the object the finding is about; Related is another
	// object it involves (a pod's node, the PodNetwork), or nil.
	Regarding corev1.ObjectReference
	Related   *corev1.ObjectReference
	// Reason and Message are the event's (Message unbounded: the caller
	// bounds it to the API's limit).
	Reason  string
	Message string
	// key names the finding in Announced: its kind, its object and what
	// exactly is wrong, so a new problem of an object announced before is
	// announced again.
	key string
}

// Result is what one audit found.
type Result struct {
	// Findings counts, for every kind the audit checked (zero included),
	// the objects of that kind of finding.
	Findings map[Kind]int
	// Announce are the findings to announce now, at most
	// Input.MaxAnnounce, in the order they were found: none that an
	// earlier audit announced.
	Announce []Finding
	// Announced is the next audit's Input.Announced: the findings
	// announced before that are still found, and Announce.
	Announced Announced
}

// Run is one audit: give it every object, in pages, then read its Result.
// Besides the nodes' podCIDRs it keeps the counts, the new findings to
// announce (at most MaxAnnounce) and which announced ones are still found,
// nothing else, so its memory does not grow with the pods and policies it
// is given.
type Run struct {
	in       Input
	inUse    []inUseRange
	nodes    map[string][]netip.Prefix
	counts   map[Kind]int
	announce []Finding
	next     Announced
}

// NewRun starts an audit.
func NewRun(in Input) *Run {
	r := &Run{in: in, inUse: inUseRanges(in.PodNetwork), counts: map[Kind]int{}, next: Announced{}}
	kinds := []Kind{NetworkPolicyMissingRange, AdapterConfigDrift}
	if in.PodIPs {
		kinds = append(kinds, PodIPOutsideNodePodCIDRs, PodIPOutsideRanges)
		r.nodes = nodePodCIDRs(in.Nodes)
	}
	for _, k := range kinds {
		r.counts[k] = 0
	}
	return r
}

// add counts f and announces it unless an earlier audit did.
func (r *Run) add(f Finding) {
	r.counts[f.Kind]++
	if _, ok := r.in.Announced[f.key]; ok {
		r.next[f.key] = struct{}{}
		return
	}
	if len(r.announce) < r.in.MaxAnnounce {
		r.announce = append(r.announce, f)
		r.next[f.key] = struct{}{}
	}
}

// Result returns what the audit found.
func (r *Run) Result() Result {
	return Result{Findings: r.counts, Announce: r.announce, Announced: r.next}
}

// findingKey is the key of a finding of kind on the object ref, detail
// saying what exactly is wrong.
func findingKey(kind Kind, ref *corev1.ObjectReference, detail string) string {
	return string(kind) + "\x00" + ref.Namespace + "/" + ref.Name + "\x00" + string(ref.UID) + "\x00" + detail
}
