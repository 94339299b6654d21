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

package cli_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cli"
)

// drainCluster is the transition cluster with drain assist in Auto mode,
// handover Delete, 50% at a time, and more nodes holding blocks of range
// "a": d1 and d2 Karpenter's, d3 Karpenter's but annotated
// do-not-disrupt, d4 not Karpenter's; n3, which holds Draining range
// "old", was started already.
func drainCluster(t *testing.T) *cli.Cluster {
	c := transition(t)
	c.Consumers[2].Status.Ranges = c.Consumers[0].Status.Ranges
	c.PodNetwork.Spec.DrainAssist = v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverDelete,
		MaxUnavailable: ptr.To(intstr.FromString("50%"))}
	karpenter := map[string]string{v1alpha1.KarpenterNodePoolLabel: "default"}
	for _, n := range []string{"d1", "d2", "d3", "d4"} {
		nd := node(n, "0s", "10.244."+n[1:]+".0/24")
		if n != "d4" {
			nd.Labels = karpenter
		}
		if n == "d3" {
			nd.Annotations = map[string]string{v1alpha1.KarpenterDoNotDisruptAnnotation: "true"}
		}
		c.Nodes = append(c.Nodes, nd)
	}
	for i := range c.Nodes {
		switch c.Nodes[i].Name {
		case "n1", "n2":
			c.Nodes[i].Labels = karpenter
		case "n3":
			c.Nodes[i].Labels = map[string]string{v1alpha1.KarpenterNodePoolLabel: "default", v1alpha1.DrainAssistNodeLabel: "true"}
			c.Nodes[i].Annotations = map[string]string{v1alpha1.DrainAssistStartedAnnotation: now.Add(-3 * time.Minute).Format(time.RFC3339),
				v1alpha1.DrainAssistCordonedAnnotation: "true"}
			c.Nodes[i].Spec.Unschedulable = true
		}
	}
	return c
}

// drainReads are the pods of the holders: web-0 on n1 under a budget that
// allows no disruption, api-1 on n2 under one that allows one, a
// DaemonSet's pod on n1 (never evicted) and db-0 still on n3.
func drainReads() cli.DrainReads {
	pod := func(ns, name string, labels map[string]string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	}
	ds := pod("kube-system", "proxy-x", nil)
	ds.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "proxy", UID: "u", Controller: ptr.To(true)}}
	pdb := func(name string, app string, allowed int32) policyv1.PodDisruptionBudget {
		return policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
			Spec:   policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed}}
	}
	return cli.DrainReads{PodsRead: true, PDBsRead: true,
		Pods: map[string][]corev1.Pod{
			"n1": {pod("shop", "web-0", map[string]string{"app": "web"}), ds},
			"n2": {pod("shop", "api-1", map[string]string{"app": "api"})},
			"n3": {pod("shop", "db-0", map[string]string{"app": "db"})},
		},
		PDBs: []policyv1.PodDisruptionBudget{pdb("web", "web", 0), pdb("api", "api", 1)},
	}
}

// removeA is the change: range a removed, c added for the replacements;
// it returns the plan and the proposed spec.
func removeA(c *cli.Cluster) (cli.PlanReport, v1alpha1.PodNetworkSpec) {
	spec := *c.PodNetwork.Spec.DeepCopy()
	spec.Ranges = append(slices.Clone(c.Ranges()[1:]), v1alpha1.PodCIDRRange{Name: "c", CIDR: "10.246.0.0/16"})
	return cli.Plan(c, spec.Ranges, now), spec
}

