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

package adapters_test

import (
	"net/netip"
	"strings"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	flannelcfg "podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/kubeproxy"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/test/framework"
)

// component is one adapter's view for the checks.
type component struct {
	consumer, namespace, configMap, key, daemonSet string
	// covers returns the prefixes the configuration text holds, and false
	// when the text does not depend on ranges or cannot be read.
	covers func(text string) ([]netip.Prefix, bool)
}

var components = []component{
	{kubeproxy.Name, kubeProxyNamespace, kubeProxyName, kubeProxyKey, kubeProxyName, kubeProxyCovers},
	{flannelcfg.Name, flannelNamespace, flannelConfigMap, flannelKey, flannelDaemonSet, flannelCovers},
}

// expectAdapterPromises asserts, over the recorded history of the
// PodNetwork, the adapters' PodNetworkConsumers, the two ConfigMaps and the
// pods of the two namespaces:
//
//   - whenever an adapter wrote a new Accepted acknowledgement, every pod of
//     its DaemonSet (terminating ones included) carried
//     the hash of the configuration the ConfigMap held at that revision, and
//     for every phase but Released that configuration covered the range;
//   - at every revision of a ConfigMap, its configuration covered every
//     range that was Active or Draining at that revision: a configuration
//     shrinks only once the lifecycle has Released a range.
//
// A range the adapter last accepted as not carried yet
// (adapters.IsNotCarried: flannel accepts an IPv6 range while it keeps
// IPv6 off) is exempt from both coverage checks until it accepts it
// otherwise; the pods must still run the current configuration.
//
// kube-proxy in a range-independent mode, unparseable texts and a
// clusterCIDR kube-proxy refuses (which a spec writes to see it replaced)
// are skipped: the adapter acknowledges without a rollout, or not at all.
func expectAdapterPromises(events []framework.Event) {

	var ranges []v1alpha1.RangeStatus
	texts := map[string]string{}                        // consumer → configuration text
	pods := map[string]map[string]*corev1.Pod{}         // daemonSet → pod name → pod
	acks := map[string][]v1alpha1.ConsumerRangeStatus{} // consumer → acknowledgements
	notCarried := func(consumer, rangeName string) bool {
		for _, a := range acks[consumer] {
			if a.Name == rangeName && a.Result == v1alpha1.AckAccepted && adapters.IsNotCarried(a.Message) {
				return true
			}
		}
		return false
	}
	for _, c := range components {
		pods[c.daemonSet] = map[string]*corev1.Pod{}
	}
	for _, ev := range events {
		switch o := ev.Object.(type) {
		case *v1alpha1.PodNetwork:
			ranges = o.Status.Ranges
		case *corev1.Pod:
			for _, c := range components {
				ref := o.OwnerReferences
				if o.Namespace == c.namespace && len(ref) == 1 && ref[0].Name == c.daemonSet {
					if ev.Deleted {
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
					if (rs.Phase == v1alpha1.RangePhaseActive || rs.Phase == v1alpha1.RangePhaseDraining) && !notCarried(c.consumer, rs.Name) {
						Expect(coversRange(covered, rs.CIDR)).To(BeTrue(),
							"at revision %d the %s configuration %q no longer covered %s range %s (%s)", ev.RV, c.consumer, texts[c.consumer], rs.Phase, rs.Name, rs.CIDR)
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
					// Not one pod per node: a node that joined after the
					// DaemonSet controller last counted has no pod yet, and
					// its pod will start from the current template.
					for _, p := range pods[c.daemonSet] {
						// The hash covers the configuration and the marks
						// the pod started with (flannel's peers mark).
						hash := adapters.RolloutHash(texts[c.consumer], map[string]string{flannelcfg.PeersAnnotation: p.Annotations[flannelcfg.PeersAnnotation]})
						Expect(p.Annotations[rollout.ConfigHashAnnotation]).To(Equal(hash),
							"at revision %d %s accepted %s of %s while pod %s ran another configuration", ev.RV, c.consumer, a.Phase, a.Name, p.Name)
					}
					if a.Phase != v1alpha1.RangePhaseReleased && !adapters.IsNotCarried(a.Message) {
						Expect(coversRange(covered, a.CIDR)).To(BeTrue(), "at revision %d %s accepted %s of %s with configuration %q",
							ev.RV, c.consumer, a.Phase, a.Name, texts[c.consumer])
					}
				}
				acks[c.consumer] = o.Status.Ranges
			}
		}
	}
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
	if kubeproxy.CheckClusterCIDR(cfg.ClusterCIDR) != nil {
		return nil, false // kube-proxy would not start with it: a spec wrote it, the adapter replaces it
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
