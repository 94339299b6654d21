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
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
	"podnetwork.io/operator/internal/nodeipam/blockstore"
	"podnetwork.io/operator/internal/slimnode"
)

// recordHarness is a leader's State and record store on a fake API server
// whose ConfigMap updates can lose their answer. Its range has 256 /24
// blocks, recorded in chunks of 64.
type recordHarness struct {
	t        *testing.T
	c        client.Client
	state    *nodeipamcore.State
	store    *recordStore
	nodes    int
	loseNext bool // the next update is stored, but answered with a timeout
}

func newRecordHarness(t *testing.T) *recordHarness {
	h := &recordHarness{t: t}
	h.c = fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithInterceptorFuncs(interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if err := c.Update(ctx, obj, opts...); err != nil {
				return err
			}
			if h.loseNext {
				h.loseNext = false
				return apierrors.NewTimeoutError("response lost", 1)
			}
			return nil
		},
	}).Build()
	h.state, h.store = h.leader()
	return h
}

// leader rebuilds a leader from the record as the API holds it and claims it.
func (h *recordHarness) leader() (*nodeipamcore.State, *recordStore) {
	h.t.Helper()
	ctx := context.Background()
	pn := &podnetworkv1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: podnetworkv1alpha1.PodNetworkName, Generation: 1, ResourceVersion: "1"},
		Spec:       podnetworkv1alpha1.PodNetworkSpec{Ranges: []podnetworkv1alpha1.PodCIDRRange{{Name: "pods", CIDR: "10.0.0.0/16", NodeMaskSize: 24}}},
		Status: podnetworkv1alpha1.PodNetworkStatus{Ranges: []podnetworkv1alpha1.RangeStatus{
			{Name: "pods", CIDR: "10.0.0.0/16", NodeMaskSize: 24, Phase: podnetworkv1alpha1.RangePhaseActive},
		}},
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	state := nodeipamcore.NewState(clk, nodeipamcore.NewBackoff(0, 0, clk), podnetworkv1alpha1.IPv4)
	store := &recordStore{client: h.c, reader: h.c, key: types.NamespacedName{Namespace: "kube-system", Name: RecordName}, state: state, signals: newSignals()}
	rebuild, err := nodeipamcore.NewRebuild(pn)
	if err != nil {
		h.t.Fatal(err)
	}
	read, err := store.read(ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	if read != nil {
		if err := rebuild.ApplyStore(read.BinaryData[RecordDataKey], clk.Now()); err != nil {
			h.t.Fatal(err)
		}
	}
	claim, err := rebuild.ClaimRecord(clk.Now())
	if err != nil {
		h.t.Fatal(err)
	}
	if err := store.claimRecord(ctx, read, claim); err != nil {
		h.t.Fatal(err)
	}
	rebuild.RecordClaimed()
	state.Open(rebuild)
	return state, store
}

// allocate reserves blocks for count new nodes and reports whether any of
// them asks for a write of the record, needed before its node's or ahead of
// need.
func (h *recordHarness) allocate(state *nodeipamcore.State, count int) bool {
	h.t.Helper()
	pending := false
	for range count {
		h.nodes++
		a, err := state.Allocate(&slimnode.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint(h.nodes), UID: types.UID(fmt.Sprint(h.nodes))}})
		if err != nil {
			h.t.Fatal(err)
		}
		pending = pending || a.RecordPending || a.RecordAhead
	}
	return pending
}