// TestPlanDrainGolden pins the drain schedule of plan --remove: the node
// in progress takes its slot, 50% of 7 holders is 3 and then 2 of the 4
// left, the do-not-disrupt and non-Karpenter nodes are skipped with a
// warning, and the budget that allows no disruption is named.
func TestPlanDrainGolden(t *testing.T) {
	c := drainCluster(t)
	p, spec := removeA(c)
	if got := cli.DrainHolders(c, &p, spec); !slices.Equal(got, []string{"d1", "d2", "d3", "d4", "n1", "n2", "n3"}) {
		t.Fatalf("holders %v", got)
	}
	p.DrainSchedule = cli.PlanDrain(c, &p, spec, drainReads())
	s := p.DrainSchedule
	if s == nil {
		t.Fatal("no drain schedule")
	}
	var batches [][]string
	for _, b := range s.Batches {
		var names []string
		for _, n := range b.Nodes {
			names = append(names, n.Name)
		}
		batches = append(batches, names)
	}
	if want := [][]string{{"d1", "d2"}, {"n1", "n2"}}; !slices.EqualFunc(batches, want, slices.Equal) || s.MaxUnavailableNodes != 3 {
		t.Errorf("batches %v at most %d, want %v at most 3", batches, s.MaxUnavailableNodes, want)
	}
	var b bytes.Buffer
	if err := cli.WritePlanText(&b, &p); err != nil {
		t.Fatal(err)
	}
	golden(t, "plan-drain.text", b.Bytes())
	b.Reset()
	if err := (&printers.JSONPrinter{}).PrintObj(&p, &b); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	// Durations only as whole seconds, in fields ending in Seconds.
	walk(m, "", func(path string, v any) {
		if strings.HasSuffix(path, "Seconds") {
			if f, ok := v.(float64); !ok || f != float64(int64(f)) {
				t.Errorf("%s = %v is not a whole number of seconds", path, v)
			}
		}
	})
	out, err := json.MarshalIndent(m["drainSchedule"], "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "plan-drain.json", append(out, '\n'))
}

// TestPlanDrainPartialReads: pods and PodDisruptionBudgets the user may
// not read leave the schedule made of the nodes' own rules, and say so.
func TestPlanDrainPartialReads(t *testing.T) {
	c := drainCluster(t)
	p, spec := removeA(c)
	s := cli.PlanDrain(c, &p, spec, cli.DrainReads{
		Unreadable: []cli.Unreadable{{Resource: "pods", Message: "forbidden"}, {Resource: cli.ResourcePDBs, Message: "forbidden"}}})
	if s == nil || len(s.Batches) != 2 || len(s.Skipped) != 2 || len(s.Unreadable) != 2 {
		t.Fatalf("schedule %+v", s)
	}
	for _, b := range s.Batches {
		for _, n := range b.Nodes {
			if n.PodsToEvict != nil || n.BlockedBy != nil {
				t.Errorf("node %s: pods to evict %v, blocked by %v without its pods read", n.Name, n.PodsToEvict, n.BlockedBy)
			}
		}
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.HasPrefix(w, "the pods of these nodes could not be read") }) {
		t.Errorf("warnings %q", s.Warnings)
	}
	// Off: the same order, said to be Auto's, with no handover rules.
	spec.DrainAssist = v1alpha1.DrainAssist{}
	s = cli.PlanDrain(c, &p, spec, drainReads())
	if s.Mode != v1alpha1.DrainAssistOff || s.MaxUnavailable != "1" || len(s.Skipped) != 1 || !strings.HasPrefix(s.Warnings[0], "drain assist is Off") {
		t.Errorf("Off: %+v", s)
	}
}

