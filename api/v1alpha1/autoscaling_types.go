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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The autoscaler's settings (PodNetwork spec.autoscaling) and report
// (PodNetwork status.autoscaling). The ranges it adds live in the spec of
// AutoscaledRangeSet "default" (autoscaledrangeset_types.go), never in the
// PodNetwork's spec, so no admin apply or GitOps sync can remove them; see
// docs/autoscaling.md.

const (
	// MaxAutoscalingPools is the maximum number of pools in
	// spec.autoscaling.pools.
	MaxAutoscalingPools = 8

	// MaxPoolNameLength is the maximum length of a pool name: the ranges a
	// pool adds are named "<pool>-<n>", and a range name is a DNS label of
	// at most 63 characters.
	MaxPoolNameLength = 40

	// DefaultAutoscalingCooldownSeconds is spec.autoscaling.cooldownSeconds
	// when unset.
	DefaultAutoscalingCooldownSeconds int32 = 60

	// DefaultPoolMaxRanges is pools[].maxRanges when unset.
	DefaultPoolMaxRanges int32 = 4

	// DefaultShrinkIdleSeconds is pools[].shrink.idleSeconds when unset.
	DefaultShrinkIdleSeconds int32 = 3600
)

// AutoscalingMode says whether the autoscaler acts.
// +kubebuilder:validation:Enum=Off;Recommend;Auto
type AutoscalingMode string

const (
	// AutoscalingOff adds and removes nothing and reports nothing.
	AutoscalingOff AutoscalingMode = "Off"
	// AutoscalingRecommend computes every step but only reports it: status,
	// the RangeRecommended event and metrics. Nothing is added or removed.
	AutoscalingRecommend AutoscalingMode = "Recommend"
	// AutoscalingAuto adds and removes ranges.
	AutoscalingAuto AutoscalingMode = "Auto"
)

// GrowthStrategy says how a pool grows.
// +kubebuilder:validation:Enum=ExpandThenAdd;Expand;Add
type GrowthStrategy string

const (
	// GrowByExpandThenAdd expands a serving range by a supernet where
	// possible and adds a disjoint range otherwise.
	GrowByExpandThenAdd GrowthStrategy = "ExpandThenAdd"
	// GrowByExpand only expands: for consumers that take one CIDR per family
	// (kube-proxy, flannel) and must not widen their covering prefix over
	// addresses that are not pod addresses.
	GrowByExpand GrowthStrategy = "Expand"
	// GrowByAdd only adds disjoint ranges.
	GrowByAdd GrowthStrategy = "Add"
)

// GrowThreshold says when a pool grows: when the free blocks forecast a few
// lead times ahead fall below either value.
//
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:XValidation:rule="has(self.freeBlocksBelow) || has(self.freePercentBelow)",message="grow needs freeBlocksBelow, freePercentBelow or both"
type GrowThreshold struct {
	// freeBlocksBelow grows the pool when fewer than this many node blocks
	// are forecast to be free.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16777216
	FreeBlocksBelow int32 `json:"freeBlocksBelow,omitempty"`

	// freePercentBelow grows the pool when fewer than this percentage of the
	// node blocks of its serving ranges are forecast to be free.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=99
	FreePercentBelow int32 `json:"freePercentBelow,omitempty"`
}

// ShrinkPolicy says when a pool gives back a range it added.
//
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:XValidation:rule="has(self.freeBlocksAbove) || has(self.freePercentAbove)",message="shrink needs freeBlocksAbove, freePercentAbove or both"
type ShrinkPolicy struct {
	// freeBlocksAbove is how many node blocks must stay free without a range
	// for it to be removed. It must be greater than grow.freeBlocksBelow
	// (hysteresis).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16777216
	FreeBlocksAbove int32 `json:"freeBlocksAbove,omitempty"`

	// freePercentAbove is the percentage of the node blocks that must stay
	// free without a range for it to be removed. It must be greater than
	// grow.freePercentBelow (hysteresis).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	FreePercentAbove int32 `json:"freePercentAbove,omitempty"`

	// idleSeconds is how long a range must have held no allocated and no
	// quarantined block before it is removed. Defaults to 3600.
	// +optional
	// +kubebuilder:default=3600
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2592000
	IdleSeconds *int32 `json:"idleSeconds,omitempty"`
}

