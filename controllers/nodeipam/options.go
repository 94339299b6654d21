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
	"flag"
	"fmt"
	"net/http"
	"time"

	"k8s.io/utils/clock"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	nodeipamcore "podnetwork.io/operator/internal/nodeipam"
)

// Options configures the built-in NodeIPAM.
type Options struct {
	// Enabled runs the NodeIPAM controller and its PodNetworkConsumer.
	Enabled bool

	// Workers is the number of nodes allocated in parallel. The allocator
	// itself is serialized in memory; workers overlap the node PATCHes,
	// which the client's QPS and burst bound in the end.
	Workers int

	// EventBackoff and MaxEventBackoff bound CIDRNotAvailable events: one per
	// node at first, then after EventBackoff, doubling up to MaxEventBackoff.
	// A node without a block is retried at the same pace, and at once when a
	// range or a freed block may help.
	EventBackoff    time.Duration
	MaxEventBackoff time.Duration

	// StatusInterval is the shortest time between two writes of the
	// PodNetwork status fields NodeIPAM owns, so node churn does not turn
	// into a write per node.
	StatusInterval time.Duration

	// PrimaryIPFamily is the family listed first in the podCIDRs of a
	// dual-stack node (node.spec.podCIDR is that one).
	PrimaryIPFamily string

	// RecordNamespace holds the ConfigMap RecordName, the issued-block
	// record. Empty: the leader-election namespace, else the pod's own
	// (controllers.Run resolves it).
	RecordNamespace string

	// RebuildCacheWait is how long the start-up rebuild waits for the node
	// cache to catch up with a quorum read made after this replica became
	// the leader before it lists every node from the API server instead;
	// 0 always lists. The rebuild first asks the API server which node
	// writes the cache still lacks (rebuilder.probeWrites), so it waits only
	// for those.
	RebuildCacheWait time.Duration

	// FenceWrites, when set, wraps an HTTP client so that its writes pass
	// the lease's write fence (controllers.Run sets it under leader
	// election): the podCIDR patches do not go through the manager's
	// client, which is fenced already.
	FenceWrites func(*http.Client) *http.Client

	// Clock defaults to the real clock; tests inject a fake one.
	Clock clock.Clock
}

// DefaultWorkers is kube-controller-manager's cidrUpdateWorkers: the
// operator replaces its NodeIPAM, so the apiserver sees no more node PATCHes
// in flight than before. Fewer (16 until issue 16) left nodes of a burst
// queueing for a worker while the client limits allowed more; API Priority
// and Fairness keeps the rest of the cluster's requests apart from these
// (docs/nodeipam.md, "Parallel workers").
const DefaultWorkers = 30

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{
		Enabled:          true,
		Workers:          DefaultWorkers,
		EventBackoff:     nodeipamcore.DefaultEventBackoff,
		MaxEventBackoff:  nodeipamcore.DefaultMaxEventBackoff,
		StatusInterval:   5 * time.Second,
		PrimaryIPFamily:  string(podnetworkv1alpha1.IPv4),
		RebuildCacheWait: DefaultRebuildCacheWait,
	}
}

// DefaultRebuildCacheWait bounds what the wait for the node cache adds to
// a fail-over.
const DefaultRebuildCacheWait = 10 * time.Second

// BindFlags registers the NodeIPAM flags.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Enabled, "enable-node-ipam", o.Enabled,
		"Run the built-in multi-range NodeIPAM, which assigns node.spec.podCIDRs from Active ranges. Turn off kube-controller-manager's --allocate-node-cidrs when it runs.")
	fs.IntVar(&o.Workers, "node-ipam-workers", o.Workers,
		"Number of nodes NodeIPAM allocates podCIDRs for in parallel.")
	fs.DurationVar(&o.EventBackoff, "node-ipam-event-backoff", o.EventBackoff,
		"Time between the first two CIDRNotAvailable events of a node; it doubles after every event.")
	fs.DurationVar(&o.MaxEventBackoff, "node-ipam-max-event-backoff", o.MaxEventBackoff,
		"Longest time between two CIDRNotAvailable events of a node.")
	fs.DurationVar(&o.StatusInterval, "node-ipam-status-interval", o.StatusInterval,
		"Shortest time between two writes of the usage and quarantine NodeIPAM reports in the PodNetwork status.")
	fs.StringVar(&o.PrimaryIPFamily, "node-ipam-primary-ip-family", o.PrimaryIPFamily,
		"IP family listed first in the podCIDRs of dual-stack nodes: IPv4 or IPv6.")
	fs.DurationVar(&o.RebuildCacheWait, "node-ipam-rebuild-cache-wait", o.RebuildCacheWait,
		"Longest time the rebuild of a new leader waits for the node cache to catch up with the API server before it lists every node again instead; 0 always lists.")
	fs.StringVar(&o.RecordNamespace, "node-ipam-record-namespace", o.RecordNamespace,
		"Namespace of the ConfigMap "+RecordName+", NodeIPAM's record of the blocks it handed out; defaults to --leader-election-namespace, else the pod's namespace.")
}

// validate checks the options that have no safe fallback.
func (o *Options) validate() error {
	if o.RecordNamespace == "" {
		return fmt.Errorf("NodeIPAM needs a namespace for its issued-block record: set --node-ipam-record-namespace or --leader-election-namespace")
	}
	if o.Workers < 1 {
		return fmt.Errorf("--node-ipam-workers must be at least 1, got %d", o.Workers)
	}
	switch podnetworkv1alpha1.IPFamily(o.PrimaryIPFamily) {
	case podnetworkv1alpha1.IPv4, podnetworkv1alpha1.IPv6:
	default:
		return fmt.Errorf("--node-ipam-primary-ip-family must be IPv4 or IPv6, got %q", o.PrimaryIPFamily)
	}
	return nil
}
