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

package cidr

import (
	"net/netip"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Address family names, as used in PodNetwork status and in messages: the
// API's IPFamily values, defined once there.
const (
	IPv4 = string(v1alpha1.IPv4)
	IPv6 = string(v1alpha1.IPv6)
)

// Family reports the address family of p: IPv4 or IPv6. It returns "" for an
// invalid prefix. An IPv4-mapped IPv6 prefix is IPv6, which is how net/netip
// treats it; ParseCanonical and ValidateRange reject such prefixes anyway.
func Family(p netip.Prefix) string {
	switch {
	case !p.IsValid():
		return ""
	default:
		return string(v1alpha1.FamilyOf(p))
	}
}

// DefaultNodeMaskSize returns the per-node block size used when a range does
// not set one: /24 for IPv4 and /64 for IPv6, the kube-controller-manager
// defaults, so clusters migrating from it keep the same block size. It returns
// 0 for an unknown family.
func DefaultNodeMaskSize(family string) int {
	switch family {
	case IPv4:
		return int(v1alpha1.DefaultIPv4NodeMaskSize)
	case IPv6:
		return int(v1alpha1.DefaultIPv6NodeMaskSize)
	default:
		return 0
	}
}

// MaxNodeMaskSize returns the longest node block allowed for family: /30 for
// IPv4 and /126 for IPv6, i.e. at least four addresses per node. It returns 0
// for an unknown family.
func MaxNodeMaskSize(family string) int {
	switch family {
	case IPv4:
		return 30
	case IPv6:
		return 126
	default:
		return 0
	}
}
