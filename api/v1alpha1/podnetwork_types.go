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

package v1alpha1

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	// PodNetworkName is the name of the only PodNetwork the operator accepts.
	PodNetworkName = "default"

	// PodNetworkDrainFinalizer holds a PodNetwork that is being deleted until
	// every one of its ranges has been drained, released and purged.
	PodNetworkDrainFinalizer = "podnetwork.io/drain"

	// DefaultIPv4NodeMaskSize is the node block prefix length used for an IPv4
	// range that leaves nodeMaskSize unset (a /24 per node, 254 pod addresses).
	DefaultIPv4NodeMaskSize int32 = 24

	// DefaultIPv6NodeMaskSize is the node block prefix length used for an IPv6
	// range that leaves nodeMaskSize unset (a /64 per node).
	DefaultIPv6NodeMaskSize int32 = 64

	// MaxSpecRanges is the maximum number of ranges in PodNetwork.spec.ranges.
	MaxSpecRanges = 64

	// MaxStatusRanges is the maximum number of ranges the operator tracks in
	// PodNetwork.status.ranges: the ranges of the spec plus the ones that left
	// it and are still draining or waiting to be purged.
	MaxStatusRanges = 128

	// MaxListedNodes is how many node names status lists (holders, foreign
	// nodes) before it only counts them.
	MaxListedNodes = 20
)

// RangePhase is the lifecycle phase of a pod CIDR range.
//
// The operator moves a range to its next phase only when every required
// PodNetworkConsumer has acknowledged the current one (see protocol.go):
//
//	(new in spec) ──▶ Pending ──▶ Active ──▶ Draining ──▶ Released ──▶ (purged)
//	                     │                      │
//	                     └── left spec ─────────┼──▶ Released
//	                                            └──▶ Active (back in spec)
//
// +kubebuilder:validation:Enum=Pending;Active;Draining;Released
type RangePhase string

const (
	// RangePhasePending means the range is in the spec and waits for every
	// required consumer to acknowledge that it is ready for nodes and pods to
	// use addresses in it. Nothing is allocated from a Pending range.
	RangePhasePending RangePhase = "Pending"

	// RangePhaseActive means every required consumer accepted the range and
	// NodeIPAM allocates node blocks from it.
	RangePhaseActive RangePhase = "Active"

	// RangePhaseDraining means an Active range left the spec. NodeIPAM places no
	// new block in it, but consumers keep it in their configuration while nodes
	// still hold blocks inside it.
	RangePhaseDraining RangePhase = "Draining"

	// RangePhaseReleased means no node holds a block in the range any more (or
	// it was never Active) and consumers remove it from their configuration.
	// The operator purges it from status once every required consumer
	// acknowledged Released.
	RangePhaseReleased RangePhase = "Released"
)

// IPFamily is the IP family of a range.
// +kubebuilder:validation:Enum=IPv4;IPv6
type IPFamily string

const (
	// IPv4 is the IPv4 family.
	IPv4 IPFamily = "IPv4"
	// IPv6 is the IPv6 family.
	IPv6 IPFamily = "IPv6"
)

// WhenExhaustedPolicy says what NodeIPAM does when a node needs a block and
// every block of its ranges is either allocated or waiting out its recycle
// delay.
// +kubebuilder:validation:Enum=Wait;ReuseOldest
type WhenExhaustedPolicy string

const (
	// WhenExhaustedWait leaves the node without a block until a recycled block
	// has waited out recycleDelaySeconds or a range is added.
	WhenExhaustedWait WhenExhaustedPolicy = "Wait"

	// WhenExhaustedReuseOldest hands out the block that was freed the longest
	// time ago, even if its recycle delay has not elapsed yet.
	WhenExhaustedReuseOldest WhenExhaustedPolicy = "ReuseOldest"
)

// FamilyPolicy says how NodeIPAM hands IP families to a node that has no
// podCIDRs yet.
// +kubebuilder:validation:Enum=Independent;AllOrWait
type FamilyPolicy string

