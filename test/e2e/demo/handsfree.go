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
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli/app"
	"podnetwork.io/operator/test/framework"
)

// The hands-free act, the demo's own (the e2e suite tells the story of
// test/framework/story without it): a range of a small node pool is
// retired by drain assist, and a replacement provider standing in for
// Karpenter replaces the nodes it deletes.
const (
	edgeRange = "edge"
	edgeCIDR  = "10.102.0.0/22" // 4 node blocks of /24
	edgePool  = "edge"
	// edgeNodes join the pool; drain assist replaces edgeMaxUnavailable of
	// them at a time.
	edgeNodes          = 3
	edgeMaxUnavailable = 2
	edgeNamespace      = "shop"
	// poolLabel is the label the edge range's nodeSelector selects.
	poolLabel = "demo.podnetwork.io/pool"
	// drainPoll is the operator's --drain-assist-poll-interval here (the
	// chart's drainAssist.pollInterval, 10s by default): short, so that
	// the act is.
	drainPoll = 500 * time.Millisecond
)

// edgeLabels are the labels of the pool's nodes: the range's nodeSelector
// selects them, and karpenter.sh/nodepool tells drain assist that
// Karpenter (here, the replacement provider) replaces a deleted one.
var edgeLabels = map[string]string{poolLabel: edgePool, v1alpha1.KarpenterNodePoolLabel: edgePool}

// handsFree retires the edge range with drain assist in Auto mode and the
// handover Delete: from the removal of the range to Released, the admin
// touches no node.
func (d *demo) handsFree(ctx context.Context, act int) error {
	api := d.env.API
	fmt.Println()
	say("ACT %d: retires a range without anyone touching a node: drain assist drains its nodes, and what replaces machines (Karpenter) replaces them", act)
	say("the admin adds range %q %s for the nodes labelled %s=%s, and turns drain assist on: mode Auto, handover Delete, maxUnavailable %d",
		edgeRange, edgeCIDR, poolLabel, edgePool, edgeMaxUnavailable)
	selector := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: poolLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{edgePool}}}}}}
	if err := d.editSpec(func(s *v1alpha1.PodNetworkSpec) {
		s.Ranges = append(s.Ranges, framework.Range(edgeRange, edgeCIDR).NodeSelector(selector).Obj())
		s.DrainAssist = v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverDelete,
			MaxUnavailable: ptr.To(intstr.FromInt32(edgeMaxUnavailable))}
	}); err != nil {
		return err
	}
	if err := waitFor(edgeRange+" Active", stepTimeout, func(context.Context) (bool, error) {
		return api.Phase(edgeRange) == v1alpha1.RangePhaseActive, nil
	}); err != nil {
		return err
	}
	say("every consumer acknowledged: %q is Active", edgeRange)

	say("%d nodes of pool %q join, labelled %s as Karpenter labels its nodes, each running a pod", edgeNodes, edgePool, v1alpha1.KarpenterNodePoolLabel)
	if err := d.edgeNodes(); err != nil {
		return err
	}
	var held []string
	if err := waitFor("the pool's nodes to get blocks of "+edgeRange, stepTimeout, func(context.Context) (bool, error) {
		held = api.Holders(edgeCIDR)
		return len(held) == edgeNodes, nil
	}); err != nil {
		return err
	}
	say("they hold blocks of %q: %s", edgeRange, podCIDRsOf(api.Nodes(), held))

	say("`kubectl podnetwork plan --remove %s` shows what drain assist will do (the plugin, run in process):", edgeRange)
	d.showDrainSchedule(ctx)

	w := &drainWatch{api: api, phase: v1alpha1.RangePhaseActive}
	if _, err := w.look(false); err != nil {
		return err
	}
	say("the admin removes %q from the spec; from here on nobody touches a node", edgeRange)
	if err := api.EditRanges(func(r []v1alpha1.PodCIDRRange) []v1alpha1.PodCIDRRange {
		return slices.DeleteFunc(r, func(x v1alpha1.PodCIDRRange) bool { return x.Name == edgeRange })
	}); err != nil {
		return err
	}
	if err := w.until(ctx, stepTimeout); err != nil {
		return err
	}
	say("no node holds a block in %q and every consumer acknowledged: Released, without anyone touching a node", edgeRange)
	say("the replacements hold blocks of the Active ranges: %s", podCIDRsOf(api.Nodes(), w.replacements))
	if pn, err := api.PodNetwork(); err == nil && pn.Status.DrainAssist != nil {
		say("drain assist reports (kubectl podnetwork status, DRAIN ASSIST): %s", pn.Status.DrainAssist.Message)
	}
	return nil
}

