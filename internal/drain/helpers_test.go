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
	"net/netip"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// fixture builds an Input: range "old" (10.1.0.0/16) Draining, range
// "new" (10.2.0.0/16) Active, and the nodes added.
type fixture struct{ in Input }

func newFixture(mode v1alpha1.DrainAssistMode, handover v1alpha1.DrainHandover) *fixture {
	return &fixture{in: Input{
		Now:        t0,
		Generation: 2,
		Spec:       v1alpha1.DrainAssist{Mode: mode, Handover: handover},
		Ranges: []v1alpha1.RangeStatus{
			{Name: "old", CIDR: "10.1.0.0/16", Phase: v1alpha1.RangePhaseDraining},
			{Name: "new", CIDR: "10.2.0.0/16", Phase: v1alpha1.RangePhaseActive},
		},
		Poll: 10 * time.Second,
	}}
}

func (f *fixture) maxUnavailable(v intstr.IntOrString) *fixture {
	f.in.Spec.MaxUnavailable = &v
	return f
}

// node adds a node with podCIDR cidr, read whole, Karpenter-managed,
// without pods; edits change it.
func (f *fixture) node(name, cidr string, edits ...func(*Node)) *fixture {
	n := Node{Name: name, PodCIDRs: []netip.Prefix{netip.MustParsePrefix(cidr)},
		Detail: &Detail{PodsRead: true, KarpenterManaged: true}}
	for _, e := range edits {
		e(&n)
	}
	f.in.Nodes = append(f.in.Nodes, n)
	return f
}

// holders adds count nodes n-0 ... holding blocks of "old".
func (f *fixture) holders(count int, edits ...func(*Node)) *fixture {
	for i := range count {
		f.node("n-"+string(rune('0'+i)), netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 1, byte(i), 0}), 24).String(), edits...)
	}
	return f
}

func (f *fixture) previous(s *v1alpha1.DrainAssistStatus) *fixture {
	f.in.Previous = s
	return f
}

// step runs Decide, then Summarize with the results.
func (f *fixture) step(results map[string]NodeResult) (Plan, Report) {
	p := Decide(f.in)
	return p, Summarize(f.in, p, results)
}

func withPods(pods ...Pod) func(*Node) {
	return func(n *Node) { n.Detail.Pods = append(n.Detail.Pods, pods...) }
}

// started marks the node as started at t, cordoned by drain assist.
func started(t time.Time) func(*Node) {
	return func(n *Node) {
		n.Marked = true
		n.Detail.StartedAt, n.Detail.CordonedByUs, n.Detail.Unschedulable = t, true, true
	}
}

func unread(n *Node)        { n.Detail = nil }
func deleting(n *Node)      { n.Deleting = true }
func notKarpenter(n *Node)  { n.Detail.KarpenterManaged = false }
func unschedulable(n *Node) { n.Detail.Unschedulable = true }

func nodeDoNotDisrupt(key string) func(*Node) {
	return func(n *Node) { n.Detail.DoNotDisrupt = key }
}

func replacementRequested(at time.Time) func(*Node) {
	return func(n *Node) { n.Detail.ReplacementRequested, n.Detail.HandedOverAt = true, at }
}

func pod(name string) Pod          { return Pod{Namespace: "app", Name: name} }
func daemonSetPod(name string) Pod { return Pod{Namespace: "kube-system", Name: name, DaemonSet: true} }
func mirrorPod(name string) Pod    { return Pod{Namespace: "kube-system", Name: name, Mirror: true} }

func finishedPod(name string) Pod {
	p := pod(name)
	p.Finished = true
	return p
}

func terminatingPod(name string) Pod {
	p := pod(name)
	p.Terminating = true
	return p
}

func doNotDisruptPod(name string) Pod {
	p := pod(name)
	p.DoNotDisrupt = v1alpha1.KarpenterDoNotDisruptAnnotation
	return p
}

// nodePlan returns the plan of a node, nil if none.
func nodePlan(p Plan, name string) *NodePlan {
	for i := range p.Nodes {
		if p.Nodes[i].Name == name {
			return &p.Nodes[i]
		}
	}
	return nil
}

// listed returns the status entry of a node, nil if none.
func listed(r Report, name string) *v1alpha1.DrainNodeStatus {
	for i := range r.Status.Nodes {
		if r.Status.Nodes[i].Name == name {
			return &r.Status.Nodes[i]
		}
	}
	return nil
}

// starts returns the names of the nodes the plan starts.
func starts(p Plan) []string {
	var out []string
	for _, np := range p.Nodes {
		if np.Has(StepStart) {
			out = append(out, np.Name)
		}
	}
	return out
}

// reasons returns "node/reason" (or "/reason" on the PodNetwork) of every
// event.
func reasons(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Node+"/"+e.Reason)
	}
	return out
}

// allStarted is the results of a plan whose every step succeeded, pods
// evicted.
func allDone(p Plan) map[string]NodeResult {
	out := map[string]NodeResult{}
	for _, np := range p.Nodes {
		var r NodeResult
		for _, s := range np.Steps {
			switch s {
			case StepStart:
				r.Started = true
			case StepEvict:
				for _, pod := range np.Evict {
					r.Evictions = append(r.Evictions, Eviction{Pod: pod, Outcome: Evicted})
				}
			case StepHandOver:
				r.HandedOver = true
			case StepRelease:
				r.Released = true
			}
		}
		out[np.Name] = r
	}
	return out
}