const (
	// FamilyPolicyIndependent gives a node a block of every family that has
	// an Active range selecting it, in one update: a family whose range is
	// still Pending (or absent) is simply left out, so the node joins with
	// the families it can have now and never gets the others (podCIDRs are
	// immutable).
	FamilyPolicyIndependent FamilyPolicy = "Independent"

	// FamilyPolicyAllOrWait gives a node a block of every family that some
	// Pending or Active range selecting it has, in one update, or nothing:
	// while such a range is still Pending (or its family has no usable
	// block) the node waits, reported like a node whose ranges are
	// exhausted. A node never gets one family alone while a range of the
	// other family that selects it is on its way. Draining and Released
	// ranges do not count. Only NodeIPAM applies it; another allocator
	// (kube-controller-manager with --allocate-node-cidrs) does not.
	FamilyPolicyAllOrWait FamilyPolicy = "AllOrWait"
)

// RangeInvalidReason says why a tracked range cannot be used.
//
// Spec ranges that cannot be tracked at all (their name is still tracked with
// another cidr or nodeMaskSize, or status already tracks MaxStatusRanges
// ranges) get no status entry; the Degraded condition names them.
// +kubebuilder:validation:Enum=InvalidCIDR;RangeConflict;ServiceCIDROverlap;NodeAddressOverlap;StatusEdited
type RangeInvalidReason string

const (
	// RangeInvalidCIDR means the cidr or nodeMaskSize of the range could not be
	// used (the CRD validation normally rejects such a range first). On a
	// range that is not Pending it means status holds a cidr that is not a
	// canonical prefix, or a nodeMaskSize that does not fit it: the status
	// was edited by hand. Such a range is never released, since nothing
	// tells which nodes hold blocks in it.
	RangeInvalidCIDR RangeInvalidReason = "InvalidCIDR"

	// RangeInvalidRangeConflict means the range overlaps another range, in the
	// spec or still tracked in status under another name, and is neither a
	// strict supernet nor a strict subnet of it with the same nodeMaskSize.
	// A CIDR that is still tracked (for example Released but not purged yet)
	// cannot be reused under another name until it has been purged.
	RangeInvalidRangeConflict RangeInvalidReason = "RangeConflict"

	// RangeInvalidServiceCIDROverlap means the range overlaps a ServiceCIDR,
	// including one that is being deleted.
	RangeInvalidServiceCIDROverlap RangeInvalidReason = "ServiceCIDROverlap"

	// RangeInvalidNodeAddressOverlap means the range contains an address of a
	// node.
	RangeInvalidNodeAddressOverlap RangeInvalidReason = "NodeAddressOverlap"

	// RangeInvalidStatusEdited means another client changed the cidr or
	// nodeMaskSize of a range that is no longer in the spec, so the operator
	// cannot tell which prefix nodes and consumers really use: it keeps the
	// range Draining and never releases it. Removing the entry from status
	// by hand, once no node uses the original prefix, forgets it; adding
	// the range back to the spec under its name tracks it again from the
	// spec.
	RangeInvalidStatusEdited RangeInvalidReason = "StatusEdited"
)

