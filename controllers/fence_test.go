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

package controllers

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"podnetwork.io/operator/internal/leasefence"
)

// stubLock is a lock whose writes succeed or fail as told, and whose Lease
// names holder.
type stubLock struct {
	resourcelock.Interface
	fail    error
	holder  string
	updates int
}

func (l *stubLock) Create(context.Context, resourcelock.LeaderElectionRecord) error { return l.fail }
func (l *stubLock) Identity() string                                                { return "me" }

func (l *stubLock) Update(_ context.Context, ler resourcelock.LeaderElectionRecord) error {
	l.updates++
	if l.fail == nil {
		l.holder = ler.HolderIdentity
	}
	return l.fail
}

func (l *stubLock) Get(context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	return &resourcelock.LeaderElectionRecord{HolderIdentity: l.holder}, nil, nil
}

func TestFencedWrites(t *testing.T) {
	ctx := context.Background()
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fence := leasefence.New(clk, 3*time.Second)
	lock := &fencedLock{Interface: &stubLock{}, fence: fence}
	c := &fencedClient{Client: fake.NewClientBuilder().WithScheme(Scheme()).Build(), fence: fence}
	node := func(name string) *corev1.Node { return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	refused := func(err error) bool { return errors.Is(err, leasefence.ErrNotFresh) }

	if err := c.Create(ctx, node("before-leading")); !refused(err) {
		t.Fatalf("a write before the lease is held: %v, want ErrNotFresh", err)
	}
	if err := lock.Create(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, node("leading")); err != nil {
		t.Fatalf("a write right after acquiring the lease: %v", err)
	}

	// Paused past the renew deadline: every kind of write is refused.
	clk.SetTime(clk.Now().Add(4 * time.Second))
	n := node("leading")
	for name, write := range map[string]error{
		"create":        c.Create(ctx, node("paused")),
		"update":        c.Update(ctx, n),
		"patch":         c.Patch(ctx, n, client.MergeFrom(node("leading"))),
		"delete":        c.Delete(ctx, n),
		"status update": c.Status().Update(ctx, n),
		"status patch":  c.Status().Patch(ctx, n, client.MergeFrom(node("leading"))),
		"subresource":   c.SubResource("status").Update(ctx, n),
	} {
		if !refused(write) {
			t.Errorf("%s after the renew deadline: %v, want ErrNotFresh", name, write)
		}
	}

	// A failed renewal does not reopen it; a successful one does.
	lock.Interface = &stubLock{fail: errors.New("apiserver down")}
	_ = lock.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
	if err := c.Delete(ctx, n); !refused(err) {
		t.Fatalf("after a failed renewal: %v, want ErrNotFresh", err)
	}
	lock.Interface = &stubLock{}
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, n); err != nil {
		t.Fatalf("after a renewal: %v", err)
	}

	// Releasing the lease on shutdown (an empty holder) closes it, even
	// when the release fails.
	stub := &stubLock{holder: "me", fail: errors.New("apiserver down")}
	lock.Interface = stub
	_ = lock.Update(ctx, resourcelock.LeaderElectionRecord{})
	if err := c.Create(ctx, node("released")); !refused(err) {
		t.Fatalf("a write after a failed release of the lease: %v, want ErrNotFresh", err)
	}
	stub.fail = nil
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{}); err != nil || stub.holder != "" {
		t.Fatalf("releasing our own lease: %v, holder %q", err, stub.holder)
	}

	// A woken leader never releases the lease another replica holds now.
	stub = &stubLock{holder: "other"}
	lock.Interface = stub
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{}); err != nil || stub.updates != 0 || stub.holder != "other" {
		t.Fatalf("releasing another replica's lease: %v, %d updates, holder %q", err, stub.updates, stub.holder)
	}
}
