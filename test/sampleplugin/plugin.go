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

// Package sampleplugin is a third-party consumer written the way
// docs/protocol.md tells a plugin author to write one. It is its own module
// and imports only the API module (podnetwork.io/operator/api) and the
// consumer client (podnetwork.io/operator/api/consumer), plus
// controller-runtime to run: that it builds and passes its tests proves a
// plugin needs nothing from the operator's module.
//
// Its "dataplane" is a set of CIDRs in memory, which a real plugin would
// turn into routes or rules on every node.
package sampleplugin

import (
	"context"
	"net/netip"
	"sync"

	ctrl "sigs.k8s.io/controller-runtime"

	"podnetwork.io/operator/api/consumer"
	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Name is the plugin's PodNetworkConsumer and field manager.
const Name = "sample-plugin"

// Plugin routes the pod network's IPv4 ranges; it cannot route IPv6.
type Plugin struct {
	mu     sync.Mutex
	routes map[string]bool // the CIDRs configured
}

// SetupWithManager runs the plugin as a consumer.Reconciler, which registers
// it (required) and acknowledges what Applied says.
func (p *Plugin) SetupWithManager(mgr ctrl.Manager) error {
	return (&consumer.Reconciler{
		Client:      mgr.GetClient(),
		Name:        Name,
		Required:    true,
		Description: "sample plugin (test/sampleplugin): routes IPv4 pod ranges",
		Configure:   p.configure,
		Applied:     p.applied,
	}).SetupWithManager(mgr)
}

// configure makes the routes exactly the desired ranges.
func (p *Plugin) configure(_ context.Context, desired, _ []v1alpha1.RangeStatus) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.routes = map[string]bool{}
	for _, rs := range desired {
		if routable(rs) {
			p.routes[rs.CIDR] = true
		}
	}
	return nil
}

// applied accepts a phase once the routes show it, and rejects an IPv6
// range while it is Pending.
func (p *Plugin) applied(_ context.Context, rs v1alpha1.RangeStatus) (v1alpha1.AckResult, string, error) {
	if !routable(rs) {
		if rs.Phase == v1alpha1.RangePhasePending {
			return v1alpha1.AckRejected, "sample-plugin routes IPv4 only; remove " + rs.CIDR + " or use another plugin", nil
		}
		return v1alpha1.AckAccepted, "never routed", nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.routes[rs.CIDR] == (rs.Phase != v1alpha1.RangePhaseReleased) {
		return v1alpha1.AckAccepted, "routed on every node", nil
	}
	return "", "", nil
}

// Routes returns the CIDRs configured.
func (p *Plugin) Routes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for c := range p.routes {
		out = append(out, c)
	}
	return out
}

func routable(rs v1alpha1.RangeStatus) bool {
	pfx, err := netip.ParsePrefix(rs.CIDR)
	return err == nil && pfx.Addr().Is4()
}
