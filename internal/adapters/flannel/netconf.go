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
	"encoding/json"
	"fmt"
	"net/netip"
)

// DefaultConfigMapKey is the key of the kube-flannel-cfg ConfigMap that holds
// flannel's network configuration.
const DefaultConfigMapKey = "net-conf.json"

// NetConf is the part of net-conf.json the adapter reads. Like flanneld,
// Parse decodes it with encoding/json: keys match case-insensitively and
// unknown keys are ignored.
type NetConf struct {
	Network     string
	IPv6Network string
	EnableIPv4  *bool
	EnableIPv6  *bool
	Backend     json.RawMessage
}

// IPv4Enabled reports whether flannel runs IPv4 (EnableIPv4 defaults to true).
func (c *NetConf) IPv4Enabled() bool { return c.EnableIPv4 == nil || *c.EnableIPv4 }

// IPv6Enabled reports whether flannel runs IPv6 (EnableIPv6 defaults to
// false).
func (c *NetConf) IPv6Enabled() bool { return c.EnableIPv6 != nil && *c.EnableIPv6 }

// Parse decodes net-conf.json and checks what flanneld would check of the
// fields the adapter relies on: a JSON object, Network an IPv4 prefix,
// IPv6Network an IPv6 prefix, a decodable Backend, and no managed key given
// twice (encoding/json would silently take the last one).
func Parse(text string) (*NetConf, error) {
	obj, err := parseObject(text)
	if err != nil {
		return nil, err
	}
	for _, key := range managedKeys {
		if _, err := obj.find(key); err != nil {
			return nil, err
		}
	}
	var c NetConf
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		return nil, fmt.Errorf("decoding net-conf.json: %w", err)
	}
	if err := checkPrefix("Network", c.Network, true); err != nil {
		return nil, err
	}
	if err := checkPrefix("IPv6Network", c.IPv6Network, false); err != nil {
		return nil, err
	}
	if len(c.Backend) > 0 {
		var b struct{ Type string }
		if err := json.Unmarshal(c.Backend, &b); err != nil {
			return nil, fmt.Errorf("decoding Backend of net-conf.json: %w", err)
		}
	}
	return &c, nil
}

func checkPrefix(field, s string, ipv4 bool) error {
	if s == "" {
		return nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return fmt.Errorf("%s %q in net-conf.json is not a prefix: %w", field, s, err)
	}
	if p.Addr().Is4() != ipv4 {
		return fmt.Errorf("%s %q in net-conf.json has the wrong IP family", field, s)
	}
	return nil
}