// PodCIDRRange is one pod CIDR range of the cluster. Overlapping ranges are
// rejected, except that a range may strictly contain other ranges of the same
// IP family with the same nodeMaskSize: that is how a range is expanded in
// place (add the supernet, then remove the ranges it contains).
//
// +kubebuilder:validation:XValidation:rule="self.cidr == oldSelf.cidr",message="cidr is immutable: add a range with a new name for the new CIDR and remove this one"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || !isCIDR(oldSelf.cidr) || (has(self.nodeMaskSize) ? self.nodeMaskSize : (cidr(self.cidr).ip().family() == 4 ? 24 : 64)) == (has(oldSelf.nodeMaskSize) ? oldSelf.nodeMaskSize : (cidr(oldSelf.cidr).ip().family() == 4 ? 24 : 64))",message="nodeMaskSize is immutable (unset means 24 for IPv4 and 64 for IPv6, and may only be replaced by that same value)"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || (has(self.nodeMaskSize) ? self.nodeMaskSize : (cidr(self.cidr).ip().family() == 4 ? 24 : 64)) >= cidr(self.cidr).prefixLength()",message="nodeMaskSize must be at least the prefix length of cidr (unset means 24 for IPv4 and 64 for IPv6; set it explicitly for a smaller range)"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || !has(self.nodeMaskSize) || self.nodeMaskSize <= (cidr(self.cidr).ip().family() == 4 ? 30 : 126)",message="nodeMaskSize must be at most 30 for an IPv4 range and at most 126 for an IPv6 range"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || (has(self.nodeMaskSize) ? self.nodeMaskSize : (cidr(self.cidr).ip().family() == 4 ? 24 : 64)) <= cidr(self.cidr).prefixLength() + 24",message="nodeMaskSize must be at most 24 bits longer than the prefix length of cidr, that is at most 16777216 node blocks per range (unset means 24 for IPv4 and 64 for IPv6; set it explicitly for a large range)"
type PodCIDRRange struct {
	// name identifies the range. It is a DNS label, unique within spec.ranges.
	// Consumers acknowledge a range by name, CIDR and phase.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name,omitempty"`

	// cidr is the IPv4 or IPv6 prefix of the range in canonical form, for
	// example 10.244.0.0/16 or fd00:10:244::/48. It is immutable. It must not
	// overlap the unspecified, "this network" (0.0.0.0/8), loopback,
	// link-local, multicast, reserved (240.0.0.0/4, including the broadcast
	// address) or IPv4-mapped IPv6 (::ffff:0:0/96) ranges.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",messageExpression="'cidr is not a valid CIDR: it must be an IPv4 or IPv6 prefix such as 10.244.0.0/16 or fd00:10:244::/48' + (self.contains(':') && self.contains('.') ? ' (IPv4-mapped IPv6 prefixes are not allowed)' : '')"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || self == string(cidr(self).masked())",message="cidr must be in canonical form: no address bits set after the prefix length and IPv6 in its shortest lower-case form (for example 10.244.0.0/16, not 10.244.1.0/16)"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr(self).ip().isUnspecified() || cidr('0.0.0.0/8').containsIP(cidr(self).ip()))",message="cidr must not overlap the unspecified address or 0.0.0.0/8"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr(self).ip().isLoopback() || cidr(self).containsIP('127.0.0.0') || cidr(self).containsIP('::1'))",message="cidr must not overlap the loopback range 127.0.0.0/8 or ::1"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr(self).ip().isLinkLocalUnicast() || cidr(self).containsIP('169.254.0.0') || cidr(self).containsIP('fe80::'))",message="cidr must not overlap the link-local range 169.254.0.0/16 or fe80::/10"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr('224.0.0.0/4').containsIP(cidr(self).ip()) || cidr(self).containsIP('224.0.0.0') || cidr('ff00::/8').containsIP(cidr(self).ip()) || cidr(self).containsIP('ff00::'))",message="cidr must not overlap the multicast range 224.0.0.0/4 or ff00::/8"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr('240.0.0.0/4').containsIP(cidr(self).ip()) || cidr(self).containsIP('240.0.0.0'))",message="cidr must not overlap the reserved range 240.0.0.0/4, which includes the broadcast address 255.255.255.255"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr(self).prefixLength() <= 95 && cidr(self).containsIP('::fffe:0:0'))",message="cidr must not overlap the IPv4-mapped IPv6 range ::ffff:0:0/96"
	CIDR string `json:"cidr,omitempty"`

	// nodeMaskSize is the prefix length of the block each node receives from
	// this range. When unset it is 24 for an IPv4 range and 64 for an IPv6
	// range (CEL cannot default a field from another one, so the default is
	// applied by EffectiveNodeMaskSize and shown in status.ranges). It must be
	// at least the prefix length of cidr, at most 30 (IPv4) or 126 (IPv6), and
	// at most 24 bits longer than the prefix length of cidr. It is immutable;
	// an unset value may only be replaced by the default it stands for.
	// Ranges that contain one another must have the same nodeMaskSize.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=126
	NodeMaskSize int32 `json:"nodeMaskSize,omitempty"`

	// nodeSelector restricts the nodes that receive blocks from this range.
	// When unset every node may. It may be changed at any time: it only
	// affects the blocks NodeIPAM allocates afterwards.
	// +optional
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty"`
}

