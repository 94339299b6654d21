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
	"net/netip"

	"podnetwork.io/operator/internal/adapters"
)

// Covered reads what flannel's net-conf.json treats as the pod network:
// Network while IPv4 is enabled and IPv6Network while IPv6 is (Parse has
// checked both).
func Covered(text string) (adapters.Covered, error) {
	c, err := Parse(text)
	if err != nil {
		return adapters.Covered{}, err
	}
	var out adapters.Covered
	if p, err := netip.ParsePrefix(c.Network); err == nil && c.IPv4Enabled() {
		out.Prefixes = append(out.Prefixes, p.Masked())
	}
	if p, err := netip.ParsePrefix(c.IPv6Network); err == nil && c.IPv6Enabled() {
		out.Prefixes = append(out.Prefixes, p.Masked())
	}
	return out, nil
}
