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

package drain

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers/watches"
	"podnetwork.io/operator/internal/declared"
	draincore "podnetwork.io/operator/internal/drain"
)

// podNodeNameField is the field selector that lists the pods of one node.
const podNodeNameField = "spec.nodeName"

// snapshot is what was read whole from the API server: the nodes (the
// writes are conditional on their UID and resourceVersion) and their pods
// (evictions name their UID), by name and by "namespace/name".
type snapshot struct {
	nodes map[string]*corev1.Node
	pods  map[string]*corev1.Pod
	// index is where each node is in Input.Nodes.
	index map[string]int
}

// read builds the Input of drain assist: every node from the cache, the
// marked ones from the API server, whole and with their pods, and then,
// whole too, the candidates internal/drain names.
func (r *Reconciler) read(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork) (draincore.Input, *snapshot, error) {
	cached, err := watches.CachedNodes(ctx, r.Cache)
	if err != nil {
		return draincore.Input{}, nil, err
	}
	r.nodeEvents.Read(len(cached))
	in := draincore.Input{
		Now:        r.clock().Now(),
		Generation: pn.Generation,
		Spec:       pn.Spec.DrainAssist,
		Deleting:   !pn.DeletionTimestamp.IsZero(),
		Ranges:     pn.Status.Ranges,
		Previous:   pn.Status.DrainAssist,
		Poll:       r.PollInterval,
		Nodes:      make([]draincore.Node, 0, len(cached)),
	}
	// Which nodes each Active range selects matters under AllOrWait only:
	// the autoscaler's ranges are read then.
	in.FamilyPolicy = pn.Spec.Allocation.EffectiveFamilyPolicy()
	if in.FamilyPolicy == podnetworkv1alpha1.FamilyPolicyAllOrWait {
		set, err := watches.AutoscaledRangeSet(ctx, r.Cache)
		if err != nil {
			return draincore.Input{}, nil, err
		}
		in.Declared = declared.View(pn, set).Spec.Ranges
	}
	if r.written != nil && r.writtenUID == pn.UID {
		in.Previous = r.written
	}
	snap := &snapshot{nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{}, index: make(map[string]int, len(cached))}
	for _, n := range cached {
		node := draincore.NodeFrom(n)
		// Whether a node is marked is read from the API server below.
		node.Marked = false
		snap.index[node.Name] = len(in.Nodes)
		in.Nodes = append(in.Nodes, node)
	}
	var marked corev1.NodeList
	if err := r.APIReader.List(ctx, &marked, client.HasLabels{podnetworkv1alpha1.DrainAssistNodeLabel}); err != nil {
		return draincore.Input{}, nil, fmt.Errorf("listing the nodes drain assist started: %w", err)
	}
	for i := range marked.Items {
		if err := r.readWhole(ctx, &in, &marked.Items[i], snap); err != nil {
			return draincore.Input{}, nil, err
		}
	}
	for _, name := range draincore.Candidates(in) {
		node := &corev1.Node{}
		if err := r.APIReader.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
			if apierrors.IsNotFound(err) {
				continue // gone since the cache saw it
			}
			return draincore.Input{}, nil, fmt.Errorf("reading node %s: %w", name, err)
		}
		if err := r.readWhole(ctx, &in, node, snap); err != nil {
			return draincore.Input{}, nil, err
		}
	}
	// Sorted last: the index holds until here.
	slices.SortFunc(in.Nodes, func(a, b draincore.Node) int { return strings.Compare(a.Name, b.Name) })
	return in, snap, nil
}

// readWhole lists the pods of node and puts the node, whole, into in (in
// place of its cached copy) and snap.
func (r *Reconciler) readWhole(ctx context.Context, in *draincore.Input, node *corev1.Node, snap *snapshot) error {
	var pods corev1.PodList
	if err := r.APIReader.List(ctx, &pods, client.MatchingFields{podNodeNameField: node.Name}); err != nil {
		return fmt.Errorf("listing the pods of node %s: %w", node.Name, err)
	}
	snap.nodes[node.Name] = node
	for i := range pods.Items {
		p := &pods.Items[i]
		snap.pods[p.Namespace+"/"+p.Name] = p
	}
	full := draincore.FullNodeFrom(node, pods.Items, true)
	if i, ok := snap.index[node.Name]; ok {
		in.Nodes[i] = full
	} else {
		snap.index[node.Name] = len(in.Nodes)
		in.Nodes = append(in.Nodes, full)
	}
	return nil
}
