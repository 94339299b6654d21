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
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
)

// These tests inject write failures the real API server cannot be made to
// produce on demand, and check what happens to the reserved blocks. Every
// other behaviour is covered against a real API server in
// test/integration/nodeipam.

// patchOutcome is what the fake API server does with one node PATCH.
type patchOutcome int

const (
	stored          patchOutcome = iota // applied, success returned
	storedLost                          // applied, but the client sees a timeout
	timedOut                            // not applied, the client sees a timeout
	conflicted                          // not applied, 409
	storedElsewhere                     // another allocator set other podCIDRs first; 409
)

const testRange = "10.0.0.0/24" // split into /26: .0, .64, .128, .192

func testPodNetwork() *podnetworkv1alpha1.PodNetwork {
	return &podnetworkv1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: podnetworkv1alpha1.PodNetworkName, Generation: 1, ResourceVersion: "1"},
		Spec: podnetworkv1alpha1.PodNetworkSpec{Ranges: []podnetworkv1alpha1.PodCIDRRange{
			{Name: "pods", CIDR: testRange, NodeMaskSize: 26},
		}},
		Status: podnetworkv1alpha1.PodNetworkStatus{Ranges: []podnetworkv1alpha1.RangeStatus{
			{Name: "pods", CIDR: testRange, NodeMaskSize: 26, Phase: podnetworkv1alpha1.RangePhaseActive},
		}},
	}
}

// ipamHarness is a NodeIPAM reconciler on a fake client whose node PATCHes
// follow a script.
type ipamHarness struct {
	t       *testing.T
	r       *NodeReconciler
	state   *nodeipamcore.State
	record  *recordStore
	c       client.Client
	script  []patchOutcome
	patches int
}

func newIPAMHarness(t *testing.T, nodes ...string) *ipamHarness {
	h := &ipamHarness{t: t}
	var objs []client.Object
	for _, n := range nodes {
		objs = append(objs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, UID: types.UID("uid-" + n)}})
	}
	h.c = fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(objs...).
		WithInterceptorFuncs(interceptor.Funcs{Patch: h.patch}).Build()

	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	h.state = nodeipamcore.NewState(clk, nodeipamcore.NewBackoff(0, 0, clk), podnetworkv1alpha1.IPv4)
	rebuild, err := nodeipamcore.NewRebuild(testPodNetwork())
	if err != nil {
		t.Fatal(err)
	}
	h.record = &recordStore{client: h.c, reader: h.c, key: types.NamespacedName{Namespace: "kube-system", Name: RecordName}, state: h.state}
	claim, err := rebuild.ClaimRecord(clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := h.record.claimRecord(context.Background(), nil, claim); err != nil {
		t.Fatal(err)
	}
	rebuild.RecordClaimed()
	h.state.Open(rebuild)
	h.r = &NodeReconciler{Writer: clientPodCIDRWriter{h.c}, Nodes: h.c, Reader: h.c, Recorder: events.NewFakeRecorder(100), state: h.state, signals: newSignals(), record: h.record}
	return h
}

// clientPodCIDRWriter patches through a controller-runtime client: here the
// fake one, whose interceptor plays the script.
type clientPodCIDRWriter struct{ c client.Client }

func (w clientPodCIDRWriter) patchPodCIDRs(ctx context.Context, node string, patch []byte) error {
	return w.c.Patch(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}},
		client.RawPatch(types.MergePatchType, patch), client.FieldOwner(FieldManager))
}

// patch runs the next scripted outcome (stored when the script is over).
func (h *ipamHarness) patch(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	outcome := stored
	if h.patches < len(h.script) {
		outcome = h.script[h.patches]
	}
	h.patches++
	gr := schema.GroupResource{Resource: "nodes"}
	switch outcome {
	case storedLost:
		if err := c.Patch(ctx, obj, patch, opts...); err != nil {
			return err
		}
		return apierrors.NewTimeoutError("response lost", 1)
	case timedOut:
		return apierrors.NewServerTimeout(gr, "patch", 1)
	case conflicted:
		return apierrors.NewConflict(gr, obj.GetName(), errors.New("the object has been modified"))
	case storedElsewhere:
		n := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), n); err != nil {
			return err
		}
		n.Spec.PodCIDR, n.Spec.PodCIDRs = "10.0.0.192/26", []string{"10.0.0.192/26"}
		if err := c.Update(ctx, n); err != nil {
			return err
		}
		return apierrors.NewConflict(gr, obj.GetName(), errors.New("the object has been modified"))
	default:
		return c.Patch(ctx, obj, patch, opts...)
	}
}

func (h *ipamHarness) reconcile(node string) error {
	h.t.Helper()
	_, err := h.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKey{Name: node}})
	return err
}

func (h *ipamHarness) podCIDRs(node string) []string {
	h.t.Helper()
	n := &corev1.Node{}
	if err := h.c.Get(context.Background(), client.ObjectKey{Name: node}, n); err != nil {
		h.t.Fatal(err)
	}
	return n.Spec.PodCIDRs
}

func (h *ipamHarness) holdings() map[string][]string {
	out := map[string][]string{}
	for _, hd := range h.state.Holdings() {
		out[hd.Owner] = append(out[hd.Owner], hd.Prefix.String())
	}
	return out
}