// CIDRString is a canonical IPv4 or IPv6 prefix.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=43
// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="must be an IPv4 or IPv6 prefix such as 10.244.0.0/16 or fd00:10:244::/48"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || self == string(cidr(self).masked())",message="must be in canonical form: no address bits set after the prefix length and IPv6 in its shortest lower-case form"
type CIDRString string

// AutoscalingPool is address space the autoscaler may carve ranges from.
//
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || self.rangePrefixLength >= cidr(self.cidr).prefixLength()",message="rangePrefixLength must be at least the prefix length of cidr"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || self.rangePrefixLength <= (cidr(self.cidr).ip().family() == 4 ? 32 : 128)",message="rangePrefixLength must be at most 32 for an IPv4 pool and at most 128 for an IPv6 pool"
// +kubebuilder:validation:XValidation:rule="self.nodeMaskSize >= self.rangePrefixLength",message="nodeMaskSize must be at least rangePrefixLength"
// +kubebuilder:validation:XValidation:rule="self.nodeMaskSize <= self.rangePrefixLength + 24",message="nodeMaskSize must be at most 24 bits longer than rangePrefixLength, that is at most 16777216 node blocks per added range"
// +kubebuilder:validation:XValidation:rule="!isCIDR(self.cidr) || self.nodeMaskSize <= (cidr(self.cidr).ip().family() == 4 ? 30 : 126)",message="nodeMaskSize must be at most 30 for an IPv4 pool and at most 126 for an IPv6 pool"
// +kubebuilder:validation:XValidation:rule="!has(self.exclusions) || !isCIDR(self.cidr) || self.exclusions.all(x, !isCIDR(x) || cidr(self.cidr).containsCIDR(x))",message="every exclusion must lie inside the pool's cidr"
// +kubebuilder:validation:XValidation:rule="!has(self.shrink) || !has(self.shrink.freeBlocksAbove) || !has(self.grow.freeBlocksBelow) || self.shrink.freeBlocksAbove > self.grow.freeBlocksBelow",message="shrink.freeBlocksAbove must be greater than grow.freeBlocksBelow, so that the pool never shrinks into growing again"
// +kubebuilder:validation:XValidation:rule="!has(self.shrink) || !has(self.shrink.freePercentAbove) || !has(self.grow.freePercentBelow) || self.shrink.freePercentAbove > self.grow.freePercentBelow",message="shrink.freePercentAbove must be greater than grow.freePercentBelow, so that the pool never shrinks into growing again"
type AutoscalingPool struct {
	// name identifies the pool. The ranges it adds are named "<name>-<n>".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name,omitempty"`

	// cidr is the address space of the pool, IPv4 or IPv6, in canonical
	// form. Every range the pool adds or expands lies inside it. Like a
	// range's cidr, it must not overlap the unspecified, "this network"
	// (0.0.0.0/8), loopback, link-local, multicast, reserved (240.0.0.0/4)
	// or IPv4-mapped IPv6 ranges. A range of spec.ranges inside the pool
	// with the pool's nodeMaskSize and nodeSelector may be expanded (by a
	// supernet the autoscaler adds; the admin's entry is never changed).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",messageExpression="'cidr is not a valid CIDR: it must be an IPv4 or IPv6 prefix such as 10.244.0.0/14 or fd00:10:244::/40' + (self.contains(':') && self.contains('.') ? ' (IPv4-mapped IPv6 prefixes are not allowed)' : '')"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || self == string(cidr(self).masked())",message="cidr must be in canonical form: no address bits set after the prefix length and IPv6 in its shortest lower-case form"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr(self).ip().isUnspecified() || cidr('0.0.0.0/8').containsIP(cidr(self).ip()))",message="cidr must not overlap the unspecified address or 0.0.0.0/8"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr(self).ip().isLoopback() || cidr(self).containsIP('127.0.0.0') || cidr(self).containsIP('::1'))",message="cidr must not overlap the loopback range 127.0.0.0/8 or ::1"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr(self).ip().isLinkLocalUnicast() || cidr(self).containsIP('169.254.0.0') || cidr(self).containsIP('fe80::'))",message="cidr must not overlap the link-local range 169.254.0.0/16 or fe80::/10"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr('224.0.0.0/4').containsIP(cidr(self).ip()) || cidr(self).containsIP('224.0.0.0') || cidr('ff00::/8').containsIP(cidr(self).ip()) || cidr(self).containsIP('ff00::'))",message="cidr must not overlap the multicast range 224.0.0.0/4 or ff00::/8"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr('240.0.0.0/4').containsIP(cidr(self).ip()) || cidr(self).containsIP('240.0.0.0'))",message="cidr must not overlap the reserved range 240.0.0.0/4, which includes the broadcast address 255.255.255.255"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || !(cidr(self).prefixLength() <= 95 && cidr(self).containsIP('::fffe:0:0'))",message="cidr must not overlap the IPv4-mapped IPv6 range ::ffff:0:0/96"
	CIDR string `json:"cidr,omitempty"`

	// rangePrefixLength is the prefix length of a range the pool adds; a
	// range it expands grows one bit at a time instead. At least the prefix
	// length of cidr, at most 32 (IPv4) or 128 (IPv6).
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=128
	RangePrefixLength int32 `json:"rangePrefixLength,omitempty"`

	// nodeMaskSize is the nodeMaskSize of every range the pool adds or
	// expands: at least rangePrefixLength, at most 24 bits longer, and at
	// most 30 (IPv4) or 126 (IPv6).
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=126
	NodeMaskSize int32 `json:"nodeMaskSize,omitempty"`

	// nodeSelector is copied to every range the pool adds. Only Active
	// ranges of the pool's family with an equal nodeSelector count as
	// serving the pool's nodes. When unset the pool serves every node.
	// +optional
	NodeSelector *corev1.NodeSelector `json:"nodeSelector,omitempty"`

	// maxRanges is how many disjoint ranges the pool may hold at once; a
	// range that expands another replaces it and does not count twice.
	// Defaults to 4.
	// +optional
	// +kubebuilder:default=4
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=32
	MaxRanges int32 `json:"maxRanges,omitempty"`

	// exclusions are prefixes inside cidr the pool never carves from,
	// reserved for other uses.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	Exclusions []CIDRString `json:"exclusions,omitempty"`

	// growBy says how the pool grows: ExpandThenAdd (the default) expands a
	// serving range by a supernet where possible and adds a disjoint range
	// otherwise; Expand only expands; Add only adds.
	// +optional
	// +kubebuilder:default=ExpandThenAdd
	GrowBy GrowthStrategy `json:"growBy,omitempty"`

	// grow says when the pool grows.
	// +required
	Grow GrowThreshold `json:"grow,omitzero"`

	// shrink lets the pool, when set, give back a range it added once the
	// range has been empty for shrink.idleSeconds and enough blocks stay
	// free without it. Ranges of spec.ranges are never removed.
	// +optional
	Shrink ShrinkPolicy `json:"shrink,omitzero"`
}

