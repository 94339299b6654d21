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

package dualstack_test

import (
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
	flannelcfg "podnetwork.io/operator/internal/adapters/flannel"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/netnode"
	"podnetwork.io/operator/test/framework/programs"
)

// flannelPodCIDRWait is what flanneld v0.28.10 logs when it exits on a
// node without podCIDRs (pkg/subnet/kube: AcquireLease); the kubelet
// restarts it with a back-off until NodeIPAM gives the node its blocks.
const flannelPodCIDRWait = "pod cidr not assigned"

// nodeHistory is what the recorded history says of one node.
type nodeHistory struct {
	// firstSeen is when the node was first recorded, cidrsAt when it was
	// first recorded with podCIDRs (which never change afterwards),
	// cordonedAt when it was first recorded unschedulable.
	firstSeen, cidrsAt, cordonedAt time.Time
	cidrs                          []netip.Prefix
	deleted                        bool
	// revisions are the podCIDRs of every recorded revision.
	revisions [][]netip.Prefix
}

func (h *nodeHistory) hasFamily(ipv6 bool) bool {
	return slices.ContainsFunc(h.cidrs, func(p netip.Prefix) bool { return p.Addr().Is6() == ipv6 })
}

// expectProgramHistory asserts, over the API history the suite recorded
// and the kubelet stand-in's record of every program it ran:
//
//   - no kube-proxy and no flanneld exited by itself, except flanneld
//     started on a node that had no podCIDRs yet (it exits "pod cidr not
//     assigned" and is restarted with a back-off until NodeIPAM assigns
//     them, as with a real kubelet: a node waiting under AllOrWait), and
//     kube-proxy on a machine being retired: cordoned by drain assist,
//     then replaced (kube-proxy exits when its Node is deleted);
//   - every flanneld the kubelet stopped ran on a machine the provider
//     replaced after drain assist deleted its Node, or was replaced by one
//     of the adapter's two rollouts of the conversion: EnableIPv6 (its pod
//     was of the template from before EnableIPv6, and it was stopped after
//     the ConfigMap enabled IPv6), then the one once every node announced
//     its IPv6 address (its pod was of the EnableIPv6 template, and it was
//     stopped after the template got flannel.PeersAnnotation);
//   - flannel's DaemonSet template changed three times only: when the
//     adapter adopted the configuration (before any node joined), for
//     EnableIPv6, and for the peers' announcement (the same configuration,
//     its hash with the mark); acknowledging the IPv6 range restarted
//     nothing;
//   - flannel acknowledged the IPv6 range as not carried (the last note
//     saying it waits for the peers' rollout) until that last rollout
//     started;
//   - no flanneld ever started with EnableIPv6 on a node without an IPv6
//     podCIDR, and the flanneld of every node at the end runs with it;
//   - no node that registered once familyPolicy was AllOrWait ever held
//     podCIDRs of one family alone.
func expectProgramHistory(events []framework.Event, runs []netnode.ContainerEvent, replaced []string) {
	nodes := map[string]*nodeHistory{}
	var allOrWaitAt, enabledAt time.Time
	var enabledHash string
	podHash := map[string]string{}    // flannel pod UID → the configuration hash of the template it was created from
	var markedAt, carriedAt time.Time // when flannel's template got the peers mark; when flannel first acknowledged IPv6 as carried
	var sawPeersNote bool             // flannel acknowledged IPv6 as waiting for the peers' rollout
	var flannelTexts []string
	var templateHashes []string
	cordoned, mostCordoned := map[string]bool{}, 0
	for _, ev := range events {
		switch o := ev.Object.(type) {
		case *corev1.Node:
			h := nodes[o.Name]
			if h == nil {
				h = &nodeHistory{firstSeen: ev.Time}
				nodes[o.Name] = h
			}
			if ev.Deleted {
				h.deleted = true
				delete(cordoned, o.Name)
				continue
			}
			if o.Spec.Unschedulable {
				cordoned[o.Name] = true
			} else {
				delete(cordoned, o.Name)
			}
			mostCordoned = max(mostCordoned, len(cordoned))
			var cidrs []netip.Prefix
			for _, c := range o.Spec.PodCIDRs {
				cidrs = append(cidrs, netip.MustParsePrefix(c))
			}
			h.revisions = append(h.revisions, cidrs)
			if o.Spec.Unschedulable && h.cordonedAt.IsZero() {
				h.cordonedAt = ev.Time
			}
			if len(cidrs) > 0 && h.cidrsAt.IsZero() {
				h.cidrsAt, h.cidrs = ev.Time, cidrs
			}
		case *v1alpha1.PodNetwork:
			if allOrWaitAt.IsZero() && o.Spec.Allocation.EffectiveFamilyPolicy() == v1alpha1.FamilyPolicyAllOrWait {
				allOrWaitAt = ev.Time
			}
		case *corev1.ConfigMap:
			if o.Name != programs.FlannelConfigMap || ev.Deleted {
				continue
			}
			text := o.Data[programs.FlannelKey]
			if len(flannelTexts) == 0 || flannelTexts[len(flannelTexts)-1] != text {
				flannelTexts = append(flannelTexts, text)
			}
			if enabledAt.IsZero() && ipv6Enabled(text) {
				enabledAt, enabledHash = ev.Time, adapters.ConfigHash(text)
			}
		case *corev1.Pod:
			if o.Namespace == programs.FlannelNamespace {
				podHash[string(o.UID)] = o.Annotations[rollout.ConfigHashAnnotation]
			}
		case *v1alpha1.PodNetworkConsumer:
			if o.Name != flannel {
				continue
			}
			for _, a := range o.Status.Ranges {
				if a.Name != "v6" || a.Result != v1alpha1.AckAccepted {
					continue
				}
				if strings.HasPrefix(a.Message, notCarried+" flannel runs with EnableIPv6") {
					sawPeersNote = true
				}
				if !strings.HasPrefix(a.Message, notCarried) && carriedAt.IsZero() {
					carriedAt = ev.Time
				}
			}
		case *appsv1.DaemonSet:
			if o.Name != programs.FlannelDaemonSet || ev.Deleted {
				continue
			}
			if markedAt.IsZero() && o.Spec.Template.Annotations[flannelcfg.PeersAnnotation] == flannelcfg.PeersAnnounced {
				markedAt = ev.Time
			}
			if h := rollout.TemplateHash(o); h != "" && (len(templateHashes) == 0 || templateHashes[len(templateHashes)-1] != h) {
				templateHashes = append(templateHashes, h)
			}
		}
	}
	Expect(allOrWaitAt.IsZero()).To(BeFalse(), "familyPolicy AllOrWait was recorded")
	Expect(enabledAt.IsZero()).To(BeFalse(), "flannel's EnableIPv6 was recorded")

	By("flannel's DaemonSet rolled out three times: adoption, EnableIPv6, then once every node announced its IPv6 address")
	Expect(flannelTexts).NotTo(BeEmpty())
	final := flannelTexts[len(flannelTexts)-1]
	peersHash := adapters.RolloutHash(final, map[string]string{flannelcfg.PeersAnnotation: flannelcfg.PeersAnnounced})
	Expect(templateHashes).To(Equal([]string{adapters.ConfigHash(flannelTexts[0]), adapters.ConfigHash(final), peersHash}),
		"net-conf.json revisions: %q", flannelTexts)
	Expect(enabledHash).To(Equal(adapters.ConfigHash(final)))
	Expect(markedAt.IsZero()).To(BeFalse(), "flannel's template got %s", flannelcfg.PeersAnnotation)

	By("flannel carried IPv6 only after the peers' rollout started, and said what it waited for")
	Expect(sawPeersNote).To(BeTrue(), "flannel acknowledged IPv6 as waiting for the peers' rollout")
	Expect(carriedAt.IsZero()).To(BeFalse(), "flannel acknowledged IPv6 as carried")
	Expect(carriedAt.After(markedAt)).To(BeTrue(), "IPv6 carried at %s, the peers' rollout started at %s", carriedAt, markedAt)

	By("drain assist cordoned one node at a time (maxUnavailable 1)")
	Expect(mostCordoned).To(Equal(1))

	By("nodes that joined under AllOrWait never held one family alone")
	Expect(nodes).To(HaveKey("node-w"))
	Expect(nodes["node-w"].firstSeen.After(allOrWaitAt)).To(BeTrue(), "node-w registered under AllOrWait, while the IPv6 range was Pending")
	Expect(nodes["node-w"].hasFamily(false) && nodes["node-w"].hasFamily(true)).To(BeTrue(), "node-w holds both families: %v", nodes["node-w"].cidrs)
	for name, h := range nodes {
		if h.firstSeen.Before(allOrWaitAt) {
			continue
		}
		for _, cidrs := range h.revisions {
			Expect(len(cidrs) == 0 || (len(cidrs) == 2 && cidrs[0].Addr().Is4() != cidrs[1].Addr().Is4())).To(BeTrue(),
				"node %s, registered under AllOrWait, held podCIDRs %v", name, cidrs)
		}
	}

	By("programs exited only while their node waited for podCIDRs, and flanneld stopped only for the rollout or a replaced machine")
	startedAt := map[string]time.Time{} // pod UID → start of its current run
	lastWithIPv6 := map[string]bool{}   // node → the last flanneld started there had EnableIPv6
	var waited, retired []string        // exits while the node had no podCIDRs, or was being replaced
	for _, r := range runs {
		uid := string(r.UID)
		h := nodes[r.Node]
		Expect(h).NotTo(BeNil(), "node %s of pod %s was recorded", r.Node, r.Pod)
		isFlannel := r.Container == programs.FlannelContainer
		switch r.Kind {
		case netnode.ContainerStarted:
			startedAt[uid] = r.At
			if isFlannel {
				lastWithIPv6[r.Node] = ipv6Enabled(r.ConfigMaps["flannel-cfg/"+programs.FlannelKey])
				if lastWithIPv6[r.Node] {
					Expect(h.hasFamily(true)).To(BeTrue(), "flanneld of %s started at %s with EnableIPv6 on node %s, whose podCIDRs are %v",
						r.Pod, r.At.Format(time.RFC3339Nano), r.Node, h.cidrs)
				}
			}
		case netnode.ContainerExited:
			log, _ := os.ReadFile(r.Log)
			what := r.Container + " on " + r.Node + " at " + r.At.Format(time.RFC3339Nano)
			retiring := !isFlannel && slices.Contains(replaced, r.Node) && h.deleted && !h.cordonedAt.IsZero() && r.At.After(h.cordonedAt)
			waiting := isFlannel && (h.cidrsAt.IsZero() || h.cidrsAt.After(startedAt[uid])) &&
				strings.Contains(string(log), flannelPodCIDRWait)
			Expect(waiting || retiring).To(BeTrue(), "%s of %s on node %s exited by itself at %s (%s): %s",
				r.Container, r.Pod, r.Node, r.At.Format(time.RFC3339Nano), r.Message, lastLines(string(log), 5))
			if retiring {
				retired = append(retired, what)
			} else {
				waited = append(waited, what)
			}
		case netnode.ContainerStopped:
			if !isFlannel {
				continue
			}
			machineReplaced := slices.Contains(replaced, r.Node) && h.deleted
			// A pod of the template from before EnableIPv6, stopped
			// after it: the DaemonSet controller replaced it.
			rolledOut := podHash[uid] != enabledHash && podHash[uid] != peersHash && r.At.After(enabledAt)
			// The adapter's rollout once every node announced its IPv6
			// address: a pod of the EnableIPv6 template, stopped after
			// the template got the mark.
			peersRolledOut := podHash[uid] == enabledHash && r.At.After(markedAt)
			Expect(machineReplaced || rolledOut || peersRolledOut).To(BeTrue(),
				"flanneld of %s on node %s was stopped at %s, neither on a replaced machine nor by the EnableIPv6 rollout (EnableIPv6 at %s) and the peers' rollout after it (at %s)",
				r.Pod, r.Node, r.At.Format(time.RFC3339Nano), enabledAt.Format(time.RFC3339Nano), markedAt.Format(time.RFC3339Nano))
		}
	}
	for _, n := range nodeNames() {
		Expect(lastWithIPv6).To(HaveKeyWithValue(n, true), "flanneld on node %s runs with EnableIPv6", n)
	}
	AddReportEntry("flanneld exits on nodes waiting for their podCIDRs", waited)
	AddReportEntry("kube-proxy exits on machines being replaced (cordoned, then deleted)", retired)
}

func ipv6Enabled(text string) bool {
	c, err := flannelcfg.Parse(text)
	return err == nil && c.IPv6Enabled()
}

func lastLines(s string, n int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(all[max(0, len(all)-n):], "\n")
}
