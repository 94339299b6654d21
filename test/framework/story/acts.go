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

package story

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	nodeipamctrl "podnetwork.io/operator/controllers/nodeipam"
	"podnetwork.io/operator/test/framework"
)

// Acts is the story, in order.
func Acts(e *Env) []Act {
	return []Act{activate(e), fill(e), retire(), autoscale()}
}

// activate: one small range goes Pending → Active; nodes join and get blocks.
func activate(e *Env) Act {
	return Act{
		Title: "activates a range only after every consumer acknowledged it, then allocates from it",
		Steps: []Step{{
			Title: fmt.Sprintf("the admin creates PodNetwork %q with one range %q %s (%d node blocks of /24)",
				v1alpha1.PodNetworkName, FirstRange, FirstCIDR, firstBlocks),
			Do: func(e *Env) error {
				pn := framework.PodNetwork().Range(FirstRange, FirstCIDR).RecycleDelaySeconds(e.RecycleDelaySeconds).Obj()
				if err := e.API.Create(e.API.Ctx, pn); err != nil {
					return fmt.Errorf("creating the PodNetwork: %w", err)
				}
				return nil
			},
			Checks: []Check{
				{What: FirstRange + " is Pending", Holds: phaseIs(FirstRange, v1alpha1.RangePhasePending),
					Says: fmt.Sprintf("%q is Pending: no node gets a block from it until every consumer has acknowledged it", FirstRange)},
				{What: FirstRange + " is Active", Holds: phaseIs(FirstRange, v1alpha1.RangePhaseActive),
					Says: fmt.Sprintf("every consumer acknowledged: %q is Active", FirstRange)},
				{What: "NodeIPAM and the plugin accepted " + FirstRange, Mode: Now,
					Holds: accepted(FirstRange, nodeipamctrl.ConsumerName, e.Plugin)},
			},
		}, {
			Title: fmt.Sprintf("%d nodes join", e.Nodes),
			Do:    func(e *Env) error { return e.AddNodes("node", 0, e.Nodes) },
			Checks: []Check{{What: "every node has a podCIDR", Holds: nodesWithPodCIDRs(e.Nodes),
				Says: fmt.Sprintf("all %d nodes have a podCIDR from %q", e.Nodes, FirstRange)}},
		}},
	}
}

// fill: the range fills up, nodes wait; a second range is added.
func fill(e *Env) Act {
	extra := firstBlocks - e.Nodes + waitingNodes
	total := firstBlocks + waitingNodes
	return Act{
		Title: "lets new nodes wait with an event when the range is full, and serves them from a second range",
		Steps: []Step{{
			Title: fmt.Sprintf("%d more nodes join; %q has room for %d of them", extra, FirstRange, firstBlocks-e.Nodes),
			Do:    func(e *Env) error { return e.AddNodes("node", e.Nodes, extra) },
			Checks: []Check{
				{What: fmt.Sprintf("%d nodes have a podCIDR", firstBlocks), Holds: nodesWithPodCIDRs(firstBlocks)},
				{What: "the waiting nodes have a CIDRNotAvailable warning", Holds: nodeEvent("Warning/CIDRNotAvailable"),
					Says: fmt.Sprintf("%q is full; the nodes without a block wait, and say why:", FirstRange), Detail: cidrNotAvailable},
				{What: "no node gets a block meanwhile", Mode: Throughout, For: 2 * time.Second, Holds: nodesWithPodCIDRs(firstBlocks)},
			},
		}, {
			Title: fmt.Sprintf("the admin adds a second range %q %s", SecondRange, SecondCIDR),
			Do: func(e *Env) error {
				return e.API.EditRanges(func(r []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
					return append(r, framework.Range(SecondRange, SecondCIDR).Obj())
				})
			},
			Checks: []Check{
				{What: SecondRange + " is Pending", Holds: phaseIs(SecondRange, v1alpha1.RangePhasePending),
					Says: fmt.Sprintf("%q is Pending until every consumer acknowledges it; the waiting nodes still wait", SecondRange)},
				{What: SecondRange + " is Active", Holds: phaseIs(SecondRange, v1alpha1.RangePhaseActive),
					Says: fmt.Sprintf("%q is Active", SecondRange)},
				{What: "every node has a podCIDR", Holds: nodesWithPodCIDRs(total),
					Says: fmt.Sprintf("the %d waiting nodes got blocks from %q", waitingNodes, SecondRange)},
			},
		}},
	}
}