// PodNetworkAutoscaling configures the autoscaler.
//
// The overlap rule compares every pair of pools once; at 8 pools that is 28
// comparisons.
//
// +kubebuilder:validation:XValidation:rule="!has(self.pools) || self.pools.all(a, self.pools.all(b, a.name >= b.name || !isCIDR(a.cidr) || !isCIDR(b.cidr) || !(cidr(a.cidr).containsCIDR(cidr(b.cidr)) || cidr(b.cidr).containsCIDR(cidr(a.cidr)))))",message="pools must not overlap one another"
type PodNetworkAutoscaling struct {
	// mode is Off (nothing happens), Recommend (every step is computed and
	// reported, nothing is added or removed) or Auto.
	// +required
	Mode AutoscalingMode `json:"mode,omitempty"`

	// cooldownSeconds is how long after any step of a pool (a range it added
	// became Active, a range it removed left) the pool does not shrink.
	// Growth never waits for it: it waits for the previous range to become
	// Active. Defaults to 60.
	// +optional
	// +kubebuilder:default=60
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	CooldownSeconds *int32 `json:"cooldownSeconds,omitempty"`

	// pools are the address spaces the autoscaler carves ranges from, keyed
	// by name. They must not overlap one another.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	Pools []AutoscalingPool `json:"pools,omitempty"`
}

// PoolState summarises what the autoscaler does with a pool.
// +kubebuilder:validation:Enum=Steady;Growing;Shrinking;Recommending;Exhausted;Blocked
type PoolState string