// Prefix parses cidr.
func (r *PodCIDRRange) Prefix() (netip.Prefix, error) {
	return netip.ParsePrefix(r.CIDR)
}

// EffectiveNodeMaskSize returns nodeMaskSize, or its default for the family of
// cidr when it is unset: DefaultIPv4NodeMaskSize for IPv4 and
// DefaultIPv6NodeMaskSize for IPv6. It returns 0 when nodeMaskSize is unset and
// cidr cannot be parsed.
func (r *PodCIDRRange) EffectiveNodeMaskSize() int32 {
	if r.NodeMaskSize != 0 {
		return r.NodeMaskSize
	}
	p, err := r.Prefix()
	if err != nil {
		return 0
	}
	return DefaultNodeMaskSize(p)
}

// DefaultNodeMaskSize returns the default nodeMaskSize for the family of p.
func DefaultNodeMaskSize(p netip.Prefix) int32 {
	if p.Addr().Is4() {
		return DefaultIPv4NodeMaskSize
	}
	return DefaultIPv6NodeMaskSize
}

// FamilyOf returns the IPFamily of p.
func FamilyOf(p netip.Prefix) IPFamily {
	if p.Addr().Is4() {
		return IPv4
	}
	return IPv6
}

// AllocationPolicy tunes how NodeIPAM recycles node blocks and which IP
// families it gives a node.
type AllocationPolicy struct {
	// recycleDelaySeconds is how long a block freed by a deleted node stays
	// quarantined before NodeIPAM hands it to another node, so that routes and
	// conntrack entries for the old node can expire. Defaults to 60.
	// +optional
	// +kubebuilder:default=60
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	RecycleDelaySeconds *int32 `json:"recycleDelaySeconds,omitempty"`

	// whenExhausted says what NodeIPAM does when a node needs a block and every
	// free block is still quarantined: Wait (the default) leaves the node
	// without a block until one has waited out recycleDelaySeconds,
	// ReuseOldest hands out the block that was freed the longest time ago.
	// +optional
	// +kubebuilder:default=Wait
	WhenExhausted WhenExhaustedPolicy `json:"whenExhausted,omitempty"`

	// familyPolicy says which IP families NodeIPAM gives a node that has no
	// podCIDRs yet. Independent (unset means Independent) gives it every
	// family with an Active range that selects it, at once. AllOrWait gives
	// it every family that a Pending or Active range selecting it has, at
	// once, or makes it wait: never one family alone while a range of the
	// other family that selects it waits for its consumers. That is what
	// converting a cluster to dual-stack with a network plugin that enables
	// a family for every node at once (flannel's EnableIPv6) needs: the
	// flannel adapter turns EnableIPv6 on only under AllOrWait.
	//
	// It is opt-in: under AllOrWait a node cannot join at all while, say,
	// an IPv6 range that selects it is Pending on a slow or broken
	// consumer, and a cluster must not stop taking nodes for that unless
	// the admin asked for it. Nodes that already hold podCIDRs are never
	// changed (podCIDRs are immutable); drain assist, in Auto mode,
	// replaces those that lack a family an Active range selecting them
	// has.
	// +optional
	FamilyPolicy FamilyPolicy `json:"familyPolicy,omitempty"`
}

// EffectiveFamilyPolicy returns familyPolicy, Independent when the
// allocation or the field is unset.
func (a *AllocationPolicy) EffectiveFamilyPolicy() FamilyPolicy {
	if a == nil || a.FamilyPolicy == "" {
		return FamilyPolicyIndependent
	}
	return a.FamilyPolicy
}

