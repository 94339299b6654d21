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

package realconfig

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/flannel-io/flannel/pkg/subnet"

	adapterflannel "podnetwork.io/operator/internal/adapters/flannel"
)

// checkFlannel loads net-conf.json with flannel and checks that the
// adapter reads the same networks from it.
func checkFlannel(t *testing.T, _, text string) error {
	cfg, err := loadFlannel(text)
	if err != nil {
		return err
	}
	ours, err := adapterflannel.Parse(text)
	if err != nil {
		t.Errorf("flannel loads the file but the adapter's Parse refuses it: %v", err)
		return nil
	}
	runs := flannelNetworks{
		IPv4: cfg.EnableIPv4, IPv6: cfg.EnableIPv6,
		Network:     prefixOf(cfg.Network.Empty(), cfg.Network.String()),
		IPv6Network: prefixOf(cfg.IPv6Network.Empty(), cfg.IPv6Network.String()),
	}
	reads := flannelNetworks{
		IPv4: ours.IPv4Enabled(), IPv6: ours.IPv6Enabled(),
		Network:     prefixOf(ours.Network == "", ours.Network),
		IPv6Network: prefixOf(ours.IPv6Network == "", ours.IPv6Network),
	}
	if runs != reads {
		t.Errorf("flannel runs %+v, the adapter reads %+v", runs, reads)
	}
	return nil
}

// flannelNetworks is what flanneld and the adapter must agree on.
type flannelNetworks struct {
	IPv4, IPv6           bool
	Network, IPv6Network netip.Prefix
}

// prefixOf parses a network. flannel masks host bits (10.244.1.0/16 runs as
// 10.244.0.0/16) and the adapter keeps the text, so comparing parsed
// prefixes catches a value the two would read differently.
func prefixOf(empty bool, s string) netip.Prefix {
	if empty {
		return netip.Prefix{}
	}
	p, _ := netip.ParsePrefix(s)
	return p
}

// loadFlannel runs flannel v0.28.10's own parser on net-conf.json, then
// checks the one condition flanneld --kube-subnet-mgr applies to the file
// alone when a node asks for its lease (AcquireLease in
// pkg/subnet/kube/kube.go): an enabled family must have its network, or
// every node with a podCIDR of that family fails to start. Whether a
// node's podCIDR lies inside the network is the adapters' integration
// tests' business, since it depends on the nodes.
func loadFlannel(text string) (*subnet.Config, error) {
	cfg, err := subnet.ParseConfig(text)
	if err != nil {
		return nil, fmt.Errorf("subnet.ParseConfig: %w", err)
	}
	if cfg.EnableIPv4 && cfg.Network.Empty() {
		return nil, errors.New("EnableIPv4 is true (the default) but Network is empty: " +
			"flanneld fails AcquireLease on every node with an IPv4 podCIDR")
	}
	if cfg.EnableIPv6 && cfg.IPv6Network.Empty() {
		return nil, errors.New("EnableIPv6 is true but IPv6Network is empty: " +
			"flanneld fails AcquireLease on every node with an IPv6 podCIDR")
	}
	return cfg, nil
}