func TestNodeIPAMWriteOutcomes(t *testing.T) {
	type step struct {
		node      string
		wantErr   bool
		wantCIDRs []string // podCIDRs of node after the step
	}
	tests := []struct {
		name   string
		script []patchOutcome
		steps  []step
		// wantHeld is the allocator's holdings at the end.
		wantHeld map[string][]string
	}{
		{
			name:   "stored, response lost: the re-read from the API server confirms the block",
			script: []patchOutcome{storedLost},
			steps: []step{
				{node: "a", wantErr: true, wantCIDRs: []string{"10.0.0.0/26"}},
				{node: "a", wantCIDRs: []string{"10.0.0.0/26"}},
				{node: "b", wantCIDRs: []string{"10.0.0.64/26"}},
			},
			wantHeld: map[string][]string{"a": {"10.0.0.0/26"}, "b": {"10.0.0.64/26"}},
		},
		{
			name:   "timed out, not stored: the block stays reserved and is written again",
			script: []patchOutcome{timedOut, stored},
			steps: []step{
				{node: "a", wantErr: true},
				{node: "b", wantCIDRs: []string{"10.0.0.64/26"}},
				{node: "a", wantCIDRs: []string{"10.0.0.0/26"}},
			},
			wantHeld: map[string][]string{"a": {"10.0.0.0/26"}, "b": {"10.0.0.64/26"}},
		},
		{
			name:   "conflict: the block goes back without quarantine",
			script: []patchOutcome{conflicted},
			steps: []step{
				{node: "a", wantErr: true},
				{node: "b", wantCIDRs: []string{"10.0.0.0/26"}},
				{node: "a", wantCIDRs: []string{"10.0.0.64/26"}},
			},
			wantHeld: map[string][]string{"a": {"10.0.0.64/26"}, "b": {"10.0.0.0/26"}},
		},
		{
			name:   "a conflict after an unknown outcome keeps the block: the first write may have landed",
			script: []patchOutcome{timedOut, conflicted, stored},
			steps: []step{
				{node: "a", wantErr: true},
				{node: "a", wantErr: true},
				{node: "b", wantCIDRs: []string{"10.0.0.64/26"}},
				{node: "a", wantCIDRs: []string{"10.0.0.0/26"}},
			},
			wantHeld: map[string][]string{"a": {"10.0.0.0/26"}, "b": {"10.0.0.64/26"}},
		},
		{
			name:   "another allocator won the race: its podCIDRs are adopted, the reserved block returned",
			script: []patchOutcome{storedElsewhere},
			steps: []step{
				{node: "a", wantErr: true, wantCIDRs: []string{"10.0.0.192/26"}},
				{node: "a", wantCIDRs: []string{"10.0.0.192/26"}},
				{node: "b", wantCIDRs: []string{"10.0.0.0/26"}},
			},
			wantHeld: map[string][]string{"a": {"10.0.0.192/26"}, "b": {"10.0.0.0/26"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newIPAMHarness(t, "a", "b")
			h.script = tt.script
			for i, s := range tt.steps {
				err := h.reconcile(s.node)
				if (err != nil) != s.wantErr {
					t.Fatalf("step %d: Reconcile(%s) error = %v, want error %v", i, s.node, err, s.wantErr)
				}
				if got := h.podCIDRs(s.node); !slices.Equal(got, s.wantCIDRs) {
					t.Fatalf("step %d: node %s podCIDRs = %v, want %v", i, s.node, got, s.wantCIDRs)
				}
			}
			if got := h.holdings(); !maps.EqualFunc(got, tt.wantHeld, slices.Equal) {
				t.Fatalf("holdings = %v, want %v", got, tt.wantHeld)
			}
			if q := h.state.Quarantine(); len(q) != 0 {
				t.Fatalf("quarantine = %v, want none: no block was freed by a deleted node", q)
			}
		})
	}
}

// TestNodeIPAMDrainingAckWaitsForWrites checks that NodeIPAM acknowledges a
// Draining range only once no node write with a block inside it may still
// land.
func TestNodeIPAMDrainingAckWaitsForWrites(t *testing.T) {
	h := newIPAMHarness(t, "a")
	h.script = []patchOutcome{timedOut}
	if err := h.reconcile("a"); err == nil {
		t.Fatal("the timed-out write reported success")
	}

	draining := testPodNetwork()
	draining.ResourceVersion, draining.Generation = "2", 2
	draining.Spec.Ranges = nil
	draining.Status.Ranges[0].Phase = podnetworkv1alpha1.RangePhaseDraining
	if _, err := h.state.Sync(draining); err != nil {
		t.Fatal(err)
	}
	ack := func() *podnetworkv1alpha1.ConsumerRangeStatus {
		acks := h.state.Acks(draining, nil)
		if len(acks) == 0 {
			return nil
		}
		return &acks[0]
	}
	if a := ack(); a != nil {
		t.Fatalf("Draining acknowledged while a write into the range may land: %+v", a)
	}

	// The retry stores the reserved block even though the range no longer
	// hands out new ones; then the range is acknowledged.
	if err := h.reconcile("a"); err != nil {
		t.Fatal(err)
	}
	if got := h.podCIDRs("a"); !slices.Equal(got, []string{"10.0.0.0/26"}) {
		t.Fatalf("podCIDRs = %v", got)
	}
	if a := ack(); a == nil || a.Phase != podnetworkv1alpha1.RangePhaseDraining || a.Result != podnetworkv1alpha1.AckAccepted {
		t.Fatalf("ack = %+v, want Draining accepted", a)
	}
}