const (
	// PoolSteady: nothing to do; enough blocks are forecast to be free.
	PoolSteady PoolState = "Steady"
	// PoolGrowing: a range the pool added waits to become Active.
	PoolGrowing PoolState = "Growing"
	// PoolShrinking: a range the pool removed is draining.
	PoolShrinking PoolState = "Shrinking"
	// PoolRecommending: Recommend mode has a step to report
	// (recommendation).
	PoolRecommending PoolState = "Recommending"
	// PoolExhausted: the pool should grow and cannot (condition Exhausted).
	PoolExhausted PoolState = "Exhausted"
	// PoolBlocked: the range the pool added was rejected or is invalid; the
	// pool adds nothing more (condition Blocked).
	PoolBlocked PoolState = "Blocked"
)

// AutoscalingAction is a step of the autoscaler.
// +kubebuilder:validation:Enum=Expand;Add;Remove
type AutoscalingAction string

const (
	// ActionExpand adds a supernet of a serving range.
	ActionExpand AutoscalingAction = "Expand"
	// ActionAdd adds a disjoint range.
	ActionAdd AutoscalingAction = "Add"
	// ActionRemove removes a range the autoscaler added.
	ActionRemove AutoscalingAction = "Remove"
)

// Pool condition types and reasons (status.autoscaling.pools[].conditions).
const (
	// PoolExhaustedCondition is True when the pool should grow and cannot.
	PoolExhaustedCondition = "Exhausted"
	// PoolBlockedCondition is True when the range the pool added was
	// rejected by a required consumer or is invalid; the pool adds nothing
	// more until it is Active or its entry is deleted from the set.
	PoolBlockedCondition = "Blocked"

	// PoolExhaustedReason (Exhausted=True): no room is left in the pool for
	// an expansion or a range of rangePrefixLength.
	PoolExhaustedReason = "PoolExhausted"
	// MaxRangesReachedReason (Exhausted=True): the pool cannot expand and
	// already holds maxRanges disjoint ranges.
	MaxRangesReachedReason = "MaxRangesReached"
	// HasRoomReason (Exhausted=False).
	HasRoomReason = "HasRoom"
	// AutoscaledRangeRejectedReason (Blocked=True): a required consumer
	// rejected the range the pool added.
	AutoscaledRangeRejectedReason = "RangeRejected"
	// AutoscaledRangeInvalidReason (Blocked=True): the lifecycle found the
	// range the pool added invalid.
	AutoscaledRangeInvalidReason = "RangeInvalid"
	// NotBlockedReason (Blocked=False).
	NotBlockedReason = "NotBlocked"
)

// Event reasons of the autoscaler, on PodNetwork "default".
const (
	// RangeAutoscaledEvent (Normal): the autoscaler added a range.
	RangeAutoscaledEvent = "RangeAutoscaled"
	// RangeRecommendedEvent (Normal): in Recommend mode, the step the
	// autoscaler would take changed.
	RangeRecommendedEvent = "RangeRecommended"
	// AutoscaledRangeRemovedEvent (Normal): the autoscaler removed a range
	// it added (shrink, or the range an expansion covers).
	AutoscaledRangeRemovedEvent = "AutoscaledRangeRemoved"
	// PoolExhaustedEvent (Warning): the pool should grow and cannot.
	PoolExhaustedEvent = "PoolExhausted"
	// PoolBlockedEvent (Warning): the range the pool added was rejected or
	// is invalid, and the pool stopped growing.
	PoolBlockedEvent = "PoolBlocked"
)

// AutoscalingRecommendation is the step Recommend mode would take.
type AutoscalingRecommendation struct {
	// action is Expand, Add or Remove.
	// +required
	Action AutoscalingAction `json:"action,omitempty"`

	// cidr is the range that would be added, or removed.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=43
	CIDR string `json:"cidr,omitempty"`

	// range is the range that would be expanded or removed.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Range string `json:"range,omitempty"`
}

// IdleRange records since when a range the autoscaler added has held no
// allocated and no quarantined block.
type IdleRange struct {
	// name is the range.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name,omitempty"`

	// since is when the range was first seen empty.
	// +required
	Since *metav1.Time `json:"since,omitempty"`
}

