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

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/test/framework"
)

// drainWatch follows the pool's nodes and pods and the edge range, every
// watchInterval, from the range's removal until it is Released, and tells
// what drain assist does. It is also the replacement provider: the demo's
// nodes are simulated, so when a node of the pool is gone it creates a
// new one for the pool, as Karpenter would. It is the only writer of
// nodes in the act, and it only creates them.
type drainWatch struct {
	api framework.API
	// known are the pool's nodes as last seen, pods the pods of the
	// namespace and their nodes.
	known map[string]*corev1.Node
	pods  map[string]string
	phase v1alpha1.RangePhase
	// replacements are the nodes the provider created.
	replacements []string
}

// watchInterval is how often drainWatch looks.
const watchInterval = 100 * time.Millisecond

// until polls until the edge range is Released (or purged), failing when
// drain assist ever works on more than edgeMaxUnavailable nodes at once.
// look(false) must have read the pool before the range was removed.
func (w *drainWatch) until(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		done, err := w.look(true)
		switch {
		case err != nil || done:
			return err
		case time.Now().After(deadline):
			return fmt.Errorf("timed out after %s waiting for %s to be Released", timeout, edgeRange)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(watchInterval):
		}
	}
}

// look reads the pool, its pods and the range, tells what changed since
// the last look when tell, and replaces the nodes that are gone.
func (w *drainWatch) look(tell bool) (bool, error) {
	nodes := &corev1.NodeList{}
	if err := w.api.List(w.api.Ctx, nodes, client.MatchingLabels{poolLabel: edgePool}); err != nil {
		return false, fmt.Errorf("listing the pool's nodes: %w", err)
	}
	pods := &corev1.PodList{}
	if err := w.api.List(w.api.Ctx, pods, client.InNamespace(edgeNamespace)); err != nil {
		return false, fmt.Errorf("listing the pods of %s: %w", edgeNamespace, err)
	}
	seen := map[string]*corev1.Node{}
	started := 0
	for i := range nodes.Items {
		n := &nodes.Items[i]
		seen[n.Name] = n
		if _, ok := n.Labels[v1alpha1.DrainAssistNodeLabel]; ok {
			started++
		}
		prev := w.known[n.Name]
		switch {
		case !tell || prev == nil:
		case !prev.Spec.Unschedulable && n.Spec.Unschedulable:
			say("drain assist cordoned %s and labelled it %s (%d of at most %d at once)", n.Name, v1alpha1.DrainAssistNodeLabel, started, edgeMaxUnavailable)
		case len(prev.Spec.PodCIDRs) == 0 && len(n.Spec.PodCIDRs) > 0:
			say("NodeIPAM gave %s the block %s of an Active range (%s is Draining: it gives none)", n.Name, strings.Join(n.Spec.PodCIDRs, ","), edgeRange)
		}
	}
	if started > edgeMaxUnavailable {
		return false, fmt.Errorf("drain assist works on %d nodes at once, more than maxUnavailable %d", started, edgeMaxUnavailable)
	}
	current := map[string]string{}
	for _, p := range pods.Items {
		current[p.Name] = p.Spec.NodeName
	}
	for _, name := range sortedKeys(w.pods) {
		if _, ok := current[name]; !ok && tell {
			say("drain assist evicted pod %s/%s from %s through the Eviction API", edgeNamespace, name, w.pods[name])
		}
	}
	for _, name := range sortedKeys(w.known) {
		if _, ok := seen[name]; ok || !tell {
			continue
		}
		if inEdge(w.known[name].Spec.PodCIDRs) {
			say("drain assist deleted %s, drained (handover Delete: Karpenter replaces a deleted node)", name)
		}
		if err := w.replace(name, seen); err != nil {
			return false, err
		}
	}
	w.known, w.pods = seen, current
	if !tell {
		return false, nil
	}
	return w.rangePhase()
}

// replace creates a node for the pool in place of gone, as Karpenter would
// for the pods evicted from it.
func (w *drainWatch) replace(gone string, seen map[string]*corev1.Node) error {
	name := fmt.Sprintf("%s-r%d", edgePool, len(w.replacements))
	n := edgeNode(name, edgeNodes+len(w.replacements))
	if err := w.api.Create(w.api.Ctx, n); err != nil {
		return fmt.Errorf("creating node %s: %w", name, err)
	}
	w.replacements = append(w.replacements, name)
	seen[name] = n
	say("replacement provider (stands in for Karpenter; the demo's nodes are simulated): %s is gone, created %s for pool %s", gone, name, edgePool)
	return nil
}

// rangePhase tells the edge range's new phase; it is done once the range
// is Released or no longer tracked.
func (w *drainWatch) rangePhase() (bool, error) {
	pn, err := w.api.PodNetwork()
	if err != nil {
		return false, err
	}
	var phase v1alpha1.RangePhase
	holders := int32(0)
	if rs := pn.Status.FindRange(edgeRange); rs != nil {
		phase, holders = rs.Phase, rs.HolderCount
	}
	if phase != w.phase {
		switch phase {
		case v1alpha1.RangePhaseDraining:
			say("%q is Draining: %d nodes hold blocks in it; drain assist starts at most %d at a time", edgeRange, holders, edgeMaxUnavailable)
		case v1alpha1.RangePhaseReleased, "":
			say("%q is %s", edgeRange, map[bool]string{true: "purged", false: "Released"}[phase == ""])
		}
	}
	w.phase = phase
	return phase == v1alpha1.RangePhaseReleased || phase == "", nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