// retire: the first range is removed; its nodes are replaced.
func retire() Act {
	total := firstBlocks + waitingNodes
	return Act{
		Title: "drains a removed range until its nodes are replaced, then releases and purges it",
		Steps: []Step{{
			Title: fmt.Sprintf("the admin removes %q from the spec to retire it", FirstRange),
			Do: func(e *Env) error {
				return e.API.EditRanges(func(r []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
					var out []v1alpha1.PodCIDRRange
					for _, x := range r {
						if x.Name != FirstRange {
							out = append(out, x)
						}
					}
					return out
				})
			},
			Checks: []Check{
				{What: FirstRange + " is Draining", Holds: phaseIs(FirstRange, v1alpha1.RangePhaseDraining)},
				{What: fmt.Sprintf("%d nodes hold blocks in %s", firstBlocks, FirstRange), Holds: holderCount(FirstRange, firstBlocks),
					Says: fmt.Sprintf("%q is Draining: no new blocks from it; %d nodes still hold blocks in it, so it cannot be released yet", FirstRange, firstBlocks)},
				{What: fmt.Sprintf("the first %d holders are named", namedHolders), Mode: Now, Holds: namedHoldersAre(FirstRange, namedHolders)},
			},
		}, {
			Title: fmt.Sprintf("the admin replaces the nodes holding blocks in %q (drain, delete, new node)", FirstRange),
			Do:    replaceHolders,
			Checks: []Check{
				{What: FirstRange + " is Released", Holds: phaseIs(FirstRange, v1alpha1.RangePhaseReleased),
					Says: fmt.Sprintf("no node holds a block in %q and every consumer stopped using it: Released", FirstRange)},
				{What: FirstRange + " is purged", Holds: phaseIs(FirstRange, ""),
					Says: fmt.Sprintf("every consumer removed it from its configuration: %q is purged", FirstRange)},
				{What: "every node has a podCIDR", Holds: nodesWithPodCIDRs(total),
					Says: fmt.Sprintf("the %d nodes all hold blocks in %q", total, SecondRange)},
				{What: "no node holds a block in " + FirstRange, Mode: Now, Holds: noHolders(FirstCIDR)},
				{What: "the PodNetwork is Ready", Holds: ready, Detail: readyCondition,
					Says: "the PodNetwork is Ready: `kubectl wait --for=condition=Ready podnetwork/default` returns"},
			},
		}},
	}
}

// replaceHolders deletes every node holding a block in the first range and
// creates a new one in its place.
func replaceHolders(e *Env) error {
	for i, name := range e.API.Holders(FirstCIDR) {
		if err := e.API.Delete(e.API.Ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting node %s: %w", name, err)
		}
		if err := e.API.Create(e.API.Ctx, node(name+"-new", 100+i)); err != nil {
			return fmt.Errorf("creating node %s-new: %w", name, err)
		}
	}
	return nil
}

// autoscale: the admin declares a pool; nodes keep joining and the pool
// grows the network by itself, the new range Active before any node waits.
func autoscale() Act {
	total := firstBlocks + waitingNodes
	return Act{
		Title: "grows the pod network by itself from a pool, the new range Active before any node waits",
		Steps: []Step{{
			Title: fmt.Sprintf("the admin lets the operator grow %q from the pool %q %s (mode Auto: grow below 30%% free blocks, forecast included)",
				SecondRange, AutoscalePool, AutoscalePoolCIDR),
			Do: func(e *Env) error {
				return retry.RetryOnConflict(retry.DefaultRetry, func() error {
					pn, err := e.API.PodNetwork()
					if err != nil {
						return err
					}
					pn.Spec.Autoscaling = v1alpha1.PodNetworkAutoscaling{Mode: v1alpha1.AutoscalingAuto, Pools: []v1alpha1.AutoscalingPool{{
						Name: AutoscalePool, CIDR: AutoscalePoolCIDR, RangePrefixLength: 18, NodeMaskSize: 24,
						Grow: v1alpha1.GrowThreshold{FreePercentBelow: 30},
					}}}
					return e.API.Update(e.API.Ctx, pn)
				})
			},
			Checks: []Check{{What: "the pool reports its forecast", Holds: poolReported(AutoscalePool), Detail: poolMessage(AutoscalePool),
				Says: fmt.Sprintf("the pool %q reports what it sees and forecasts (kubectl get pn default -o wide):", AutoscalePool)}},
		}, {
			Title: fmt.Sprintf("%d more nodes join, one every %s", growNodes, growInterval),
			Do:    func(e *Env) error { return e.AddNodesEvery("grow", 0, growNodes, growInterval) },
			Checks: []Check{
				{What: "every node has a podCIDR", Holds: nodesWithPodCIDRs(total + growNodes)},
				{What: "a range the pool added is Active", Mode: Now, Holds: autoscaledActive(AutoscalePool), Detail: autoscaledEvents,
					Says: fmt.Sprintf("the pool expanded %q by a supernet it added, which every consumer accepted before it became Active:", SecondRange)},
				{What: "no node waited for a block (no CIDRNotAvailable)", Mode: Now, Holds: noNodeWaited("grow-"),
					Says: fmt.Sprintf("all %d nodes got a block at once: the new range was Active before any node had to wait", growNodes)},
				{What: SecondRange + " is covered by the autoscaled range", Mode: Now, Holds: coveredByPool(SecondRange, AutoscalePool)},
			},
		}},
	}
}
