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

package watches

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// A burst of node events must cost one reconcile, due only once
// the coalescing delay has passed.
func TestCoalescedNodeEventsEnqueueOnceAfterTheDelay(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[reconcile.Request](),
		workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Clock: clk},
	)
	defer q.ShutDown()

	h := CoalescedNodeEvents(func() time.Duration { return time.Second })
	ctx := context.Background()
	for i := range 100 {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n" + string(rune('a'+i%26))}}
		switch i % 3 {
		case 0:
			h.Create(ctx, event.CreateEvent{Object: node}, q)
		case 1:
			h.Update(ctx, event.UpdateEvent{ObjectOld: node, ObjectNew: node}, q)
		default:
			h.Delete(ctx, event.DeleteEvent{Object: node}, q)
		}
	}
	g.Expect(q.Len()).To(BeZero(), "nothing is due before the delay")

	clk.Step(time.Second)
	g.Eventually(q.Len).Should(Equal(1), "one reconcile for the whole burst")
	got, _ := q.Get()
	g.Expect(got).To(Equal(reconcile.Request{NamespacedName: client.ObjectKey{Name: podnetworkv1alpha1.PodNetworkName}}))
	q.Done(got)
	g.Expect(q.Len()).To(BeZero())
}

func TestCoalescingDelay(t *testing.T) {
	for _, tc := range []struct {
		nodes int
		want  time.Duration
	}{
		{0, time.Second},
		{1, time.Second},
		{10000, time.Second},
		{10001, 2 * time.Second},
		{65000, 7 * time.Second},
		{100000, 10 * time.Second},
	} {
		if got := CoalescingDelay(tc.nodes); got != tc.want {
			t.Errorf("CoalescingDelay(%d) = %v, want %v", tc.nodes, got, tc.want)
		}
	}
	var c NodeEventCoalescer
	if got := c.Delay(); got != NodeEventCoalescing {
		t.Errorf("zero NodeEventCoalescer waits %v, want %v", got, NodeEventCoalescing)
	}
	c.Read(25000)
	if got := c.Delay(); got != 3*time.Second {
		t.Errorf("after reading 25000 nodes the delay is %v, want 3s", got)
	}
}
