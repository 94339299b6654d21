package adapters_test

import (
	"context"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"sync"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	adapterctrl "podnetwork.io/operator/controllers/adapters"
	"podnetwork.io/operator/internal/adapters"
	flannelcfg "podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/adapters/rollout"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// history records every change of the PodNetwork, the adapters'
// PodNetworkConsumers, the two ConfigMaps and the pods of the two namespaces,
// ordered by resourceVersion (one etcd has one global revision counter), so
// the adapters' promises can be checked on everything that happened, not
// only on the final state.
type history struct {
	mu     sync.Mutex
	events []event
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type event struct {
	rv      int64
	obj     client.Object
	deleted bool
}

// component is one adapter's view for the checks.
type component struct {
	consumer, namespace, configMap, key, daemonSet string
	// covers returns the prefixes the configuration text holds, and false
	// when the text does not depend on ranges or cannot be read.
	covers func(text string) ([]netip.Prefix, bool)
}

var components = []component{
	{adapterctrl.KubeProxyConsumerName, kubeProxyNamespace, kubeProxyName, kubeProxyKey, kubeProxyName, kubeProxyCovers},
	{adapterctrl.FlannelConsumerName, flannelNamespace, flannelConfigMap, flannelKey, flannelDaemonSet, flannelCovers},
}

func recordHistory() *history {
	wc, err := client.NewWithWatch(testCluster.Config, client.Options{Scheme: k8sClient.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	h := &history{}
	wctx, cancel := context.WithCancel(ctx)
	h.cancel = cancel
	for _, list := range []client.ObjectList{&v1alpha1.PodNetworkList{}, &v1alpha1.PodNetworkConsumerList{}, &corev1.ConfigMapList{}, &corev1.PodList{}} {
		w, err := wc.Watch(wctx, list)
		Expect(err).NotTo(HaveOccurred())
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			defer w.Stop()
			for ev := range w.ResultChan() {
				obj, ok := ev.Object.(client.Object)
				if !ok || ev.Type == watch.Error || ev.Type == watch.Bookmark {
					continue
				}
				rv, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
				if err != nil {
					continue
				}
				h.mu.Lock()
				h.events = append(h.events, event{rv: rv, obj: obj, deleted: ev.Type == watch.Deleted})
				h.mu.Unlock()
			}
		}()
	}
	return h
}

// check asserts, over the recorded history:
//
//   - whenever an adapter wrote a new Accepted acknowledgement, every pod of
//     its DaemonSet (terminating ones included) carried
//     the hash of the configuration the ConfigMap held at that revision, and
//     for every phase but Released that configuration covered the range;
//   - at every revision of a ConfigMap, its configuration covered every
//     range that was Active or Draining at that revision: a configuration
//     shrinks only once the lifecycle has Released a range.
//
// kube-proxy in a range-independent mode and unparseable texts are skipped:
// the adapter acknowledges without a rollout, or not at all.
func (h *history) check() {
	h.mu.Lock()
	events := append([]event(nil), h.events...)
	h.mu.Unlock()
	sort.SliceStable(events, func(i, j int) bool { return events[i].rv < events[j].rv })

	var ranges []v1alpha1.RangeStatus
	texts := map[string]string{}                        // consumer → configuration text
	pods := map[string]map[string]*corev1.Pod{}         // daemonSet → pod name → pod
	acks := map[string][]v1alpha1.ConsumerRangeStatus{} // consumer → acknowledgements
	for _, c := range components {
		pods[c.daemonSet] = map[string]*corev1.Pod{}
	}
	for _, ev := range events {
		switch o := ev.obj.(type) {
		case *v1alpha1.PodNetwork:
			ranges = o.Status.Ranges
		case *corev1.Pod:
			for _, c := range components {
				ref := o.OwnerReferences
				if o.Namespace == c.namespace && len(ref) == 1 && ref[0].Name == c.daemonSet {
					if ev.deleted {
						delete(pods[c.daemonSet], o.Name)
					} else {
						pods[c.daemonSet][o.Name] = o
					}
				}
			}
		case *corev1.ConfigMap:
			for _, c := range components {
				if o.Namespace != c.namespace || o.Name != c.configMap {
					continue
				}
				texts[c.consumer] = o.Data[c.key]
				covered, ok := c.covers(texts[c.consumer])
				if !ok {
					continue
				}
				for _, rs := range ranges {
					if rs.Phase == v1alpha1.RangePhaseActive || rs.Phase == v1alpha1.RangePhaseDraining {
						Expect(coversRange(covered, rs.CIDR)).To(BeTrue(),
							"at revision %d the %s configuration %q no longer covered %s range %s (%s)", ev.rv, c.consumer, texts[c.consumer], rs.Phase, rs.Name, rs.CIDR)
					}
				}
			}
		case *v1alpha1.PodNetworkConsumer:
			for _, c := range components {
				if o.Name != c.consumer {
					continue
				}
				for _, a := range o.Status.Ranges {
					if a.Result != v1alpha1.AckAccepted || contains(acks[c.consumer], a) {
						continue
					}
					covered, ok := c.covers(texts[c.consumer])
					if !ok {
						continue
					}
					hash := adapters.ConfigHash(texts[c.consumer])
					// Not one pod per node: a node that joined after the
					// DaemonSet controller last counted has no pod yet, and
					// its pod will start from the current template.
					for _, p := range pods[c.daemonSet] {
						Expect(p.Annotations[rollout.ConfigHashAnnotation]).To(Equal(hash),
							"at revision %d %s accepted %s of %s while pod %s ran another configuration", ev.rv, c.consumer, a.Phase, a.Name, p.Name)
					}
					if a.Phase != v1alpha1.RangePhaseReleased {
						Expect(coversRange(covered, a.CIDR)).To(BeTrue(), "at revision %d %s accepted %s of %s with configuration %q",
							ev.rv, c.consumer, a.Phase, a.Name, texts[c.consumer])
					}
				}
				acks[c.consumer] = o.Status.Ranges
			}
		}
	}
}

func (h *history) stop() {
	h.cancel()
	h.wg.Wait()
}

func contains(acks []v1alpha1.ConsumerRangeStatus, a v1alpha1.ConsumerRangeStatus) bool {
	for _, b := range acks {
		if b.Name == a.Name && b.CIDR == a.CIDR && b.Phase == a.Phase && b.Result == a.Result {
			return true
		}
	}
	return false
}

func coversRange(covered []netip.Prefix, cidr string) bool {
	p := netip.MustParsePrefix(cidr)
	for _, c := range covered {
		if c.Bits() <= p.Bits() && c.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

func kubeProxyCovers(text string) ([]netip.Prefix, bool) {
	cfg, err := kubeproxy.Parse(text)
	if err != nil || (cfg.DetectLocalMode != "" && cfg.DetectLocalMode != kubeproxy.ModeClusterCIDR) {
		return nil, false
	}
	var out []netip.Prefix
	for _, s := range strings.Split(cfg.ClusterCIDR, ",") {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p)
		}
	}
	return out, true
}

func flannelCovers(text string) ([]netip.Prefix, bool) {
	c, err := flannelcfg.Parse(text)
	if err != nil {
		return nil, false
	}
	var out []netip.Prefix
	for _, s := range []string{c.Network, c.IPv6Network} {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p)
		}
	}
	return out, true
}