// TestStatusDrainAssist pins status's DRAIN ASSIST section and its layout
// in the StatusReport.
func TestStatusDrainAssist(t *testing.T) {
	c := transition(t)
	c.PodNetwork.Status.DrainAssist = &v1alpha1.DrainAssistStatus{
		Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverDelete, MaxUnavailable: 2,
		Total: ptr.To[int32](4), Waiting: ptr.To[int32](1), Draining: ptr.To[int32](0), Blocked: ptr.To[int32](1),
		HandedOver: ptr.To[int32](1), Skipped: ptr.To[int32](1),
		Message: "4 to replace: 0 draining, 1 blocked, 1 handed over, 1 waiting, 1 skipped (at most 2 at a time)",
		Conditions: []metav1.Condition{{Type: v1alpha1.DrainAssistCompleteCondition, Status: metav1.ConditionFalse, Reason: v1alpha1.NodesBlockedReason,
			Message: "2 nodes will not move on without help: n1 (EvictionBlocked: ...); n4 (NodeDoNotDisrupt: ...)", LastTransitionTime: *at(2 * time.Hour)}},
		Nodes: []v1alpha1.DrainNodeStatus{
			{Name: "n1", State: v1alpha1.DrainNodeBlocked, Reason: v1alpha1.DrainReasonEvictionBlocked, StartTime: at(time.Hour + 30*time.Minute), PodsLeft: ptr.To[int32](1),
				Message: "Not drained within 30m0s of being cordoned at 2026-03-04T11:30:00Z: PodDisruptionBudget shop/web allows no disruption of pod shop/web-0 now; retrying", Ranges: []string{"a"}},
			{Name: "n3", State: v1alpha1.DrainNodeHandedOver, Reason: v1alpha1.DrainReasonDeleted, StartTime: at(2 * time.Hour), PodsLeft: ptr.To[int32](0),
				Message: "Deleted; waiting for Karpenter to replace it", Ranges: []string{"old"}},
			{Name: "n4", State: v1alpha1.DrainNodeSkipped, Reason: v1alpha1.DrainReasonNodeDoNotDisrupt, Message: "The node is annotated karpenter.sh/do-not-disrupt", Ranges: []string{"a"}},
		},
	}
	s := cli.BuildStatus(c, now)
	if d := s.DrainAssist; d == nil || d.Total != 4 || len(d.Nodes) != 3 || *d.Nodes[0].StartedSeconds != 35*60 {
		t.Fatalf("drain assist %+v", s.DrainAssist)
	}
	var b bytes.Buffer
	if err := cli.WriteStatusText(&b, &s); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	i := strings.Index(text, "\nDRAIN ASSIST")
	j := strings.Index(text, "\nCONSUMERS")
	if i < 0 || j < i {
		t.Fatalf("no DRAIN ASSIST section before CONSUMERS:\n%s", text)
	}
	golden(t, "status-drain.text", []byte(text[i+1:j+1]))
}

// TestPlanDrainLacksFamily: under familyPolicy AllOrWait a node without a
// block of a family an Active range selecting it has is replaced like a
// holder (drain assist's rule): plan -f turning the policy on schedules
// the IPv4-only node, and says what it lacks.
func TestPlanDrainLacksFamily(t *testing.T) {
	v4 := rangeStatus("a", "10.244.0.0/16", v1alpha1.RangePhaseActive, 0, nil)
	v6 := rangeStatus("v6", "fd00:10::/48", v1alpha1.RangePhaseActive, 0, nil)
	v6.IPFamily, v6.NodeMaskSize = v1alpha1.IPv6, 64
	pn := &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
		Spec:   v1alpha1.PodNetworkSpec{Ranges: []v1alpha1.PodCIDRRange{{Name: "a", CIDR: "10.244.0.0/16"}, {Name: "v6", CIDR: "fd00:10::/48", NodeMaskSize: 64}}},
		Status: v1alpha1.PodNetworkStatus{Ranges: []v1alpha1.RangeStatus{v4, v6}}}
	c := &cli.Cluster{PodNetwork: pn, NodeIPAM: "node-ipam",
		Nodes: []corev1.Node{node("old4", "0s", "10.244.0.0/24"), node("dual", "0s", "10.244.1.0/24", "fd00:10::/64")}}
	spec := *pn.Spec.DeepCopy()
	spec.Allocation = &v1alpha1.AllocationPolicy{FamilyPolicy: v1alpha1.FamilyPolicyAllOrWait}
	spec.DrainAssist = v1alpha1.DrainAssist{Mode: v1alpha1.DrainAssistAuto, Handover: v1alpha1.HandoverCondition}
	p := cli.Plan(c, spec.Ranges, now)
	if got := cli.DrainHolders(c, &p, spec); !slices.Equal(got, []string{"old4"}) {
		t.Fatalf("holders %v, want old4", got)
	}
	s := cli.PlanDrain(c, &p, spec, cli.DrainReads{PodsRead: true, PDBsRead: true})
	if s == nil || len(s.Batches) != 1 || s.Batches[0].Nodes[0].Name != "old4" || !slices.Equal(s.Batches[0].Nodes[0].Lacks, []string{"IPv6 (range v6)"}) {
		t.Fatalf("schedule %+v", s)
	}
	// Independent: nothing to replace.
	spec.Allocation = nil
	if s := cli.PlanDrain(c, &p, spec, cli.DrainReads{PodsRead: true, PDBsRead: true}); s != nil {
		t.Errorf("schedule without AllOrWait: %+v", s)
	}
}
