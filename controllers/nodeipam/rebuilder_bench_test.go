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

package nodeipam

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/allocator"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/test/framework/heapsize"
)

// pagedNodes is a client.Reader that serves n nodes in pages, as the API
// server answers the rebuild's paginated LIST. Each page is made fresh from
// a stripped template (as a decoder would make fresh objects), so 65,000
// nodes never sit in memory at once, as in the real rebuild; only the fields
// the rebuild reads differ per node.
type pagedNodes struct {
	template corev1.Node
	names    []string
	cidrs    []string
}

func newPagedNodes(n int, r allocator.Range) *pagedNodes {
	p := &pagedNodes{template: strippedNode(), names: make([]string, n), cidrs: make([]string, n)}
	for i := range n {
		p.names[i] = fmt.Sprintf("ip-10-0-%d-%d.eu-west-1.compute.internal", i/256, i%256)
		p.cidrs[i] = r.Block(i).String()
	}
	return p
}

// strippedNode is a Node of a busy cloud VM as watches.TransformNode leaves
// it: what the controllers read, nothing else.
func strippedNode() corev1.Node {
	return corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "template", UID: "6f1d0c2e-9b7a-4c1e-8f3d-template", ResourceVersion: "123456789",
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
			Labels: map[string]string{
				"kubernetes.io/hostname": "template", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
				"node.kubernetes.io/instance-type": "m6i.4xlarge", "topology.kubernetes.io/zone": "eu-west-1a",
				"topology.kubernetes.io/region": "eu-west-1", "node-pool": "general",
			},
		},
		Spec: corev1.NodeSpec{ProviderID: "aws:///eu-west-1a/i-0123456789abcdef0"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "10.20.30.40"},
				{Type: corev1.NodeHostName, Address: "ip-10-20-30-40.eu-west-1.compute.internal"},
			},
			Conditions: []corev1.NodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
				{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, Reason: "FlannelIsUp", Message: "Flannel is running on this node"},
			},
		},
	}
}

func (p *pagedNodes) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return errors.New("pagedNodes serves LIST only")
}

func (p *pagedNodes) List(_ context.Context, obj client.ObjectList, opts ...client.ListOption) error {
	list, ok := obj.(*corev1.NodeList)
	if !ok {
		return fmt.Errorf("pagedNodes lists nodes only, not %T", obj)
	}
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	start := 0
	if lo.Continue != "" {
		var err error
		if start, err = strconv.Atoi(lo.Continue); err != nil {
			return fmt.Errorf("bad continue token %q: %w", lo.Continue, err)
		}
	}
	end := len(p.names)
	if lo.Limit > 0 {
		end = min(end, start+int(lo.Limit))
	}
	list.Items = make([]corev1.Node, end-start)
	for i := start; i < end; i++ {
		n := &list.Items[i-start]
		*n = p.template
		n.Name, n.UID = p.names[i], types.UID("uid-"+p.names[i])
		n.Spec.PodCIDR, n.Spec.PodCIDRs = p.cidrs[i], []string{p.cidrs[i]}
	}
	list.Continue = ""
	if end < len(p.names) {
		list.Continue = strconv.Itoa(end)
	}
	return nil
}

// BenchmarkNodeIPAMRebuild measures the start-up rebuild through its real
// code (listNodes, then the overlap check as the state opens) from 5,000 and 65,000 listed
// nodes in pages of rebuildPageSize, and reports the heap the rebuilt state
// retains (allocator and per-node records). Decoding the LIST is not
// included: BenchmarkNodeTransform covers what a Node costs to hold. The
// same work side by side with kube-controller-manager's constructor is
// BenchmarkRebuild in test/bench.
func BenchmarkNodeIPAMRebuild(b *testing.B) {
	cluster := netip.MustParsePrefix("10.0.0.0/8")
	r, err := allocator.NewRange(cluster, 24)
	if err != nil {
		b.Fatal(err)
	}
	pn := activeRangeNetwork(cluster)
	for _, n := range []int{5000, 65000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			rb := &rebuilder{reader: newPagedNodes(n, r)}
			build := func() any {
				rebuild, err := nodeipamcore.NewRebuild(pn)
				if err != nil {
					b.Fatal(err)
				}
				if err := rb.listNodes(context.Background(), rebuild); err != nil {
					b.Fatal(err)
				}
				state := nodeipamcore.NewState(clock.RealClock{}, nil, podnetworkv1alpha1.IPv4)
				if c := state.Open(rebuild).Conflicts; len(c) != 0 {
					b.Fatalf("unexpected conflicts: %v", c)
				}
				return state
			}
			retained := heapsize.Retained(1, build)
			b.ReportAllocs()
			for b.Loop() {
				build()
			}
			// Reported after the loop: b.Loop resets the timer, which drops metrics.
			b.ReportMetric(retained, "retained-B")
			b.ReportMetric(retained/float64(n), "retained-B/node")
		})
	}
}

// activeRangeNetwork is a PodNetwork with one Active range "r" of cluster
// in /24 blocks and a recycle delay of 60 s.
func activeRangeNetwork(cluster netip.Prefix) *podnetworkv1alpha1.PodNetwork {
	return &podnetworkv1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: podnetworkv1alpha1.PodNetworkName},
		Spec: podnetworkv1alpha1.PodNetworkSpec{
			Ranges:     []podnetworkv1alpha1.PodCIDRRange{{Name: "r", CIDR: cluster.String(), NodeMaskSize: 24}},
			Allocation: &podnetworkv1alpha1.AllocationPolicy{RecycleDelaySeconds: ptr.To[int32](60)},
		},
		Status: podnetworkv1alpha1.PodNetworkStatus{Ranges: []podnetworkv1alpha1.RangeStatus{
			{Name: "r", CIDR: cluster.String(), NodeMaskSize: 24, Phase: podnetworkv1alpha1.RangePhaseActive},
		}},
	}
}