// AutoscalingPoolStatus is the autoscaler's report on one pool.
type AutoscalingPoolStatus struct {
	// conditions are Exhausted and Blocked.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// name is the pool.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	Name string `json:"name,omitempty"`

	// state summarises what the autoscaler does with the pool: Steady,
	// Growing, Shrinking, Recommending, Exhausted or Blocked.
	// +required
	State PoolState `json:"state,omitempty"`

	// message says why, in words.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`

	// ranges are the ranges the autoscaler holds for the pool.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	Ranges []string `json:"ranges,omitempty"`

	// capacityBlocks is the number of node blocks of the Active ranges that
	// serve the pool's nodes.
	// +optional
	// +kubebuilder:validation:Minimum=0
	CapacityBlocks *int64 `json:"capacityBlocks,omitempty"`

	// freeBlocks is how many of them are free.
	// +optional
	// +kubebuilder:validation:Minimum=0
	FreeBlocks *int64 `json:"freeBlocks,omitempty"`

	// waitingNodes is the number of the pool's nodes without a block of its
	// family.
	// +optional
	// +kubebuilder:validation:Minimum=0
	WaitingNodes *int32 `json:"waitingNodes,omitempty"`

	// blocksPerHour is the observed arrival rate of the pool's nodes.
	// +optional
	// +kubebuilder:validation:Minimum=0
	BlocksPerHour *int64 `json:"blocksPerHour,omitempty"`

	// leadTimeSeconds is how long the pool's last range took from being
	// added to Active (30 before any is known).
	// +optional
	// +kubebuilder:validation:Minimum=0
	LeadTimeSeconds *int32 `json:"leadTimeSeconds,omitempty"`

	// exhaustionSeconds is the forecast time until no block is free at the
	// observed rate; it is left out when no node arrives.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ExhaustionSeconds *int64 `json:"exhaustionSeconds,omitempty"`

	// recommendation is the step Recommend mode would take now.
	// +optional
	Recommendation AutoscalingRecommendation `json:"recommendation,omitzero"`

	// idleRanges records since when each range the pool added has been
	// empty, for shrink.idleSeconds.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	IdleRanges []IdleRange `json:"idleRanges,omitempty"`
}

// AutoscalingStatus is the autoscaler's report. Only the autoscaler writes
// it.
type AutoscalingStatus struct {
	// mode is the mode the autoscaler acted in.
	// +optional
	Mode AutoscalingMode `json:"mode,omitempty"`

	// message summarises every pool in one line, for kubectl get -o wide.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`

	// pools report on every pool of spec.autoscaling, keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	Pools []AutoscalingPoolStatus `json:"pools,omitempty"`
}

// FindPool returns the pool with the given name, or nil.
func (a *PodNetworkAutoscaling) FindPool(name string) *AutoscalingPool {
	for i := range a.Pools {
		if a.Pools[i].Name == name {
			return &a.Pools[i]
		}
	}
	return nil
}

// EffectiveCooldownSeconds returns cooldownSeconds or its default.
func (a *PodNetworkAutoscaling) EffectiveCooldownSeconds() int32 {
	if a.CooldownSeconds != nil {
		return *a.CooldownSeconds
	}
	return DefaultAutoscalingCooldownSeconds
}

// EffectiveMaxRanges returns maxRanges or its default.
func (p *AutoscalingPool) EffectiveMaxRanges() int32 {
	if p.MaxRanges != 0 {
		return p.MaxRanges
	}
	return DefaultPoolMaxRanges
}

// EffectiveGrowBy returns growBy or its default.
func (p *AutoscalingPool) EffectiveGrowBy() GrowthStrategy {
	if p.GrowBy != "" {
		return p.GrowBy
	}
	return GrowByExpandThenAdd
}

// EffectiveIdleSeconds returns shrink.idleSeconds or its default.
func (s *ShrinkPolicy) EffectiveIdleSeconds() int32 {
	if s.IdleSeconds != nil {
		return *s.IdleSeconds
	}
	return DefaultShrinkIdleSeconds
}

// IsSet reports whether a shrink policy is configured.
func (s *ShrinkPolicy) IsSet() bool {
	return s.FreeBlocksAbove != 0 || s.FreePercentAbove != 0 || s.IdleSeconds != nil
}

// IsSet reports whether spec.autoscaling is configured.
func (a *PodNetworkAutoscaling) IsSet() bool {
	return a.Mode != "" || a.CooldownSeconds != nil || len(a.Pools) > 0
}
