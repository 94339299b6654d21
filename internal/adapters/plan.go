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

package adapters

import "strings"

// NotCarriedPrefix starts the message of an acknowledgement that accepts a
// range the component does not carry yet (Plan.NotCarried): the range may
// go on, nothing breaks while nodes and pods use its addresses, but the
// component's configuration does not hold it (flannel keeps IPv6 off
// until no node can lack an IPv6 podCIDR). docs/protocol.md.
const NotCarriedPrefix = "Accepted, not carried yet: "

// IsNotCarried reports whether an acknowledgement's message says the range
// is accepted but not carried yet.
func IsNotCarried(message string) bool { return strings.HasPrefix(message, NotCarriedPrefix) }

// Plan is what a component package (kubeproxy, flannel) decided for the
// component's current configuration.
type Plan struct {
	// RangeIndependent, when not empty, says why the component's
	// configuration does not depend on the pod ranges. The adapter then
	// writes nothing, restarts nothing and acknowledges every phase at once
	// with this message.
	RangeIndependent string
	// Config is the desired content of the ConfigMap key: the current content
	// with the managed fields set. It equals the current content when nothing
	// has to change.
	Config string
	// Summary names the managed values for messages, for example
	// "clusterCIDR 10.244.0.0/15".
	Summary string
	// Decision holds the covering prefixes, the rejected Pending ranges and
	// the problems to report.
	Decision Decision
	// Invalid, when not empty, says which value of the current
	// configuration the component refuses (so it cannot start with it);
	// Config replaces it.
	Invalid string
	// NotCarried maps the name of every range the component accepts
	// without carrying its traffic yet (flannel keeps an IPv6 range out
	// of a cluster that still runs IPv4 only) to the note its
	// acknowledgement starts with: NotCarriedPrefix, then what it waits
	// for (docs/protocol.md).
	NotCarried map[string]string
	// Note, when not empty, says the same once, for the Ready condition.
	Note string
	// Template are the marks the component's rollout carries: pod-template
	// annotations of its DaemonSet, by key, set beside the configuration
	// hash; an empty value means the annotation must be absent. The hash
	// covers them (RolloutHash), so a rollout proves that every pod
	// started with them. A change of the configuration rolls out with the
	// marks at once; a change of the marks alone waits until every pod
	// runs the current template and, with a Descriptor.Proof, every node
	// proved it, then rolls the pods out once more (flannel's
	// "peers announced" rollout). The acknowledgements describe the
	// configuration with these marks: they wait for that rollout too.
	Template map[string]string
}
