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

// Package adapterstest builds the inputs of the adapters' pure functions for
// their table tests.
package adapterstest

import (
	"net/netip"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/adapters"
)

// Range is a tracked range in the given phase.
func Range(name, cidr string, phase v1alpha1.RangePhase) v1alpha1.RangeStatus {
	p := netip.MustParsePrefix(cidr)
	return v1alpha1.RangeStatus{Name: name, CIDR: cidr, IPFamily: v1alpha1.FamilyOf(p), Phase: phase}
}

// Pending, Active, Draining and Released are Range in that phase.
func Pending(name, cidr string) v1alpha1.RangeStatus {
	return Range(name, cidr, v1alpha1.RangePhasePending)
}

func Active(name, cidr string) v1alpha1.RangeStatus {
	return Range(name, cidr, v1alpha1.RangePhaseActive)
}

func Draining(name, cidr string) v1alpha1.RangeStatus {
	return Range(name, cidr, v1alpha1.RangePhaseDraining)
}

func Released(name, cidr string) v1alpha1.RangeStatus {
	return Range(name, cidr, v1alpha1.RangePhaseReleased)
}

// PodNetwork is PodNetwork "default" tracking ranges, in that order.
func PodNetwork(ranges ...v1alpha1.RangeStatus) *v1alpha1.PodNetwork {
	pn := &v1alpha1.PodNetwork{}
	pn.Name = v1alpha1.PodNetworkName
	pn.Status.Ranges = ranges
	return pn
}

// Service is a ServiceCIDR prefix.
func Service(name, cidr string) adapters.NamedPrefix {
	return adapters.NamedPrefix{Name: name, Prefix: netip.MustParsePrefix(cidr)}
}

// NodeAddr is a node address.
func NodeAddr(node, addr string) adapters.NodeAddress {
	return adapters.NodeAddress{Node: node, Addr: netip.MustParseAddr(addr)}
}

// Input is an adapters.Input with the kubeadm default ServiceCIDR
// (10.96.0.0/16) and the default limits.
func Input(pn *v1alpha1.PodNetwork) adapters.Input {
	return adapters.Input{
		PodNetwork:   pn,
		ServiceCIDRs: []adapters.NamedPrefix{Service("kubernetes", "10.96.0.0/16")},
		Limits:       adapters.DefaultLimits,
	}
}