// PodNetworkSpec declares the pod network of the cluster. It is never empty
// once stored: the apiserver defaults allocation.
//
// The overlap rule compares every pair of ranges once (a.name < b.name); at 64
// ranges that is 2016 comparisons, well inside the CEL cost limits.
//
// +kubebuilder:validation:XValidation:rule="!has(self.ranges) || self.ranges.all(a, self.ranges.all(b, a.name >= b.name || !isCIDR(a.cidr) || !isCIDR(b.cidr) || !(cidr(a.cidr).containsCIDR(cidr(b.cidr)) || cidr(b.cidr).containsCIDR(cidr(a.cidr))) || (cidr(a.cidr).prefixLength() != cidr(b.cidr).prefixLength() && (has(a.nodeMaskSize) ? a.nodeMaskSize : (cidr(a.cidr).ip().family() == 4 ? 24 : 64)) == (has(b.nodeMaskSize) ? b.nodeMaskSize : (cidr(b.cidr).ip().family() == 4 ? 24 : 64)))))",message="ranges must not overlap; the only exception is a range that strictly contains other ranges of the same IP family with the same nodeMaskSize (expansion in place); kubectl podnetwork plan -f names the ranges that overlap"
// +kubebuilder:validation:MinProperties=1
type PodNetworkSpec struct {
	// ranges are the pod CIDR ranges of the cluster, keyed by name. A range
	// added here starts Pending and becomes Active once every required
	// PodNetworkConsumer has accepted it; a range removed from here is drained
	// and released before the operator forgets it. The list may be empty.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Ranges []PodCIDRRange `json:"ranges,omitempty"`

	// allocation tunes how NodeIPAM recycles node blocks and which IP
	// families it gives a node. The apiserver defaults it, so a stored
	// PodNetwork always has it with recycleDelaySeconds and whenExhausted
	// set (familyPolicy unset means Independent); an empty allocation is
	// valid and means the defaults.
	// +optional
	// +kubebuilder:default={}
	Allocation *AllocationPolicy `json:"allocation,omitempty"`

	// autoscaling lets the operator grow the pod network by itself from
	// address pools, before nodes wait for a block, and optionally give back
	// the ranges it added once they stay empty. The ranges it adds live in
	// AutoscaledRangeSet "default", never in spec.ranges. Unset means Off.
	// See docs/autoscaling.md.
	// +optional
	Autoscaling PodNetworkAutoscaling `json:"autoscaling,omitzero"`

	// drainAssist lets the operator replace, a few at a time, the nodes
	// that hold blocks in Draining ranges (a node's podCIDRs cannot change,
	// so a Draining range is released only once they are replaced): it
	// cordons them, evicts their pods through the Eviction API and hands
	// them over to Karpenter (Delete) or a Cluster API MachineHealthCheck
	// (Condition). Unset means Off. See docs/operations.md.
	// +optional
	DrainAssist DrainAssist `json:"drainAssist,omitzero"`
}

// RangeRejection is a consumer's refusal of the current phase of a range.
type RangeRejection struct {
	// consumer is the name of the PodNetworkConsumer that rejected the range.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Consumer string `json:"consumer,omitempty"`

	// message is the consumer's explanation. It is left out, never empty,
	// when the consumer gave none.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
}

// RangeUsage counts the node blocks of a range. NodeIPAM reports every count,
// 0 included (NewRangeUsage builds one).
type RangeUsage struct {
	// capacity is the number of node blocks in the range; a range has at
	// least one (nodeMaskSize is at least the prefix length of cidr).
	// +required
	// +kubebuilder:validation:Minimum=1
	Capacity int64 `json:"capacity,omitempty"`

	// allocated is the number of blocks held by nodes.
	// +required
	// +kubebuilder:validation:Minimum=0
	Allocated *int64 `json:"allocated,omitempty"`

	// free is the number of blocks that can be handed out now.
	// +required
	// +kubebuilder:validation:Minimum=0
	Free *int64 `json:"free,omitempty"`

	// quarantined is the number of freed blocks still waiting out
	// recycleDelaySeconds.
	// +required
	// +kubebuilder:validation:Minimum=0
	Quarantined *int64 `json:"quarantined,omitempty"`
}

