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
	"strings"

	"podnetwork.io/operator/internal/cidr"
)

// CheckClusterCIDR says why kube-proxy would refuse value as its
// clusterCIDR, or returns nil. kube-proxy splits clusterCIDR at every comma
// without trimming anything, and refuses more than two parts, a part it
// cannot read as a CIDR (Kubernetes' parser, which allows the legacy
// formats cidr.ParseObservedPrefix reads) and two parts of the same family
// (pkg/proxy/apis/config/validation). A space after the comma, as people
// write lists, is therefore fatal: kube-proxy exits at start.
func CheckClusterCIDR(value string) error {
	if value == "" {
		return nil
	}
	parts := strings.Split(value, ",")
	if len(parts) > 2 {
		return fmt.Errorf("it has %d comma-separated parts; kube-proxy takes one CIDR or one of each IP family", len(parts))
	}
	families := map[string]bool{}
	for _, part := range parts {
		p, _, ok := cidr.ParseObservedPrefix(part)
		if !ok {
			if strings.TrimSpace(part) != part {
				return fmt.Errorf("%q is not a CIDR: kube-proxy does not trim spaces around the commas", part)
			}
			return fmt.Errorf("%q is not a CIDR", part)
		}
		families[cidr.Family(p)] = true
	}
	if len(parts) == 2 && len(families) != 2 {
		return fmt.Errorf("both parts are %s; kube-proxy takes two CIDRs only as a dual-stack pair", cidr.Family(cidr.ParseObserved(parts[:1])[0]))
	}
	return nil
}
