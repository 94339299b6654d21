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

package kubeproxy

import (
	"fmt"
	"net/netip"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	"podnetwork.io/operator/internal/adapters"
	"podnetwork.io/operator/internal/cidr"
)

// Rules are the adapter rules for kube-proxy: one clusterCIDR prefix per
// family, covering the desired ranges only.
var Rules = adapters.Rules{Subject: "kube-proxy's clusterCIDR"}

// Plan decides kube-proxy's configuration file for the current ranges. In
// detectLocalMode ClusterCIDR (or unset) clusterCIDR becomes the covering
// prefixes of the accepted ranges, and a current clusterCIDR kube-proxy
// refuses (CheckClusterCIDR) is reported in Invalid; in the other modes,
// where kube-proxy does not read clusterCIDR, nothing changes and Plan says
// why. current must parse as a KubeProxyConfiguration.
func Plan(current string, in adapters.Input) (adapters.Plan, error) {
	cfg, err := Parse(current)
	if err != nil {
		return adapters.Plan{}, err
	}
	why, err := rangeIndependent(cfg)
	if err != nil {
		return adapters.Plan{}, err
	}
	if why != "" {
		return adapters.Plan{RangeIndependent: why, Config: current}, nil
	}
	d := adapters.Decide(in, Rules)
	value := ClusterCIDR(d.Covering)
	out, err := SetClusterCIDR(current, value)
	if err != nil {
		return adapters.Plan{}, err
	}
	summary := "clusterCIDR " + value
	if value == "" {
		summary = `clusterCIDR ""`
	}
	plan := adapters.Plan{Config: out, Summary: summary, Decision: d}
	if err := CheckClusterCIDR(cfg.ClusterCIDR); err != nil {
		plan.Invalid = fmt.Sprintf("clusterCIDR %q is refused by kube-proxy, which exits at start: %v", cfg.ClusterCIDR, err)
	}
	return plan, nil
}

// ClusterCIDR formats covering prefixes the way kube-proxy reads them: IPv4
// first, comma-separated, no spaces (kube-proxy does not trim them).
func ClusterCIDR(covering map[string]netip.Prefix) string {
	var parts []string
	for _, family := range []string{cidr.IPv4, cidr.IPv6} {
		if p, ok := covering[family]; ok {
			parts = append(parts, p.String())
		}
	}
	return strings.Join(parts, ",")
}

// SetClusterCIDR returns text with clusterCIDR set to value and every other
// byte unchanged. It returns text itself when clusterCIDR already holds value,
// and checks the result: parsed again, it must differ from text in
// clusterCIDR only.
func SetClusterCIDR(text, value string) (string, error) {
	before, err := Parse(text)
	if err != nil {
		return "", err
	}
	if before.ClusterCIDR == value {
		return text, nil
	}
	out, err := setTopLevelScalar(text, "clusterCIDR", value)
	if err != nil {
		return "", fmt.Errorf("setting clusterCIDR: %w", err)
	}
	after, err := Parse(out)
	if err != nil {
		return "", fmt.Errorf("setting clusterCIDR produced an unparseable file: %w", err)
	}
	want := before.DeepCopy()
	want.ClusterCIDR = value
	if !equality.Semantic.DeepEqual(want, after) {
		return "", fmt.Errorf("setting clusterCIDR in place would change other fields")
	}
	return out, nil
}
