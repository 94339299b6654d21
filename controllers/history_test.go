package controllers_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/cidr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// history records every change of the PodNetwork, the consumers and the
// nodes, in the order etcd committed them (resourceVersions of one etcd are
// one global revision counter), so the lifecycle's safety invariants can be
// checked on everything that happened, not only on the final state.
type history struct {
	mu     sync.Mutex
	pn     []pnSnapshot
	acks   []ackSnapshot
	nodes  []nodeSnapshot
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type pnSnapshot struct {
	rv     int64
	ranges []v1alpha1.RangeStatus
}

type ackSnapshot struct {
	rv       int64
	consumer string
	acks     []v1alpha1.ConsumerRangeStatus
}

type nodeSnapshot struct {
	rv       int64
	name     string
	podCIDRs []string
	deleted  bool
}

// recordHistory starts watching; stop it with check.
func recordHistory() *history {
	h := &history{}
	wctx, cancel := context.WithCancel(ctx)
	h.cancel = cancel
	h.watch(wctx, &v1alpha1.PodNetworkList{}, func(obj client.Object, _ watch.EventType) {
		pn := obj.(*v1alpha1.PodNetwork)
		h.pn = append(h.pn, pnSnapshot{rv: rvOf(obj), ranges: pn.Status.Ranges})
	})
	h.watch(wctx, &v1alpha1.PodNetworkConsumerList{}, func(obj client.Object, _ watch.EventType) {
		c := obj.(*v1alpha1.PodNetworkConsumer)
		h.acks = append(h.acks, ackSnapshot{rv: rvOf(obj), consumer: c.Name, acks: c.Status.Ranges})
	})
	h.watch(wctx, &corev1.NodeList{}, func(obj client.Object, t watch.EventType) {
		n := obj.(*corev1.Node)
		h.nodes = append(h.nodes, nodeSnapshot{rv: rvOf(obj), name: n.Name, podCIDRs: n.Spec.PodCIDRs, deleted: t == watch.Deleted})
	})
	return h
}

func (h *history) watch(wctx context.Context, list client.ObjectList, record func(client.Object, watch.EventType)) {
	w, err := k8sClient.Watch(wctx, list)
	Expect(err).NotTo(HaveOccurred())
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer w.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				obj, isObj := ev.Object.(client.Object)
				if !isObj || ev.Type == watch.Error || ev.Type == watch.Bookmark {
					continue
				}
				h.mu.Lock()
				record(obj, ev.Type)
				h.mu.Unlock()
			}
		}
	}()
}

func rvOf(obj client.Object) int64 {
	rv, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
	Expect(err).NotTo(HaveOccurred())
	return rv
}

// check stops recording and asserts the lifecycle's safety invariants for
// the given required consumers:
//   - a range became Active only after every required consumer accepted its
//     Pending phase (after the range entered that phase);
//   - a range became Released from Draining only after every required
//     consumer acknowledged Draining and while no node held a podCIDR
//     overlapping it (these specs have no Active supernets);
//   - a Released range was purged only after every required consumer
//     acknowledged Released.
func (h *history) check(required ...string) {
	h.cancel()
	h.wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	type key struct{ name, cidr string }
	prev := map[key]v1alpha1.RangeStatus{}
	entered := map[key]int64{}
	for _, snap := range h.pn {
		cur := map[key]v1alpha1.RangeStatus{}
		for _, rs := range snap.ranges {
			k := key{rs.Name, rs.CIDR}
			cur[k] = rs
			old, had := prev[k]
			if !had || old.Phase == rs.Phase {
				if !had {
					entered[k] = snap.rv
				}
				continue
			}
			switch {
			case old.Phase == v1alpha1.RangePhasePending && rs.Phase == v1alpha1.RangePhaseActive:
				h.expectAcked(required, old, entered[k], snap.rv)
			case old.Phase == v1alpha1.RangePhaseDraining && rs.Phase == v1alpha1.RangePhaseReleased:
				h.expectAcked(required, old, entered[k], snap.rv)
				Expect(h.holdersAt(rs.CIDR, snap.rv)).To(BeEmpty(),
					"range %s/%s was Released at revision %d while nodes held blocks inside it", rs.Name, rs.CIDR, snap.rv)
			}
			entered[k] = snap.rv
		}
		for k, old := range prev {
			if _, still := cur[k]; !still {
				Expect(old.Phase).To(Equal(v1alpha1.RangePhaseReleased), "range %s/%s left status while %s", k.name, k.cidr, old.Phase)
				h.expectAcked(required, old, entered[k], snap.rv)
			}
		}
		prev = cur
	}
}

// expectAcked asserts that every required consumer accepted phase rs.Phase
// of the range at a revision in (since, before).
func (h *history) expectAcked(required []string, rs v1alpha1.RangeStatus, since, before int64) {
	for _, c := range required {
		found := false
		for _, a := range h.acks {
			if a.consumer != c || a.rv <= since || a.rv >= before {
				continue
			}
			if acked, _, _ := v1alpha1.AckState(a.acks, &rs); acked {
				found = true
				break
			}
		}
		Expect(found).To(BeTrue(), fmt.Sprintf("range %s/%s left %s at revision %d before consumer %s acknowledged it",
			rs.Name, rs.CIDR, rs.Phase, before, c))
	}
}

// holdersAt returns the nodes whose podCIDRs overlapped prefix at revision rv.
func (h *history) holdersAt(prefix string, rv int64) []string {
	p, err := cidr.ParseCanonical(prefix)
	Expect(err).NotTo(HaveOccurred())
	last := map[string]nodeSnapshot{}
	for _, n := range h.nodes {
		if n.rv > rv {
			break
		}
		last[n.name] = n
	}
	var holders []string
	for name, n := range last {
		if n.deleted {
			continue
		}
		for _, s := range n.podCIDRs {
			if q, err := cidr.ParseCanonical(s); err == nil && cidr.Overlaps(p, q) {
				holders = append(holders, name)
			}
		}
	}
	return holders
}