// editSpec changes the PodNetwork's spec as an admin would.
func (d *demo) editSpec(edit func(*v1alpha1.PodNetworkSpec)) error {
	api := d.env.API
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pn, err := api.PodNetwork()
		if err != nil {
			return err
		}
		edit(&pn.Spec)
		return api.Update(api.Ctx, pn)
	})
}

// edgeNodes creates the pool's nodes and a pod bound to each. No kubelet
// runs here: a grace period of 0 lets an eviction delete the pod at once.
func (d *demo) edgeNodes() error {
	api := d.env.API
	if err := api.Create(api.Ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: edgeNamespace}}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", edgeNamespace, err)
	}
	for i := range edgeNodes {
		name := fmt.Sprintf("%s-%d", edgePool, i)
		if err := api.Create(api.Ctx, edgeNode(name, i)); err != nil {
			return fmt.Errorf("creating node %s: %w", name, err)
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: edgeNamespace, Name: "web-" + name, Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{NodeName: name, TerminationGracePeriodSeconds: ptr.To(int64(0)),
				Containers: []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10"}}},
		}
		if err := api.Create(api.Ctx, pod); err != nil {
			return fmt.Errorf("creating pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
	}
	return nil
}

// edgeNode is a node of the pool; index gives it a node address outside
// every pod range and apart from the story's nodes.
func edgeNode(name string, index int) *corev1.Node {
	return framework.Node(name).Labels(edgeLabels).InternalIP(fmt.Sprintf("172.18.0.%d", 200+index)).Obj()
}

// showDrainSchedule prints the DRAIN SCHEDULE of `kubectl podnetwork plan
// --remove edge`, as the admin would see it before removing the range.
func (d *demo) showDrainSchedule(ctx context.Context) {
	var out, errOut bytes.Buffer
	code := app.Run(ctx, []string{"plan", "--remove", edgeRange, "--kubeconfig", d.controlPlane.Cluster.KubeconfigPath}, &out, &errOut, app.Options{})
	text := out.String()
	i := strings.Index(text, "DRAIN SCHEDULE")
	if i < 0 {
		say("  (no drain schedule: exit %d %s)", code, errOut.String())
		return
	}
	section, _, _ := strings.Cut(text[i:], "\n\n")
	for _, line := range strings.Split(strings.TrimRight(section, "\n"), "\n") {
		fmt.Println("          " + line)
	}
}

// podCIDRsOf says "name podCIDR" of the named nodes.
func podCIDRsOf(nodes []corev1.Node, names []string) string {
	var parts []string
	for _, n := range nodes {
		if slices.Contains(names, n.Name) {
			parts = append(parts, n.Name+" "+strings.Join(n.Spec.PodCIDRs, ","))
		}
	}
	return strings.Join(parts, ", ")
}

// inEdge reports whether a podCIDR lies in the edge range.
func inEdge(podCIDRs []string) bool {
	r := netip.MustParsePrefix(edgeCIDR)
	return slices.ContainsFunc(podCIDRs, func(c string) bool {
		p, err := netip.ParsePrefix(c)
		return err == nil && r.Overlaps(p)
	})
}