// IsZero reports whether u is unset: NodeIPAM has not reported the range.
func (u RangeUsage) IsZero() bool {
	return u == RangeUsage{}
}

// NewRangeUsage returns the usage with the given counts, every one set.
func NewRangeUsage(capacity, allocated, free, quarantined int64) RangeUsage {
	return RangeUsage{
		Capacity:    capacity,
		Allocated:   ptr.To(allocated),
		Free:        ptr.To(free),
		Quarantined: ptr.To(quarantined),
	}
}

// RangeStatus is the operator's record of one range.
type RangeStatus struct {
	// name is the name of the range in spec.ranges.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name,omitempty"`

	// cidr is the prefix of the range. Together with name and phase it is what
	// a consumer acknowledges.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=43
	CIDR string `json:"cidr,omitempty"`

	// ipFamily is the IP family of cidr.
	// +optional
	IPFamily IPFamily `json:"ipFamily,omitempty"`

	// nodeMaskSize is the effective prefix length of the node blocks of the
	// range (the spec value or its default).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=128
	NodeMaskSize int32 `json:"nodeMaskSize,omitempty"`

	// phase is the lifecycle phase of the range: Pending, Active, Draining or
	// Released.
	// +required
	Phase RangePhase `json:"phase,omitempty"`

	// phaseSince is when the range entered its current phase.
	// +optional
	PhaseSince *metav1.Time `json:"phaseSince,omitempty"`

	// awaiting lists the required consumers whose acknowledgement of the
	// current phase the next transition waits for.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	Awaiting []string `json:"awaiting,omitempty"`

	// rejections lists the consumers that rejected the current phase of the
	// range, with their reasons. A rejection by a required consumer keeps a
	// Pending range from becoming Active.
	// +optional
	// +listType=map
	// +listMapKey=consumer
	// +kubebuilder:validation:MaxItems=64
	Rejections []RangeRejection `json:"rejections,omitempty"`

	// invalidReason says why the range cannot be used. A Pending range with an
	// invalidReason is never activated and consumers are not asked to apply
	// it; on an Active range it reports a conflict found after activation;
	// on a Draining range (InvalidCIDR, StatusEdited) it says why the range
	// is never released.
	// +optional
	InvalidReason RangeInvalidReason `json:"invalidReason,omitempty"`

	// invalidMessage explains invalidReason.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	InvalidMessage string `json:"invalidMessage,omitempty"`

	// message says in words what the range waits for; it is left out when
	// the range waits for nothing.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`

	// coveredBy is the name of an Active range that strictly contains this
	// one, if any. Node blocks of this range stay valid under that range, so
	// removing this range from the spec releases it without replacing nodes.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	CoveredBy string `json:"coveredBy,omitempty"`

	// usage counts the node blocks of the range, as reported by NodeIPAM.
	// +optional
	Usage RangeUsage `json:"usage,omitzero"`

	// holders lists the first nodes (sorted by name, at most 20) that hold a
	// pod CIDR inside this Draining range and outside every other Active
	// range. The range is released once there are none.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=253
	Holders []string `json:"holders,omitempty"`

	// holderCount is the number of nodes counted in holders, including the
	// ones not listed. It is left out when there are none.
	// +optional
	// +kubebuilder:validation:Minimum=1
	HolderCount int32 `json:"holderCount,omitempty"`

	// pool is the autoscaling pool that added the range (it is declared in
	// AutoscaledRangeSet "default"); it is left out for a range of
	// spec.ranges.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	Pool string `json:"pool,omitempty"`
}

// Prefix parses cidr.
func (r *RangeStatus) Prefix() (netip.Prefix, error) {
	return netip.ParsePrefix(r.CIDR)
}