func (h *recordHarness) stored() string {
	h.t.Helper()
	cm := &corev1.ConfigMap{}
	if err := h.c.Get(context.Background(), h.store.key, cm); err != nil {
		h.t.Fatal(err)
	}
	c, _, err := blockstore.Decode(cm.BinaryData[RecordDataKey])
	if err != nil {
		h.t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range c.Issued.Prefixes() {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

func TestRecordStore(t *testing.T) {
	ctx := context.Background()

	t.Run("a write whose answer was lost is recognised by its claim", func(t *testing.T) {
		h := newRecordHarness(t)
		if !h.allocate(h.state, 1) {
			t.Fatal("the first block needs a write")
		}
		h.loseNext = true
		if err := h.store.sync(ctx); err == nil {
			t.Fatal("a lost answer reported success")
		}
		if h.state.RecordCovers([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}) {
			t.Fatal("a write of unknown outcome counts as stored")
		}
		// The first block's chunk, and the next one ahead of need.
		if got := h.stored(); got != "10.0.0.0/17\n" {
			t.Fatalf("stored %q", got)
		}
		// The next write conflicts (the resourceVersion moved), finds its
		// own claim, and takes the record as stored.
		if err := h.store.sync(ctx); err != nil {
			t.Fatal(err)
		}
		if !h.state.RecordCovers([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}) {
			t.Fatal("the re-read record does not count as stored")
		}
	})

	t.Run("a former leader cannot extend the record after a new leader claimed it", func(t *testing.T) {
		h := newRecordHarness(t)
		h.allocate(h.state, 1)
		if err := h.store.sync(ctx); err != nil {
			t.Fatal(err)
		}
		next, _ := h.leader() // the new leader rebuilds and claims the record
		if _, err := next.Allocate(&slimnode.Node{ObjectMeta: metav1.ObjectMeta{Name: "x", UID: "x"}}); err != nil {
			t.Fatal(err)
		}

		// The former leader's 65th block asks for the third chunk ahead of
		// need: its write conflicts, it finds another claim and stops
		// allocating until it has rebuilt.
		if !h.allocate(h.state, 64) {
			t.Fatal("the 65th block asks for no write")
		}
		err := h.store.sync(ctx)
		if !errors.Is(err, nodeipamcore.ErrRecordRewritten) {
			t.Fatalf("sync = %v, want ErrRecordRewritten", err)
		}
		if got := h.stored(); got != "10.0.0.0/17\n" {
			t.Fatalf("the former leader changed the record to %q", got)
		}
		h.expectRecovering("another claim")
	})
}

// rewrite stores data as the record from another client, with the claim
// annotation given (none when empty), as kubectl apply of an export does.
func (h *recordHarness) rewrite(data []byte, claim string) {
	h.t.Helper()
	cm := &corev1.ConfigMap{}
	if err := h.c.Get(context.Background(), h.store.key, cm); err != nil {
		h.t.Fatal(err)
	}
	cm.BinaryData = map[string][]byte{RecordDataKey: data}
	cm.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}
	if claim != "" {
		cm.Annotations[ClaimAnnotation] = claim
	}
	if err := h.c.Update(context.Background(), cm); err != nil {
		h.t.Fatal(err)
	}
}

// export returns the store's data as the API holds it now.
func (h *recordHarness) export() []byte {
	h.t.Helper()
	cm := &corev1.ConfigMap{}
	if err := h.c.Get(context.Background(), h.store.key, cm); err != nil {
		h.t.Fatal(err)
	}
	return cm.BinaryData[RecordDataKey]
}

// expectRecovering checks that the leader hands nothing out and asked the
// rebuilder to recover, saying what it found.
func (h *recordHarness) expectRecovering(finding string) {
	h.t.Helper()
	if h.state.IsOpen() {
		h.t.Fatal("the state is still open")
	}
	if _, err := h.state.Allocate(&slimnode.Node{ObjectMeta: metav1.ObjectMeta{Name: "late", UID: "late"}}); !errors.Is(err, nodeipamcore.ErrRecordRewritten) {
		h.t.Fatalf("Allocate while recovering = %v, want ErrRecordRewritten", err)
	}
	select {
	case got := <-h.store.signals.recovery:
		if !strings.Contains(got, finding) {
			h.t.Fatalf("recovery asked for with %q, want it to say %q", got, finding)
		}
	default:
		h.t.Fatal("no recovery asked for")
	}
}

// TestRecordRewritten: a record someone else rewrote is found by the
// periodic check or by the next write, whatever its claim annotation, and
// suspends allocation until the rebuilder recovers (issue #31, point 4);
// changes that are not someone else's content are not.
func TestRecordRewritten(t *testing.T) {
	ctx := context.Background()
	// grown is a leader that recorded two chunks, then grew the record by
	// its third chunk: an export of the first state is older content.
	grown := func(t *testing.T) (*recordHarness, []byte) {
		t.Helper()
		h := newRecordHarness(t)
		h.allocate(h.state, 1)
		if err := h.store.sync(ctx); err != nil {
			t.Fatal(err)
		}
		export := h.export()
		h.allocate(h.state, 64)
		if err := h.store.sync(ctx); err != nil {
			t.Fatal(err)
		}
		if got := h.stored(); got != "10.0.0.0/17\n10.0.128.0/18\n" {
			t.Fatalf("stored %q", got)
		}
		return h, export
	}

	t.Run("an export re-applied without the claim is found by the check", func(t *testing.T) {
		h, export := grown(t)
		h.rewrite(export, "")
		if err := h.store.check(ctx); !errors.Is(err, nodeipamcore.ErrRecordRewritten) {
			t.Fatalf("check = %v, want ErrRecordRewritten", err)
		}
		h.expectRecovering("no claim annotation")
	})

	t.Run("an export carrying the current claim is found by the check", func(t *testing.T) {
		h, export := grown(t)
		h.rewrite(export, h.store.claim)
		if err := h.store.check(ctx); !errors.Is(err, nodeipamcore.ErrRecordRewritten) {
			t.Fatalf("check = %v, want ErrRecordRewritten", err)
		}
		h.expectRecovering("with this leader's claim but content it did not write")
	})

	t.Run("an export carrying the current claim is found by the next write", func(t *testing.T) {
		h, export := grown(t)
		h.rewrite(export, h.store.claim)
		h.allocate(h.state, 64) // the 129th block asks for the fourth chunk
		if err := h.store.sync(ctx); !errors.Is(err, nodeipamcore.ErrRecordRewritten) {
			t.Fatalf("sync = %v, want ErrRecordRewritten", err)
		}
		if got := h.export(); !bytes.Equal(got, export) {
			t.Fatalf("the record was written over: %q", got)
		}
		h.expectRecovering("with this leader's claim but content it did not write")
	})

	t.Run("a label or annotation added by someone else is no rewrite", func(t *testing.T) {
		h, _ := grown(t)
		h.rewrite(h.export(), h.store.claim)
		if err := h.store.check(ctx); err != nil {
			t.Fatal(err)
		}
		if !h.state.IsOpen() {
			t.Fatal("the state was suspended")
		}
		h.allocate(h.state, 64)
		if err := h.store.sync(ctx); err != nil {
			t.Fatalf("the next write: %v", err)
		}
		if got := h.stored(); got != "10.0.0.0/16\n" {
			t.Fatalf("stored %q", got)
		}
	})

	t.Run("a deleted record is written again from what the leader knows", func(t *testing.T) {
		h, _ := grown(t)
		if err := h.c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: h.store.key.Namespace, Name: h.store.key.Name}}); err != nil {
			t.Fatal(err)
		}
		if err := h.store.check(ctx); err != nil {
			t.Fatal(err)
		}
		if !h.state.IsOpen() {
			t.Fatal("the state was suspended")
		}
		if h.state.RecordCovers([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}) {
			t.Fatal("a block counts as recorded while there is no record")
		}
		select {
		case <-h.store.signals.record:
		default:
			t.Fatal("no write asked for")
		}
		if err := h.store.sync(ctx); err != nil {
			t.Fatal(err)
		}
		if got := h.stored(); got != "10.0.0.0/17\n10.0.128.0/18\n" {
			t.Fatalf("stored %q", got)
		}
		if err := h.store.check(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a record nobody else wrote passes the check", func(t *testing.T) {
		h, _ := grown(t)
		if err := h.store.check(ctx); err != nil {
			t.Fatal(err)
		}
		if !h.state.IsOpen() {
			t.Fatal("the state was suspended")
		}
	})
}
