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

package flannel

import (
	"fmt"
	"slices"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/adapters/rollout"
	"podnetwork.io/operator/internal/cidr"
	"podnetwork.io/operator/internal/slimnode"
)

// flanneld (v0.28.10, pkg/subnet/kube: handleUpdateLeaseEvent) ignores a
// Node update that changes only the node's IPv6 annotations, and learns
// another node's IPv6 lease only from the list it reads at start or from
// an update that changes more. When EnableIPv6 is turned on in a running
// cluster, the rollout restarts flanneld on every node almost at once;
// each lists the nodes before the others have announced their IPv6 address
// (slimnode.FlannelPublicIPv6Annotation), so it never routes to their
// IPv6 blocks. One more restart, once every node announces it, fixes
// that. Nodes that join later need nothing: a new node's annotations
// appear together.
//
// The adapter marks the rollout that follows every node's announcement:
// PeersAnnotation=PeersAnnounced on the DaemonSet's pod template, covered
// by the configuration hash (adapters.RolloutHash). The mark is state in
// the API, so a restarted operator neither repeats nor forgets that
// rollout.

const (
	// PeersAnnotation, on flannel's pod template and so on every pod of
	// it, says whether its flanneld started once every node running
	// flannel had announced its IPv6 address.
	PeersAnnotation = "podnetwork.io/flannel-ipv6-peers"
	// PeersAnnounced is PeersAnnotation's only value.
	PeersAnnounced = "announced"
)

// ipv6Peers decides PeersAnnotation for the configuration conf (the one
// Plan writes) and the pod template in.Template. Nothing while IPv6 is
// off. PeersAnnounced once the template carries it, or is unknown (nil):
// a mark is never taken back while IPv6 stays on, since the nodes that
// join later need nothing. PeersAnnounced as well once every node running
// flannel announces its address of every enabled family: a rollout of a
// changed configuration then carries the mark at once, with no extra
// restart; otherwise the mark alone rolls the pods out once more, after
// the running rollout and its proof (adapters.Plan.Template).
//
// waiting is not empty while the template does not carry the mark: IPv6 is
// not carried until the pods run with it, and waiting says what for, the
// nodes that do not announce yet or the rollout of the mark.
func ipv6Peers(conf *NetConf, in adapters.Input) (mark, waiting string) {
	if !conf.IPv6Enabled() {
		return "", ""
	}
	if in.Template == nil || in.Template[PeersAnnotation] == PeersAnnounced {
		// nil: the caller does not know the template (the kubectl
		// plugin's prediction), which is then taken as marked.
		return PeersAnnounced, ""
	}
	families, annotations := []string{cidr.IPv6}, slimnode.FlannelPublicIPv6Annotation
	if conf.IPv4Enabled() {
		families, annotations = append(families, cidr.IPv4), annotations+", "+slimnode.FlannelPublicIPAnnotation
	}
	var silent []string
	for _, n := range in.RunningOn {
		for _, f := range families {
			if _, lacks := slices.BinarySearch(in.Unannounced[f], n); lacks {
				silent = append(silent, n)
				break
			}
		}
	}
	if len(silent) == 0 {
		return PeersAnnounced, "the rollout that restarts flanneld once more, every node running flannel announcing its addresses now"
	}
	return "", fmt.Sprintf("%d nodes running flannel to announce their addresses (%s): %s", len(silent),
		annotations, rollout.List(silent))
}

// peersNote is how an IPv6 range is acknowledged while EnableIPv6 is on
// but the mark waits: what it means and what the adapter waits for.
func peersNote(waiting string) string {
	return adapters.NotCarriedPrefix + "flannel runs with EnableIPv6, but a flanneld started before another node announced its IPv6 " +
		"address never learns that node's IPv6 lease (flanneld ignores a Node update that changes only its IPv6 annotations), " +
		"so it has no route to that node's IPv6 block. The adapter restarts flannel's DaemonSet once more (" + PeersAnnotation + "=" +
		PeersAnnounced + ") once every node running flannel announces its addresses; flannel carries IPv6 once that rollout is done, " +
		"when every flanneld has learnt its peers' IPv6 addresses. Waiting for: " + waiting
}