// ConsumerSummary is the operator's view of one PodNetworkConsumer.
type ConsumerSummary struct {
	// name is the name of the PodNetworkConsumer.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name,omitempty"`

	// required is true when transitions wait for this consumer.
	// +required
	Required bool `json:"required"`

	// inSync is true when the consumer has accepted the current phase of
	// every range it is asked to apply.
	// +required
	InSync bool `json:"inSync"`

	// message lists the ranges the consumer has not acknowledged yet and the
	// ones it rejected; it is left out when there are none.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
}

// QuarantinedBlock is a node block freed by NodeIPAM that waits out
// recycleDelaySeconds before it is handed out again.
type QuarantinedBlock struct {
	// cidr is the freed node block.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=43
	CIDR string `json:"cidr,omitempty"`

	// freedAt is when the block was freed.
	// +required
	FreedAt *metav1.Time `json:"freedAt,omitempty"`
}

// PodNetworkSummary counts ranges by phase, for printer columns.
type PodNetworkSummary struct {
	// totalRanges is the number of declared ranges: those of spec.ranges
	// and those the autoscaler added.
	// +required
	// +kubebuilder:validation:Minimum=0
	TotalRanges int32 `json:"totalRanges"`

	// activeRanges is the number of declared ranges that are Active.
	// +required
	// +kubebuilder:validation:Minimum=0
	ActiveRanges int32 `json:"activeRanges"`

	// pendingRanges is the number of tracked ranges that are Pending.
	// +required
	// +kubebuilder:validation:Minimum=0
	PendingRanges int32 `json:"pendingRanges"`

	// drainingRanges is the number of tracked ranges that are Draining.
	// +required
	// +kubebuilder:validation:Minimum=0
	DrainingRanges int32 `json:"drainingRanges"`

	// releasedRanges is the number of tracked ranges that are Released and
	// not purged yet.
	// +required
	// +kubebuilder:validation:Minimum=0
	ReleasedRanges int32 `json:"releasedRanges"`

	// autoscaledRanges is the number of declared ranges the autoscaler
	// added (AutoscaledRangeSet "default"); totalRanges counts them too.
	// +required
	// +kubebuilder:validation:Minimum=0
	AutoscaledRanges int32 `json:"autoscaledRanges"`
}

// PodNetworkStatus is the observed state of the pod network. Only the operator
// writes it. It is never empty: it defaults to observedGeneration 0.
// +kubebuilder:validation:MinProperties=1
type PodNetworkStatus struct {
	// conditions describe the PodNetwork as a whole. Known types are Ready,
	// Progressing and Degraded (see conditions.go).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the metadata.generation the status was computed
	// from; 0 until the operator first reconciles the object, so kstatus and
	// GitOps tools see a new PodNetwork as in progress, not current.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`

	// summary counts ranges by phase. It is always written by the operator so
	// that printer columns show zeros.
	// +optional
	Summary *PodNetworkSummary `json:"summary,omitempty"`

	// ranges records every range the operator tracks: the ranges of the spec
	// and the ones that left it but are not purged yet. Keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Ranges []RangeStatus `json:"ranges,omitempty"`

	// consumers summarises every PodNetworkConsumer that is not being
	// deleted. Keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Consumers []ConsumerSummary `json:"consumers,omitempty"`

	// foreignNodeCount is the number of nodes with a pod CIDR outside every
	// tracked range. It is left out when there are none.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ForeignNodeCount int32 `json:"foreignNodeCount,omitempty"`

	// foreignNodes lists the first nodes (sorted by name, at most 20) counted
	// in foreignNodeCount.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=253
	ForeignNodes []string `json:"foreignNodes,omitempty"`

	// quarantine lists the node blocks NodeIPAM freed that are still waiting
	// out recycleDelaySeconds, so that the delay survives a restart. Only
	// NodeIPAM writes it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4096
	Quarantine []QuarantinedBlock `json:"quarantine,omitempty"`

	// allocationConflicts lists, in words and sorted, the first pairs of
	// nodes (at most 20) whose podCIDRs overlap: another allocator (such as
	// kube-controller-manager with --allocate-node-cidrs) is at work, or
	// podCIDRs were set by hand. NodeIPAM never overwrites a podCIDR, so an
	// entry stays until one of the two nodes is deleted. Only NodeIPAM
	// writes it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=1024
	AllocationConflicts []string `json:"allocationConflicts,omitempty"`

	// autoscaling is the autoscaler's report on its pools: what it does,
	// why, and the forecast. Only the autoscaler writes it.
	// +optional
	Autoscaling *AutoscalingStatus `json:"autoscaling,omitempty"`

	// drainAssist is drain assist's report: the nodes left to replace,
	// the ones it works on and why any is blocked. Only drain assist writes
	// it; it is left out while spec.drainAssist.mode is Off.
	// +optional
	DrainAssist *DrainAssistStatus `json:"drainAssist,omitempty"`
}

