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

	"podnetwork.io/operator/internal/adapters"
)

// Covered reads what kube-proxy's configuration file treats as pod traffic:
// the prefixes of clusterCIDR, or why its detect-local mode does not depend
// on the ranges.
func Covered(text string) (adapters.Covered, error) {
	cfg, err := Parse(text)
	if err != nil {
		return adapters.Covered{}, err
	}
	why, err := rangeIndependent(cfg)
	if err != nil || why != "" {
		return adapters.Covered{RangeIndependent: why}, err
	}
	var out adapters.Covered
	for _, s := range strings.Split(cfg.ClusterCIDR, ",") {
		if s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return adapters.Covered{}, fmt.Errorf("clusterCIDR %q: %w", cfg.ClusterCIDR, err)
		}
		out.Prefixes = append(out.Prefixes, p.Masked())
	}
	return out, nil
}