// PodNetwork declares the pod CIDR ranges of the cluster and reports their
// lifecycle. It is a singleton named "default".
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=pn
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Active",type=integer,JSONPath=`.status.summary.activeRanges`,description="Number of declared ranges (spec.ranges and the autoscaler's) that are Active"
// +kubebuilder:printcolumn:name="Total",type=integer,JSONPath=`.status.summary.totalRanges`,description="Number of declared ranges (spec.ranges and the autoscaler's)"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`,description="Whether every spec range is Active and nothing is in transition"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Pending",type=integer,priority=10,JSONPath=`.status.summary.pendingRanges`,description="Number of Pending ranges"
// +kubebuilder:printcolumn:name="Draining",type=integer,priority=10,JSONPath=`.status.summary.drainingRanges`,description="Number of Draining ranges"
// +kubebuilder:printcolumn:name="Autoscaled",type=integer,priority=10,JSONPath=`.status.summary.autoscaledRanges`,description="Number of declared ranges the autoscaler added"
// +kubebuilder:printcolumn:name="Autoscaling",type=string,priority=10,JSONPath=`.status.autoscaling.message`,description="What the autoscaler does with each pool"
// +kubebuilder:printcolumn:name="Drain Assist",type=string,priority=10,JSONPath=`.status.drainAssist.message`,description="What drain assist does with the nodes that hold blocks in Draining ranges"
// +kubebuilder:printcolumn:name="Message",type=string,priority=10,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,description="Message of the Ready condition"
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'default'",message="PodNetwork is a singleton: its name must be \"default\""
type PodNetwork struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The default of spec is not {}: the apiserver checks a default as
	// written, before the defaults nested in it apply, and an empty spec is
	// not valid (MinProperties=1).

	// spec declares the pod CIDR ranges. When it is left out it defaults to
	// an allocation with its defaults.
	// +optional
	// +kubebuilder:default={allocation: {}}
	Spec PodNetworkSpec `json:"spec,omitzero"`

	// status is the observed state of the ranges and consumers. It defaults
	// to observedGeneration 0, so a PodNetwork no controller has seen yet
	// reads as not reconciled.
	// +optional
	// +kubebuilder:default={observedGeneration: 0}
	Status PodNetworkStatus `json:"status,omitzero"`
}

// GetConditions returns the conditions of the PodNetwork.
func (pn *PodNetwork) GetConditions() []metav1.Condition {
	return pn.Status.Conditions
}

// SetConditions replaces the conditions of the PodNetwork.
func (pn *PodNetwork) SetConditions(conditions []metav1.Condition) {
	pn.Status.Conditions = conditions
}

// FindRange returns the status of the range with the given name, or nil.
func (s *PodNetworkStatus) FindRange(name string) *RangeStatus {
	for i := range s.Ranges {
		if s.Ranges[i].Name == name {
			return &s.Ranges[i]
		}
	}
	return nil
}

// +kubebuilder:object:root=true

// PodNetworkList is a list of PodNetworks.
type PodNetworkList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the PodNetworks.
	Items []PodNetwork `json:"items"`
}

func init() {
	objectTypes = append(objectTypes, &PodNetwork{}, &PodNetworkList{})
}
